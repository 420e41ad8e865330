package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/parquet-go/parquet-go"
)

// CheckpointDir is the directory inside OUTDIR holding the checkpoint of an
// unfinished run. It is removed when the run completes.
const CheckpointDir = ".aem-run"

const manifestName = "manifest.json"

// manifest lists the committed parts of a checkpoint. It is rewritten
// (temp+rename) after every part, so it is the commit point: part files
// it does not list are leftovers of a killed run and are deleted.
type manifest struct {
	Version     int         `json:"version"`
	Fingerprint fingerprint `json:"fingerprint"`
	Parts       []partInfo  `json:"parts"`
}

// fingerprint identifies the input and the settings a checkpoint belongs to.
type fingerprint struct {
	Input       string            `json:"input"` // sha256 of the input file
	Scorer      string            `json:"scorer"`
	Thresholds  string            `json:"thresholds"` // JSON
	Settings    map[string]string `json:"settings"`
	Shard       string            `json:"shard"`
	TurnsSchema string            `json:"turns_schema"`
}

type partInfo struct {
	Name         string `json:"name"`
	FirstOrdinal int64  `json:"first_ordinal"`
	NextOrdinal  int64  `json:"next_ordinal"` // input ordinal after the part's last dialog
	Dialogs      int64  `json:"dialogs"`
	Turns        int64  `json:"turns"`
}

func (m *manifest) nextOrdinal() int64 {
	if len(m.Parts) == 0 {
		return 0
	}
	return m.Parts[len(m.Parts)-1].NextOrdinal
}

func (m *manifest) totals() (dialogs, turns int64) {
	for _, p := range m.Parts {
		dialogs += p.Dialogs
		turns += p.Turns
	}
	return
}

func partFiles(dir, name string) (turns, dialogs, index string) {
	base := filepath.Join(dir, name)
	return base + ".turns.parquet", base + ".dialogs.parquet", base + ".index.parquet"
}

// loadManifest reads the checkpoint manifest; ok is false when none exists.
func loadManifest(dir string) (m *manifest, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading checkpoint: %w", err)
	}
	m = new(manifest)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(m); err != nil {
		return nil, true, fmt.Errorf("%w: %s: %v (remove %s to start over)", ErrCorruptCheckpoint, filepath.Join(dir, manifestName), err, dir)
	}
	for _, p := range m.Parts {
		t, d, i := partFiles(dir, p.Name)
		for _, f := range []string{t, d, i} {
			if _, err := os.Stat(f); err != nil {
				return nil, true, fmt.Errorf("%w: part file %s: %v (remove %s to start over)", ErrCorruptCheckpoint, f, err, dir)
			}
		}
	}
	return m, true, nil
}

func saveManifest(dir string, m *manifest, wrap writeWrapper) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := writeFileAtomic(filepath.Join(dir, manifestName), append(data, '\n'), wrap); err != nil {
		return fmt.Errorf("saving checkpoint: %w", err)
	}
	return nil
}

// removeOrphans deletes files in the checkpoint directory that the
// manifest does not list (parts committed after the last manifest write,
// temporary files).
func removeOrphans(dir string, m *manifest) error {
	keep := map[string]bool{manifestName: true}
	for _, p := range m.Parts {
		t, d, i := partFiles(dir, p.Name)
		keep[filepath.Base(t)], keep[filepath.Base(d)], keep[filepath.Base(i)] = true, true, true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("reading checkpoint: %w", err)
	}
	for _, e := range entries {
		if !keep[e.Name()] {
			if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
				return fmt.Errorf("cleaning checkpoint: %w", err)
			}
		}
	}
	return nil
}

// partWriter writes the current checkpoint part.
type partWriter struct {
	dir     string
	name    string
	schema  *turnSchema
	wrap    writeWrapper
	turns   *rowFile            // with extra columns
	typed   *typedFile[TurnRow] // without
	dialogs *rowFile
	index   *rowFile
	info    partInfo
	started time.Time
}

func newPartWriter(dir string, seq int, schema *turnSchema, firstOrdinal int64, wrap writeWrapper, now time.Time) (*partWriter, error) {
	p := &partWriter{dir: dir, name: fmt.Sprintf("part-%05d", seq), schema: schema, wrap: wrap, started: now}
	p.info = partInfo{Name: p.name, FirstOrdinal: firstOrdinal, NextOrdinal: firstOrdinal}
	t, d, i := partFiles(dir, p.name)
	// Small row groups keep the part writer's buffers small; Snappy: parts
	// are only read back on resume, so compress fast rather than small.
	const rg = 4096
	var err error
	if schema.extras {
		p.turns, err = createRowFileCodec(t, schema.schema, rg, &parquet.Snappy, wrap)
	} else {
		p.typed, err = createTypedFile[TurnRow](t, rg, &parquet.Snappy, wrap)
	}
	if err != nil {
		return nil, err
	}
	if p.dialogs, err = createRowFileCodec(d, dialogRowSchema, rg, &parquet.Snappy, wrap); err != nil {
		p.abort()
		return nil, err
	}
	if p.index, err = createRowFileCodec(i, indexRowSchema, rg, &parquet.Snappy, wrap); err != nil {
		p.abort()
		return nil, err
	}
	return p, nil
}

func (p *partWriter) add(j *judgedDialog) error {
	var err error
	if p.typed != nil {
		err = p.typed.Write(j.turns)
	} else {
		err = p.turns.Write(j.turnRows...)
	}
	if err != nil {
		return err
	}
	if err := p.dialogs.Write(j.dialogRow); err != nil {
		return err
	}
	idx := indexRow{InputOrdinal: j.ordinal, DialogID: j.id, Turns: int64(j.numTurns()), GoldSHA256: j.digest[:]}
	if err := p.index.Write(indexRowSchema.Deconstruct(nil, &idx)); err != nil {
		return err
	}
	p.info.Dialogs++
	p.info.Turns += int64(j.numTurns())
	p.info.NextOrdinal = j.ordinal + 1
	return nil
}

// commit makes the part durable and records it in the manifest.
func (p *partWriter) commit(m *manifest) error {
	if p.typed != nil {
		if err := p.typed.Commit(); err != nil {
			p.abort()
			return err
		}
	}
	for _, f := range []*rowFile{p.turns, p.dialogs, p.index} {
		if f == nil {
			continue
		}
		if err := f.Commit(); err != nil {
			p.abort()
			return err
		}
	}
	m.Parts = append(m.Parts, p.info)
	if err := saveManifest(p.dir, m, p.wrap); err != nil {
		m.Parts = slices.Delete(m.Parts, len(m.Parts)-1, len(m.Parts))
		return err
	}
	return nil
}

func (p *partWriter) abort() {
	if p.typed != nil && !p.typed.closed {
		p.typed.Abort()
	}
	for _, f := range []*rowFile{p.turns, p.dialogs, p.index} {
		if f != nil && !f.closed {
			f.Abort()
		}
	}
}

// schemaString describes a schema for fingerprints.
func schemaString(s *parquet.Schema) string {
	return strings.Join(strings.Fields(s.String()), " ")
}
