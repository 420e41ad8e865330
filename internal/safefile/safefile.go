package safefile

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// File is a file being written under a temporary name in its destination's
// directory. Nothing exists under the destination name until Commit. A File
// is not safe for concurrent use.
type File struct {
	f    *os.File
	path string
	done bool
}

// tempPrefix is the start of the temporary name of a file named base.
func tempPrefix(base string) string { return ".tmp-" + base + "-" }

// Create starts writing path. Call Commit to put the file in place, or
// Abort to discard it; Abort after Commit does nothing, so
// `defer f.Abort()` is the usual pattern.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(dir, tempPrefix(base)+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", path, err)
	}
	return &File{f: f, path: path}, nil
}

// Path returns the destination path.
func (f *File) Path() string { return f.path }

// Write writes to the temporary file.
func (f *File) Write(p []byte) (int, error) {
	if f.done {
		return 0, fmt.Errorf("writing %s: %w", f.path, os.ErrClosed)
	}
	n, err := f.f.Write(p)
	if err != nil {
		err = fmt.Errorf("writing %s: %w", f.path, err)
	}
	return n, err
}

// Commit fsyncs and closes the temporary file, renames it to the
// destination and fsyncs the directory. On failure the temporary file is
// removed and the destination is left as it was (or, should only the
// directory fsync fail, replaced but not known to be durable).
func (f *File) Commit() error {
	if f.done {
		return fmt.Errorf("committing %s: %w", f.path, os.ErrClosed)
	}
	f.done = true
	tmp := f.f.Name()
	err := f.f.Sync()
	if cerr := f.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, f.path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return SyncDir(filepath.Dir(f.path))
}

// Abort closes and removes the temporary file. It does nothing after
// Commit or a previous Abort.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.f.Close()
	os.Remove(f.f.Name())
}

// SyncDir fsyncs a directory, making the renames and removals in it
// durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}

// WriteFile writes data to path atomically (see the package documentation).
func WriteFile(path string, data []byte) error {
	return WriteWith(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteWith creates path atomically with the bytes write produces: the
// file is committed when write returns nil and discarded otherwise.
func WriteWith(path string, write func(w io.Writer) error) error {
	f, err := Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// RemoveStale deletes the temporary files that a process killed while
// writing dir/name left behind, for each name given.
func RemoveStale(dir string, names ...string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("removing temporary files: %w", err)
	}
	var errs []error
	for _, e := range entries {
		for _, n := range names {
			if strings.HasPrefix(e.Name(), tempPrefix(n)) {
				if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
					errs = append(errs, err)
				}
			}
		}
	}
	return errors.Join(errs...)
}

// SHA256 returns the lowercase hex sha256 of the file at path. Errors wrap
// the os error (errors.Is(err, fs.ErrNotExist) for a missing file).
func SHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
