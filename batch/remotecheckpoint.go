package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"gocloud.dev/blob"

	"github.com/aem-dev/aem/internal/location"
	"github.com/aem-dev/aem/rundir"
)

// remoteCheckpoint is the copy of a run's checkpoint in the object store
// that will hold its output, under OUT/.aem-run/: so that a shard whose
// machine is gone (a rescheduled pod, whose --work-dir went with it)
// resumes on another with --resume. After each part is committed locally
// its three files are uploaded, then manifest.json, so the manifest in the
// store, as the local one, lists only parts that are there in full. Once
// the run is published, the copy is deleted.
type remoteCheckpoint struct {
	mux *blob.URLMux
	loc location.Location // OUT/.aem-run
	// pushed is how many parts of the local manifest the store holds.
	pushed int
}

// newRemoteCheckpoint returns the store's copy for the remote output out,
// or nil for a local one.
func newRemoteCheckpoint(mux *blob.URLMux, out location.Location) *remoteCheckpoint {
	if !out.Remote() {
		return nil
	}
	return &remoteCheckpoint{mux: mux, loc: out.Join(rundir.CheckpointDir)}
}

// readManifest reads the store's manifest; ok is false when there is none.
func (rc *remoteCheckpoint) readManifest(ctx context.Context, workDir string) (m *manifest, ok bool, err error) {
	dir, cleanup, err := location.FetchDir(ctx, rc.mux, rc.loc, workDir, []string{manifestName})
	if err != nil {
		return nil, false, fmt.Errorf("reading the checkpoint in %s: %w", rc.loc.Raw, err)
	}
	defer cleanup()
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if errors.Is(err, os.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	m = new(manifest)
	if err := json.Unmarshal(data, m); err != nil {
		return nil, true, fmt.Errorf("%w: %s/%s: %w", ErrCorruptCheckpoint, rc.loc.Raw, manifestName, err)
	}
	return m, true, nil
}

// settle reconciles the store's copy with the local checkpoint in
// ckptDir before the run starts. With no local checkpoint, the store's
// (when there is one) is downloaded into ckptDir if resume is set, and is
// ErrCheckpointExists otherwise. With a local one, it counts the parts
// the store already holds.
func (rc *remoteCheckpoint) settle(ctx context.Context, ckptDir, workDir, out string, resume bool) error {
	remote, found, err := rc.readManifest(ctx, workDir)
	if err != nil || !found {
		return err
	}
	local, localFound, err := loadManifest(ckptDir)
	if err != nil {
		return err
	}
	if localFound {
		if compareFingerprints(remote.Fingerprint, local.Fingerprint) == nil {
			rc.pushed = commonParts(local, remote)
		}
		return nil
	}
	if !resume {
		return fmt.Errorf("%w in %s (its checkpoint is in %s): pass --resume to continue it, or delete %s to start over",
			ErrCheckpointExists, out, rc.loc.Raw, rc.loc.Raw)
	}
	if err := os.MkdirAll(ckptDir, 0o755); err != nil {
		return fmt.Errorf("creating checkpoint: %w", err)
	}
	var names []string
	for _, p := range remote.Parts {
		t, d, i := partFiles("", p.Name)
		names = append(names, t, d, i)
	}
	if err := location.Fetch(ctx, rc.mux, rc.loc, ckptDir, append(names, manifestName)); err != nil {
		os.RemoveAll(ckptDir)
		return fmt.Errorf("downloading the checkpoint in %s: %w", rc.loc.Raw, err)
	}
	rc.pushed = len(remote.Parts)
	return nil
}

// commonParts is how many leading parts two manifests share.
func commonParts(a, b *manifest) int {
	n := 0
	for n < len(a.Parts) && n < len(b.Parts) && a.Parts[n] == b.Parts[n] {
		n++
	}
	return n
}

// push uploads the parts of m the store lacks, then m's manifest file.
func (rc *remoteCheckpoint) push(ctx context.Context, ckptDir string, m *manifest) error {
	var files []string
	for _, p := range m.Parts[rc.pushed:] {
		t, d, i := partFiles(ckptDir, p.Name)
		files = append(files, t, d, i)
	}
	files = append(files, filepath.Join(ckptDir, manifestName))
	if err := location.Upload(ctx, rc.mux, rc.loc, files); err != nil {
		return fmt.Errorf("copying the checkpoint to %s: %w", rc.loc.Raw, err)
	}
	rc.pushed = len(m.Parts)
	return nil
}

// remove deletes the store's copy.
func (rc *remoteCheckpoint) remove(ctx context.Context) error {
	if err := location.DeleteAll(ctx, rc.mux, rc.loc); err != nil {
		return fmt.Errorf("deleting the checkpoint copy %s of the published run: %w", rc.loc.Raw, err)
	}
	return nil
}
