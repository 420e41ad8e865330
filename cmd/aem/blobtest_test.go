package main

import (
	"context"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/gcerrors"
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
	return blob.NewBucket(slowDriver{b: b, block: os.Getenv("AEM_TEST_BLOCK_UPLOAD")}), nil
}

// slowDriver passes everything to a fileblob bucket, but blocks uploads
// when block names a marker file.
type slowDriver struct {
	b     *blob.Bucket
	block string
}

func (d slowDriver) ErrorCode(err error) gcerrors.ErrorCode { return gcerrors.Code(err) }
func (d slowDriver) As(any) bool                            { return false }
func (d slowDriver) ErrorAs(error, any) bool                { return false }
func (d slowDriver) Close() error                           { return d.b.Close() }

func (d slowDriver) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	a, err := d.b.Attributes(ctx, key)
	if err != nil {
		return nil, err
	}
	return &driver.Attributes{Size: a.Size, ModTime: a.ModTime, ContentType: a.ContentType, MD5: a.MD5, ETag: a.ETag}, nil
}

func (d slowDriver) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	token := opts.PageToken
	if len(token) == 0 {
		token = blob.FirstPageToken
	}
	objs, next, err := d.b.ListPage(ctx, token, max(opts.PageSize, 1000), &blob.ListOptions{Prefix: opts.Prefix, Delimiter: opts.Delimiter})
	if err != nil && err != io.EOF {
		return nil, err
	}
	page := &driver.ListPage{NextPageToken: next}
	for _, o := range objs {
		page.Objects = append(page.Objects, &driver.ListObject{Key: o.Key, ModTime: o.ModTime, Size: o.Size, MD5: o.MD5, IsDir: o.IsDir})
	}
	return page, nil
}

func (d slowDriver) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (driver.Reader, error) {
	return nil, errors.New("slowfile: reading is not supported")
}

func (d slowDriver) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (driver.Writer, error) {
	if d.block != "" {
		return blockingWriter{ctx: ctx, mark: d.block}, nil
	}
	return d.b.NewWriter(ctx, key, &blob.WriterOptions{ContentType: contentType})
}

func (d slowDriver) Copy(ctx context.Context, dst, src string, opts *driver.CopyOptions) error {
	return d.b.Copy(ctx, dst, src, nil)
}

func (d slowDriver) Delete(ctx context.Context, key string, opts *driver.DeleteOptions) error {
	return d.b.Delete(ctx, key)
}

func (d slowDriver) SignedURL(ctx context.Context, key string, opts *driver.SignedURLOptions) (string, error) {
	return "", errors.New("slowfile: signed URLs are not supported")
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
