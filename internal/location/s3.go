package location

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"reflect"
	"strconv"
	"syscall"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go/logging"
	"github.com/aws/smithy-go/middleware"
	gcaws "gocloud.dev/aws"
	"gocloud.dev/blob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/blob/s3blob"
)

// DefaultMaxAttempts is how many times a request to an object store is
// tried, the first included, unless MuxOptions (or, for S3,
// AWS_MAX_ATTEMPTS) say otherwise.
const DefaultMaxAttempts = 5

// DefaultMaxBackoff caps the wait before a retry.
const DefaultMaxBackoff = 20 * time.Second

// ErrChanged is returned when an object changed while it was being read:
// its bytes would be a mix of two versions.
var ErrChanged = errors.New("changed while being read")

// MuxOptions configures NewURLMux; the zero value is aem's policy.
type MuxOptions struct {
	// Log receives one line per retried request and per resumed read
	// (nil: they are not reported).
	Log func(msg string)
	// MaxAttempts of one request, the first included (0: for S3,
	// AWS_MAX_ATTEMPTS when set; else DefaultMaxAttempts). A GCS upload
	// has MaxAttempts-1 retries in all, its chunks together.
	MaxAttempts int
	// MaxBackoff caps the jittered exponential wait between attempts (0:
	// DefaultMaxBackoff).
	MaxBackoff time.Duration
}

// NewURLMux returns the object stores aem opens: s3:// through
// [S3Opener] and gs:// through [GCSOpener], with opts; every other scheme
// of blob.DefaultURLMux() (file://, mem://, and any a test registered) as
// gocloud opens it.
func NewURLMux(opts MuxOptions) *blob.URLMux {
	def := blob.DefaultURLMux()
	mux := new(blob.URLMux)
	for _, scheme := range def.BucketSchemes() {
		if scheme != s3blob.Scheme && scheme != gcsblob.Scheme {
			mux.RegisterBucket(scheme, def)
		}
	}
	mux.RegisterBucket(s3blob.Scheme, &S3Opener{Options: opts})
	mux.RegisterBucket(gcsblob.Scheme, &GCSOpener{Options: opts})
	return mux
}

// S3Opener opens s3://BUCKET URLs with the URL parameters and the AWS
// environment gocloud's s3blob takes (endpoint, region, use_path_style,
// ...; AWS_ENDPOINT_URL_S3, AWS_ACCESS_KEY_ID, AWS_PROFILE, ...), adding
// what a long batch job needs from a network store:
//
//   - A request that fails in a way worth retrying (a reset connection, a
//     500, a 503 SlowDown, a throttle, a timeout) is tried again after a
//     jittered exponential backoff, up to MaxAttempts, and each retry is
//     logged with the operation, the object and the error.
//   - A download cut short (a reset or closed connection mid-body) resumes
//     where it stopped with a ranged GET of the same version of the object
//     (If-Match on the ETag of the first response), logged; if the object
//     changed meanwhile the read fails with ErrChanged instead of mixing
//     two versions.
//
// Uploads go through S3's own atomic PUT or multipart upload (gocloud's
// transfer manager), so an object appears under its name only complete.
type S3Opener struct {
	Options MuxOptions
}

// s3blobParams are s3blob's own URL parameters (the rest are gocloud's
// AWS parameters).
var s3blobParams = []string{"ssetype", "kmskeyid", "accelerate", "use_path_style", "s3ForcePathStyle", "disable_https"}

// OpenBucketURL implements blob.BucketURLOpener.
func (o *S3Opener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	q := u.Query()
	var bo s3blob.Options
	var clientOpts []func(*s3.Options)
	for _, key := range s3blobParams {
		v := q.Get(key)
		q.Del(key)
		if v == "" {
			continue
		}
		switch key {
		case "ssetype":
			bo.EncryptionType = types.ServerSideEncryption(v)
		case "kmskeyid":
			bo.KMSEncryptionID = v
		default:
			on, err := strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("s3 URL parameter %s=%q: %w", key, v, err)
			}
			clientOpts = append(clientOpts, func(so *s3.Options) {
				switch key {
				case "accelerate":
					so.UseAccelerate = on
				case "disable_https":
					so.EndpointOptions.DisableHTTPS = on
				default:
					so.UsePathStyle = on
				}
			})
		}
	}
	cfg, err := gcaws.V2ConfigFromURLParams(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("open bucket %s: %w", u.Host, err)
	}
	// The SDK's own log (to stderr by default) would say, for every ranged
	// GET, that it has no checksum to validate: aem logs what matters.
	cfg.Logger = logging.Nop{}
	maxAttempts := o.Options.MaxAttempts
	if maxAttempts == 0 {
		maxAttempts = cfg.RetryMaxAttempts // AWS_MAX_ATTEMPTS
	}
	if maxAttempts == 0 {
		maxAttempts = DefaultMaxAttempts
	}
	maxBackoff := o.Options.MaxBackoff
	if maxBackoff == 0 {
		maxBackoff = DefaultMaxBackoff
	}
	base := cfg.Retryer
	cfg.RetryMaxAttempts = 0 // applied here, not again by the client
	cfg.Retryer = func() aws.Retryer {
		r := retry.AddWithMaxBackoffDelay(retry.AddWithMaxAttempts(base(), maxAttempts), maxBackoff)
		return loggedRetryer{RetryerV2: r.(aws.RetryerV2), log: o.Options.Log}
	}
	var client *s3.Client
	rs := &resumer{opts: o.Options, maxBackoff: maxBackoff, maxAttempts: maxAttempts, get: func(ctx context.Context, in *s3.GetObjectInput) (*s3.GetObjectOutput, error) {
		return client.GetObject(ctx, in)
	}}
	clientOpts = append(clientOpts, func(so *s3.Options) {
		so.APIOptions = append(so.APIOptions, addTarget, rs.addMiddleware)
	})
	client = s3.NewFromConfig(cfg, clientOpts...)
	bo.RequestChecksumCalculation = cfg.RequestChecksumCalculation
	return s3blob.OpenBucket(ctx, client, u.Host, &bo)
}

// target is what a request is about, for the log: s3://bucket/key.
type targetKey struct{}

// addTarget records the bucket and key of each request in its context.
func addTarget(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("aemTarget",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			return next.HandleInitialize(context.WithValue(ctx, targetKey{}, objectURL(in.Parameters)), in)
		}), middleware.After)
}

// objectURL is s3://Bucket/Key of an operation's input (its Bucket and Key
// fields, which every S3 object operation has).
func objectURL(params any) string {
	v := reflect.ValueOf(params)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return ""
	}
	field := func(name string) string {
		if f := v.Elem().FieldByName(name); f.IsValid() {
			if s, ok := f.Interface().(*string); ok && s != nil {
				return *s
			}
		}
		return ""
	}
	u := "s3://" + field("Bucket")
	if k := field("Key"); k != "" {
		u += "/" + k
	}
	return u
}

// loggedRetryer logs every retry it grants.
type loggedRetryer struct {
	aws.RetryerV2
	log func(string)
}

// GetRetryToken is asked once before each retry, with the request's
// context and the error of the attempt that failed.
func (r loggedRetryer) GetRetryToken(ctx context.Context, opErr error) (func(error) error, error) {
	release, err := r.RetryerV2.GetRetryToken(ctx, opErr)
	if err == nil && r.log != nil {
		target, _ := ctx.Value(targetKey{}).(string)
		r.log(fmt.Sprintf("object store: %s %s failed, retrying (at most %d attempts): %v",
			awsmiddleware.GetOperationName(ctx), target, r.MaxAttempts(), opErr))
	}
	return release, err
}

// noResume marks the GETs a resumer makes itself.
type noResume struct{}

// resumer makes the body of every GetObject resumable.
type resumer struct {
	opts        MuxOptions
	maxAttempts int
	maxBackoff  time.Duration
	get         func(context.Context, *s3.GetObjectInput) (*s3.GetObjectOutput, error)
}

func (rs *resumer) addMiddleware(stack *middleware.Stack) error {
	return stack.Initialize.Add(middleware.InitializeMiddlewareFunc("aemResumableGet",
		func(ctx context.Context, in middleware.InitializeInput, next middleware.InitializeHandler) (middleware.InitializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleInitialize(ctx, in)
			input, ok := in.Parameters.(*s3.GetObjectInput)
			if err != nil || !ok || ctx.Value(noResume{}) != nil {
				return out, md, err
			}
			if res, ok := out.Result.(*s3.GetObjectOutput); ok && res.Body != nil && aws.ToString(res.ETag) != "" {
				start, end, ok := parseRange(aws.ToString(input.Range))
				if ok {
					res.Body = &resumableBody{rs: rs, ctx: ctx, in: *input, etag: aws.ToString(res.ETag), body: res.Body, next: start, end: end}
				}
			}
			return out, md, err
		}), middleware.After)
}

// parseRange reads the Range header gocloud sends: "" (all), "bytes=A-" or
// "bytes=A-B"; end < 0 means to the end.
func parseRange(h string) (start, end int64, ok bool) {
	if h == "" {
		return 0, -1, true
	}
	var a, b int64
	if n, _ := fmt.Sscanf(h, "bytes=%d-%d", &a, &b); n == 2 {
		return a, b, true
	}
	if n, _ := fmt.Sscanf(h, "bytes=%d-", &a); n == 1 {
		return a, -1, true
	}
	return 0, 0, false
}

// resumableBody reads an object's body, and after a broken connection
// asks for the rest of the same version.
type resumableBody struct {
	rs      *resumer
	ctx     context.Context
	in      s3.GetObjectInput
	etag    string
	body    io.ReadCloser
	next    int64 // offset in the object of the next byte to read
	end     int64 // last offset wanted (< 0: to the end)
	resumes int
}

func (b *resumableBody) Read(p []byte) (int, error) {
	for {
		n, err := b.body.Read(p)
		b.next += int64(n)
		if err == nil || err == io.EOF || !brokenConnection(err) || b.ctx.Err() != nil {
			return n, err
		}
		if rerr := b.resume(err); rerr != nil {
			return n, rerr
		}
		if n > 0 {
			return n, nil
		}
	}
}

// resume replaces the broken body by a GET of the rest, from the same
// version of the object.
func (b *resumableBody) resume(cause error) error {
	b.body.Close()
	target := "s3://" + aws.ToString(b.in.Bucket) + "/" + aws.ToString(b.in.Key)
	for {
		b.resumes++
		if b.resumes >= b.rs.maxAttempts {
			return fmt.Errorf("reading %s: the connection broke %d times, last: %w", target, b.resumes, cause)
		}
		if log := b.rs.opts.Log; log != nil {
			log(fmt.Sprintf("object store: reading %s broke at byte %d (%v), resuming there (attempt %d of at most %d)",
				target, b.next, cause, b.resumes+1, b.rs.maxAttempts))
		}
		if err := sleep(b.ctx, backoff(b.resumes, b.rs.maxBackoff)); err != nil {
			return err
		}
		in := b.in
		in.IfMatch = aws.String(b.etag)
		in.Range = aws.String(fmt.Sprintf("bytes=%d-", b.next))
		if b.end >= 0 {
			in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", b.next, b.end))
		}
		out, err := b.rs.get(context.WithValue(b.ctx, noResume{}, true), &in)
		if err == nil {
			b.body = out.Body
			return nil
		}
		var api interface{ ErrorCode() string }
		if errors.As(err, &api) && api.ErrorCode() == "PreconditionFailed" {
			return fmt.Errorf("%w: %s (it is no longer the version with ETag %s)", ErrChanged, target, b.etag)
		}
		if !brokenConnection(err) {
			return fmt.Errorf("reading %s from byte %d: %w", target, b.next, err)
		}
		cause = err
	}
}

func (b *resumableBody) Close() error { return b.body.Close() }

// brokenConnection reports whether err is a connection that broke rather
// than an answer: a reset, an early end of the body, a network error.
func brokenConnection(err error) bool {
	var ne net.Error
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || errors.As(err, &ne)
}

// backoff is the wait before resumption n (1, 2, ...): 100 ms doubling,
// at most max.
func backoff(n int, max time.Duration) time.Duration {
	d := 100 * time.Millisecond << min(n-1, 10)
	return min(d, max)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
