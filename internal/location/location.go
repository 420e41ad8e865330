package location

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
	"gocloud.dev/gcerrors"
)

var urlScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*://`)

// ErrUnreadable is returned when a location cannot be parsed, opened or
// read (a bad URL, an unknown scheme, a failed download or upload).
var ErrUnreadable = errors.New("cannot access location")

// Location is a local path or a blob object/prefix.
type Location struct {
	Raw       string // as given
	Local     string // set for local paths and file:// URLs
	BucketURL string // for blob URLs: scheme://bucket?query
	Key       string // object key or prefix (no leading slash)
}

// Parse parses a local path or a URL. file:// URLs become local paths.
func Parse(s string) (Location, error) {
	if s == "" {
		return Location{}, fmt.Errorf("%w: empty location", ErrUnreadable)
	}
	if !IsURL(s) {
		return Location{Raw: s, Local: s}, nil
	}
	u, err := url.Parse(s)
	if err != nil {
		return Location{}, fmt.Errorf("%w: %q: %w", ErrUnreadable, s, err)
	}
	if u.Scheme == "file" {
		p := u.Path
		if u.Host != "" && u.Host != "localhost" {
			p = u.Host + p
		}
		if p == "" {
			return Location{}, fmt.Errorf("%w: %q: no path", ErrUnreadable, s)
		}
		return Location{Raw: s, Local: filepath.FromSlash(p)}, nil
	}
	bucket := u.Scheme + "://" + u.Host
	if u.RawQuery != "" {
		bucket += "?" + u.RawQuery
	}
	return Location{Raw: s, BucketURL: bucket, Key: strings.TrimLeft(u.Path, "/")}, nil
}

// IsURL reports whether s names a location by URL (scheme://...) rather
// than by a local path. file:// URLs count: they go through the same
// parsing as blob URLs.
func IsURL(s string) bool { return urlScheme.MatchString(s) }

// Remote reports whether l is a blob location (not a local path).
func (l Location) Remote() bool { return l.Local == "" }

// OpenBucket opens l's bucket through mux.
func (l Location) OpenBucket(ctx context.Context, mux *blob.URLMux) (*blob.Bucket, error) {
	b, err := mux.OpenBucket(ctx, l.BucketURL)
	if err != nil {
		return nil, fmt.Errorf("%w: opening bucket of %s: %w", ErrUnreadable, l.Raw, err)
	}
	return b, nil
}

// Download copies a blob object to a new file in dir, returning its path.
func Download(ctx context.Context, mux *blob.URLMux, l Location, dir string) (string, error) {
	b, err := l.OpenBucket(ctx, mux)
	if err != nil {
		return "", err
	}
	defer b.Close()
	r, err := b.NewReader(ctx, l.Key, nil)
	if err != nil {
		return "", fmt.Errorf("%w: reading %s: %w", ErrUnreadable, l.Raw, err)
	}
	defer r.Close()
	f, err := os.CreateTemp(dir, "aem-download-*"+path.Ext(l.Key))
	if err != nil {
		return "", fmt.Errorf("downloading %s: %w", l.Raw, err)
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		os.Remove(f.Name())
		if gcerrors.Code(err) == gcerrors.NotFound {
			return "", fmt.Errorf("%w: %s (it was replaced or deleted while being read): %w", ErrChanged, l.Raw, err)
		}
		return "", fmt.Errorf("%w: downloading %s: %w", ErrUnreadable, l.Raw, err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("downloading %s: %w", l.Raw, err)
	}
	return f.Name(), nil
}

// Upload copies local files to a blob prefix, in the order given. Each
// object becomes visible only when its upload completes; callers upload
// summary.json last.
func Upload(ctx context.Context, mux *blob.URLMux, dst Location, files []string) error {
	for _, f := range files {
		// A bucket for each file: a gs:// bucket counts the retries of its
		// uploads together (see GCSOpener), so each upload has them all.
		b, err := dst.OpenBucket(ctx, mux)
		if err != nil {
			return err
		}
		err = uploadOne(ctx, b, path.Join(dst.Key, filepath.Base(f)), f)
		b.Close()
		if err != nil {
			return fmt.Errorf("%w: uploading %s to %s: %w", ErrUnreadable, filepath.Base(f), dst.Raw, redactedError{err})
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

// Delete removes objects (ignoring those that do not exist).
func Delete(ctx context.Context, mux *blob.URLMux, dst Location, names []string) error {
	b, err := dst.OpenBucket(ctx, mux)
	if err != nil {
		return err
	}
	defer b.Close()
	var errs []error
	for _, n := range names {
		key := path.Join(dst.Key, n)
		if ok, err := b.Exists(ctx, key); err == nil && ok {
			if err := b.Delete(ctx, key); err != nil {
				errs = append(errs, err)
			}
		}
	}
	return errors.Join(errs...)
}

// StagingDir is the local directory standing for a remote output location;
// it is stable per URL so that a resumed run finds its checkpoint.
func StagingDir(workDir string, l Location) string {
	h := sha256.Sum256([]byte(l.Raw))
	return filepath.Join(workDir, "aem-stage-"+hex.EncodeToString(h[:8]))
}

// FetchDir makes the files of a run directory available locally: a local
// directory is used as is; for a blob prefix the named files that exist are
// downloaded to a new temporary directory, removed by cleanup.
//
// The first of names is the directory's commit marker, which its writer
// uploads last (as Publish does with summary.json): it is downloaded
// first and looked at again after the others, and if it changed or
// vanished meanwhile the directory was rewritten while it was being read,
// which is ErrChanged rather than a mix of two versions.
func FetchDir(ctx context.Context, mux *blob.URLMux, l Location, workDir string, names []string) (dir string, cleanup func(), err error) {
	if !l.Remote() {
		return l.Local, func() {}, nil
	}
	tmp, err := os.MkdirTemp(workDir, "aem-fetch-*")
	if err != nil {
		return "", nil, err
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if err := fetch(ctx, mux, l, tmp, names, false); err != nil {
		cleanup()
		return "", nil, err
	}
	return tmp, cleanup, nil
}

// Fetch downloads the named objects under the prefix l into the existing
// directory dir; each must exist.
func Fetch(ctx context.Context, mux *blob.URLMux, l Location, dir string, names []string) error {
	return fetch(ctx, mux, l, dir, names, true)
}

func fetch(ctx context.Context, mux *blob.URLMux, l Location, dir string, names []string, required bool) error {
	b, err := l.OpenBucket(ctx, mux)
	if err != nil {
		return err
	}
	defer b.Close()
	var marker *blob.Attributes
	for i, n := range names {
		key := path.Join(l.Key, n)
		a, err := b.Attributes(ctx, key)
		if gcerrors.Code(err) == gcerrors.NotFound && !required {
			continue
		}
		if err != nil {
			return fmt.Errorf("%w: %s/%s: %w", ErrUnreadable, l.Raw, n, err)
		}
		if i == 0 {
			marker = a
		}
		if err := downloadTo(ctx, b, key, filepath.Join(dir, n)); err != nil {
			if gcerrors.Code(err) == gcerrors.NotFound { // it was there a moment ago
				return fmt.Errorf("%w: %s/%s (it was replaced or deleted while being read): %w", ErrChanged, l.Raw, n, err)
			}
			return fmt.Errorf("%w: downloading %s/%s: %w", ErrUnreadable, l.Raw, n, err)
		}
	}
	if marker != nil && len(names) > 1 {
		a, err := b.Attributes(ctx, path.Join(l.Key, names[0]))
		if gcerrors.Code(err) == gcerrors.NotFound || err == nil && !sameVersion(marker, a) {
			return fmt.Errorf("%w: %s (its %s changed meanwhile: a writer replaced the directory); try again once the writer is done", ErrChanged, l.Raw, names[0])
		}
		if err != nil {
			return fmt.Errorf("%w: %s/%s: %w", ErrUnreadable, l.Raw, names[0], err)
		}
	}
	return nil
}

// sameVersion reports whether two looks at an object saw the same version.
func sameVersion(a, b *blob.Attributes) bool {
	if a.ETag != "" || b.ETag != "" {
		return a.ETag == b.ETag
	}
	return a.Size == b.Size && a.ModTime.Equal(b.ModTime)
}

// downloadTo copies the object key to the new file name.
func downloadTo(ctx context.Context, b *blob.Bucket, key, name string) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	err = b.Download(ctx, key, f, nil)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

// DeleteAll removes every object under the prefix dst (dst.Key + "/").
func DeleteAll(ctx context.Context, mux *blob.URLMux, dst Location) error {
	b, err := dst.OpenBucket(ctx, mux)
	if err != nil {
		return err
	}
	defer b.Close()
	it := b.List(&blob.ListOptions{Prefix: strings.TrimSuffix(dst.Key, "/") + "/"})
	for {
		o, err := it.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: listing %s: %w", ErrUnreadable, dst.Raw, err)
		}
		if err := b.Delete(ctx, o.Key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
			return fmt.Errorf("%w: deleting %s: %w", ErrUnreadable, o.Key, err)
		}
	}
}

// Join is the location of name under the prefix l.
func (l Location) Join(name string) Location {
	if !l.Remote() {
		return Location{Raw: filepath.Join(l.Raw, name), Local: filepath.Join(l.Local, name)}
	}
	raw := l.Raw
	if u, err := url.Parse(l.Raw); err == nil {
		u.Path = path.Join(u.Path, name)
		raw = u.String()
	}
	return Location{Raw: raw, BucketURL: l.BucketURL, Key: path.Join(l.Key, name)}
}
