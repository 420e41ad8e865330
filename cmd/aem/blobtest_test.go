package main

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/blob/fileblob"

	"github.com/aem-dev/aem/internal/blobtest"
)

// The test binary, run as `aem` by the scripts and exit-status tests,
// knows one more object store: slowfile://BUCKET/KEY stores objects under
// $AEM_TEST_BLOB_ROOT/BUCKET (fileblob). When $AEM_TEST_BLOCK_UPLOAD names
// a file, every upload creates that file and then blocks until it is
// cancelled, so a test can interrupt aem while it uploads.
const slowScheme = "slowfile"

func registerTestBuckets() {
	blob.DefaultURLMux().RegisterBucket(slowScheme, slowOpener{})
}

type slowOpener struct{}

func (slowOpener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	root := os.Getenv("AEM_TEST_BLOB_ROOT")
	if root == "" {
		return nil, errors.New("slowfile: AEM_TEST_BLOB_ROOT is not set")
	}
	b, err := fileblob.OpenBucket(filepath.Join(root, u.Host), &fileblob.Options{CreateDir: true, NoTempDir: true})
	if err != nil {
		return nil, err
	}
	return blob.NewBucket(slowDriver{Driver: blobtest.Driver{B: b}, block: os.Getenv("AEM_TEST_BLOCK_UPLOAD")}), nil
}

// slowDriver passes everything to a fileblob bucket, but blocks uploads
// when block names a marker file, and reads nothing.
type slowDriver struct {
	blobtest.Driver
	block string
}

func (d slowDriver) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (driver.Reader, error) {
	return nil, errors.New("slowfile: reading is not supported")
}

func (d slowDriver) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (driver.Writer, error) {
	if d.block != "" {
		return blockingWriter{ctx: ctx, mark: d.block}, nil
	}
	return d.Driver.NewTypedWriter(ctx, key, contentType, opts)
}

// blockingWriter announces an upload in mark, then waits for cancellation.
type blockingWriter struct {
	ctx  context.Context
	mark string
}

func (w blockingWriter) Write(p []byte) (int, error) {
	if err := os.WriteFile(w.mark, nil, 0o644); err != nil {
		return 0, err
	}
	<-w.ctx.Done()
	return 0, w.ctx.Err()
}

func (w blockingWriter) Close() error {
	_, err := w.Write(nil)
	return err
}
