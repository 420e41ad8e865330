package batch

import (
	"context"
	"errors"
	"io"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
)

// sharedDriver exposes one *blob.Bucket (an in-memory memblob bucket in
// the tests) as a driver whose Close does not close it, so that every URL
// opened through a test URLMux sees the same objects.
type sharedDriver struct{ b *blob.Bucket }

func (d sharedDriver) ErrorCode(err error) gcerrors.ErrorCode { return gcerrors.Code(err) }
func (d sharedDriver) As(any) bool                            { return false }
func (d sharedDriver) ErrorAs(error, any) bool                { return false }
func (d sharedDriver) Close() error                           { return nil }

func (d sharedDriver) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	a, err := d.b.Attributes(ctx, key)
	if err != nil {
		return nil, err
	}
	return &driver.Attributes{Size: a.Size, ModTime: a.ModTime, ContentType: a.ContentType, MD5: a.MD5, ETag: a.ETag}, nil
}

func (d sharedDriver) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
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

func (d sharedDriver) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (driver.Reader, error) {
	r, err := d.b.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, err
	}
	return sharedReader{r}, nil
}

func (d sharedDriver) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (driver.Writer, error) {
	return d.b.NewWriter(ctx, key, &blob.WriterOptions{ContentType: contentType})
}

func (d sharedDriver) Copy(ctx context.Context, dst, src string, opts *driver.CopyOptions) error {
	return d.b.Copy(ctx, dst, src, nil)
}

func (d sharedDriver) Delete(ctx context.Context, key string, opts *driver.DeleteOptions) error {
	return d.b.Delete(ctx, key)
}

func (d sharedDriver) SignedURL(ctx context.Context, key string, opts *driver.SignedURLOptions) (string, error) {
	return "", errors.New("signed URLs: not supported by the test driver")
}

type sharedReader struct{ r *blob.Reader }

func (r sharedReader) Read(p []byte) (int, error) { return r.r.Read(p) }
func (r sharedReader) Close() error               { return r.r.Close() }
func (r sharedReader) As(any) bool                { return false }
func (r sharedReader) Attributes() *driver.ReaderAttributes {
	return &driver.ReaderAttributes{Size: r.r.Size(), ModTime: r.r.ModTime(), ContentType: r.r.ContentType()}
}

var _ io.ReadCloser = sharedReader{}
