package blobtest

import (
	"context"
	"errors"
	"io"

	"gocloud.dev/blob"
	"gocloud.dev/blob/driver"
	"gocloud.dev/gcerrors"
)

// Driver passes every call to B. With KeepOpen, Close leaves B open, so
// that buckets opened one after another share its objects.
type Driver struct {
	B        *blob.Bucket
	KeepOpen bool
}

var _ driver.Bucket = Driver{}

// ErrorCode implements driver.Bucket.
func (d Driver) ErrorCode(err error) gcerrors.ErrorCode { return gcerrors.Code(err) }

// As implements driver.Bucket.
func (d Driver) As(any) bool { return false }

// ErrorAs implements driver.Bucket.
func (d Driver) ErrorAs(error, any) bool { return false }

// Close implements driver.Bucket.
func (d Driver) Close() error {
	if d.KeepOpen {
		return nil
	}
	return d.B.Close()
}

// Attributes implements driver.Bucket.
func (d Driver) Attributes(ctx context.Context, key string) (*driver.Attributes, error) {
	a, err := d.B.Attributes(ctx, key)
	if err != nil {
		return nil, err
	}
	return &driver.Attributes{Size: a.Size, ModTime: a.ModTime, ContentType: a.ContentType, MD5: a.MD5, ETag: a.ETag}, nil
}

// ListPaged implements driver.Bucket.
func (d Driver) ListPaged(ctx context.Context, opts *driver.ListOptions) (*driver.ListPage, error) {
	token := opts.PageToken
	if len(token) == 0 {
		token = blob.FirstPageToken
	}
	objs, next, err := d.B.ListPage(ctx, token, max(opts.PageSize, 1000), &blob.ListOptions{Prefix: opts.Prefix, Delimiter: opts.Delimiter})
	if err != nil && err != io.EOF {
		return nil, err
	}
	page := &driver.ListPage{NextPageToken: next}
	for _, o := range objs {
		page.Objects = append(page.Objects, &driver.ListObject{Key: o.Key, ModTime: o.ModTime, Size: o.Size, MD5: o.MD5, IsDir: o.IsDir})
	}
	return page, nil
}

// NewRangeReader implements driver.Bucket.
func (d Driver) NewRangeReader(ctx context.Context, key string, offset, length int64, opts *driver.ReaderOptions) (driver.Reader, error) {
	r, err := d.B.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, err
	}
	return reader{r}, nil
}

// NewTypedWriter implements driver.Bucket.
func (d Driver) NewTypedWriter(ctx context.Context, key, contentType string, opts *driver.WriterOptions) (driver.Writer, error) {
	return d.B.NewWriter(ctx, key, &blob.WriterOptions{ContentType: contentType})
}

// Copy implements driver.Bucket.
func (d Driver) Copy(ctx context.Context, dst, src string, opts *driver.CopyOptions) error {
	return d.B.Copy(ctx, dst, src, nil)
}

// Delete implements driver.Bucket.
func (d Driver) Delete(ctx context.Context, key string, opts *driver.DeleteOptions) error {
	return d.B.Delete(ctx, key)
}

// SignedURL implements driver.Bucket.
func (d Driver) SignedURL(ctx context.Context, key string, opts *driver.SignedURLOptions) (string, error) {
	return "", errors.New("blobtest: signed URLs are not supported")
}

type reader struct{ r *blob.Reader }

func (r reader) Read(p []byte) (int, error) { return r.r.Read(p) }
func (r reader) Close() error               { return r.r.Close() }
func (r reader) As(any) bool                { return false }
func (r reader) Attributes() *driver.ReaderAttributes {
	return &driver.ReaderAttributes{Size: r.r.Size(), ModTime: r.r.ModTime(), ContentType: r.r.ContentType()}
}
