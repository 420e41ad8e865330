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
	"time"

	"github.com/aem-dev/aem/rundir"

	"github.com/parquet-go/parquet-go"
)

const manifestName = "manifest.json"

// manifest lists the committed parts of a checkpoint. It is rewritten
// (temp+rename) after every part, so it is the commit point: part files
// it does not list are leftovers of a killed run and are deleted.
type manifest struct {
	Version     int         `json:"version"`
	Fingerprint fingerprint `json:"fingerprint"`
	Parts       []partInfo  `json:"parts"`
	// JudgeUsage is what an LLM judge was paid by every invocation so far,
	// as of the last save: a resumed run's summary and budget count it.
	JudgeUsage *rundir.JudgeUsage `json:"judge_usage,omitempty"`
}

// fingerprint identifies the input and the settings a checkpoint belongs to.
type fingerprint struct {
	Input string `json:"input"` // sha256 of the input file
	// MetricVersion is metrics.Version; 0 in checkpoints written before
	// it was recorded.
	MetricVersion int               `json:"metric_version"`
	Scorer        string            `json:"scorer"`
	Thresholds    string            `json:"thresholds"` // JSON
	Settings      map[string]string `json:"settings"`
	Shard         string            `json:"shard"`
	TurnsSchema   string            `json:"turns_schema"`
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
		return nil, true, fmt.Errorf("%w: %s: %w (remove %s to start over)", ErrCorruptCheckpoint, filepath.Join(dir, manifestName), err, dir)
	}
	for _, p := range m.Parts {
		t, d, i := partFiles(dir, p.Name)
		for _, f := range []string{t, d, i} {
			if _, err := os.Stat(f); err != nil {
				return nil, true, fmt.Errorf("%w: part file %s: %w (remove %s to start over)", ErrCorruptCheckpoint, f, err, dir)
			}
		}
	}
	return m, true, nil
}

func saveManifest(dir string, m *manifest, wrap rundir.Wrap) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := wrap.WriteFile(filepath.Join(dir, manifestName), append(data, '\n')); err != nil {
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

// partWriter writes one checkpoint part: a run directory's three Parquet
// files (the index is ordinals.parquet's schema) for a contiguous range of
// dialogs, written by rundir.Writer.
type partWriter struct {
	dir     string
	w       *rundir.Writer
	wrap    rundir.Wrap
	info    partInfo
	started time.Time
}

func newPartWriter(dir string, seq int, schema *rundir.TurnSchema, firstOrdinal int64, wrap rundir.Wrap, now time.Time) (*partWriter, error) {
	name := fmt.Sprintf("part-%05d", seq)
	t, d, i := partFiles(dir, name)
	w, err := rundir.Create(rundir.Files{Turns: t, Dialogs: d, Ordinals: i},
		rundir.WriterOptions{Schema: schema, RowGroupSize: 4096, Codec: &parquet.Snappy, Ordinals: true, Wrap: wrap})
	if err != nil {
		return nil, err
	}
	return &partWriter{dir: dir, w: w, wrap: wrap, started: now,
		info: partInfo{Name: name, FirstOrdinal: firstOrdinal, NextOrdinal: firstOrdinal}}, nil
}

func (p *partWriter) add(d *rundir.Dialog) error {
	if err := p.w.Add(d); err != nil {
		return err
	}
	p.info.Dialogs++
	p.info.Turns += int64(d.NumTurns())
	p.info.NextOrdinal = d.Ordinal.InputOrdinal + 1
	return nil
}

// commit puts the part's files in place and records it in the manifest.
func (p *partWriter) commit(m *manifest) error {
	if err := p.w.CommitData(); err != nil {
		return err
	}
	m.Parts = append(m.Parts, p.info)
	if err := saveManifest(p.dir, m, p.wrap); err != nil {
		m.Parts = slices.Delete(m.Parts, len(m.Parts)-1, len(m.Parts))
		return err
	}
	return nil
}

func (p *partWriter) abort() { p.w.Abort() }
