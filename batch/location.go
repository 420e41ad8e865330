package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"gocloud.dev/blob"
)

var urlScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://`)

// location is a local path or a blob object/prefix.
type location struct {
	raw       string
	local     string // set for local paths and file:// URLs
	bucketURL string // for blob URLs: scheme://bucket?query
	key       string // object key or prefix (no leading slash)
}

func parseLocation(s string) (location, error) {
	if s == "" {
		return location{}, fmt.Errorf("%w: empty location", ErrUnreadableLocation)
	}
	if !IsURL(s) {
		return location{raw: s, local: s}, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return location{}, fmt.Errorf("%w: %q: %v", ErrUnreadableLocation, s, err)
	}
	if u.Scheme == "file" {
		p := u.Path
		if u.Host != "" && u.Host != "localhost" {
			p = u.Host + p
		}
		if p == "" {
			return location{}, fmt.Errorf("%w: %q: no path", ErrUnreadableLocation, s)
		}
		return location{raw: s, local: filepath.FromSlash(p)}, nil
	}
	bucket := u.Scheme + "://" + u.Host
	if u.RawQuery != "" {
		bucket += "?" + u.RawQuery
	}
	return location{raw: s, bucketURL: bucket, key: strings.TrimLeft(u.Path, "/")}, nil
}

// IsURL reports whether s names a location by URL (scheme://...) rather
// than by a local path. file:// URLs count: they go through the same
// parsing as blob URLs.
func IsURL(s string) bool { return urlScheme.MatchString(s) }

func (l location) remote() bool { return l.local == "" }

func (l location) openBucket(ctx context.Context, mux *blob.URLMux) (*blob.Bucket, error) {
	b, err := mux.OpenBucket(ctx, l.bucketURL)
	if err != nil {
		return nil, fmt.Errorf("%w: opening bucket of %s: %v", ErrUnreadableLocation, l.raw, err)
	}
	return b, nil
}

// download copies a blob object to a new file in dir, returning its path.
func download(ctx context.Context, mux *blob.URLMux, l location, dir string) (string, error) {
	b, err := l.openBucket(ctx, mux)
	if err != nil {
		return "", err
	}
	defer b.Close()
	r, err := b.NewReader(ctx, l.key, nil)
	if err != nil {
		return "", fmt.Errorf("%w: reading %s: %v", ErrUnreadableLocation, l.raw, err)
	}
	defer r.Close()
	f, err := os.CreateTemp(dir, "aem-download-*"+path.Ext(l.key))
	if err != nil {
		return "", fmt.Errorf("downloading %s: %w", l.raw, err)
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", fmt.Errorf("%w: downloading %s: %v", ErrUnreadableLocation, l.raw, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("downloading %s: %w", l.raw, err)
	}
	return f.Name(), nil
}

// upload copies local files to a blob prefix, in the order given. Each
// object becomes visible only when its upload completes; callers upload
// summary.json last.
func upload(ctx context.Context, mux *blob.URLMux, dst location, files []string) error {
	b, err := dst.openBucket(ctx, mux)
	if err != nil {
		return err
	}
	defer b.Close()
	for _, f := range files {
		if err := uploadOne(ctx, b, path.Join(dst.key, filepath.Base(f)), f); err != nil {
			return fmt.Errorf("%w: uploading %s to %s: %v", ErrUnreadableLocation, filepath.Base(f), dst.raw, err)
		}
	}
	return nil
}

func uploadOne(ctx context.Context, b *blob.Bucket, key, file string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := b.NewWriter(wctx, key, nil)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, f); err != nil {
		cancel() // abort: the object is not created
		w.Close()
		return err
	}
	return w.Close()
}

// deleteRemote removes objects (ignoring those that do not exist).
func deleteRemote(ctx context.Context, mux *blob.URLMux, dst location, names []string) error {
	b, err := dst.openBucket(ctx, mux)
	if err != nil {
		return err
	}
	defer b.Close()
	var errs []error
	for _, n := range names {
		key := path.Join(dst.key, n)
		if ok, err := b.Exists(ctx, key); err == nil && ok {
			if err := b.Delete(ctx, key); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// stagingDir is the local directory standing for a remote output location;
// it is stable per URL so that a resumed run finds its checkpoint.
func stagingDir(workDir string, l location) string {
	h := sha256.Sum256([]byte(l.raw))
	return filepath.Join(workDir, "aem-stage-"+hex.EncodeToString(h[:8]))
}

// fetchDir makes the files of a run directory available locally: a local
// directory is used as is; for a blob prefix the named files that exist are
// downloaded to a new temporary directory, removed by cleanup.
func fetchDir(ctx context.Context, mux *blob.URLMux, l location, workDir string, names []string) (dir string, cleanup func(), err error) {
	if !l.remote() {
		return l.local, func() {}, nil
	}
	tmp, err := os.MkdirTemp(workDir, "aem-fetch-*")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	b, err := l.openBucket(ctx, mux)
	if err != nil {
		cleanup()
		return "", nil, err
	}
	defer b.Close()
	for _, n := range names {
		key := path.Join(l.key, n)
		ok, err := b.Exists(ctx, key)
		if err != nil {
			cleanup()
			return "", nil, fmt.Errorf("%w: %s/%s: %v", ErrUnreadableLocation, l.raw, n, err)
		}
		if !ok {
			continue
		}
		f, err := os.Create(filepath.Join(tmp, n))
		if err != nil {
			cleanup()
			return "", nil, err
		}
		err = b.Download(ctx, key, f, nil)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			cleanup()
			return "", nil, fmt.Errorf("%w: downloading %s/%s: %v", ErrUnreadableLocation, l.raw, n, err)
		}
	}
	return tmp, cleanup, nil
}
