package location

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"cloud.google.com/go/storage"
	gax "github.com/googleapis/gax-go/v2"
	"golang.org/x/oauth2/google"
	"google.golang.org/api/option"

	"gocloud.dev/blob"
	"gocloud.dev/blob/gcsblob"
	"gocloud.dev/gcp"
)

// GCSEmulatorEnv names a GCS emulator (host:port, plain HTTP, no
// authentication) that gs:// URLs reach instead of Google; it is the
// variable Google's own clients read.
const GCSEmulatorEnv = "STORAGE_EMULATOR_HOST"

// GCSOpener opens gs://BUCKET URLs with the URL parameters gocloud's
// gcsblob takes (anonymous, access_id, private_key_path, universe_domain,
// grpc) and Google's Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud's application-default login, a
// workload's service account), or the emulator GCSEmulatorEnv names,
// adding what a long batch job needs from a network store:
//
//   - Every request that fails in a way worth retrying (a reset
//     connection, a 408, 429 or 5xx) is tried again after a jittered
//     exponential backoff, uploads included (GCS shows an object only
//     once its upload is complete, so a retried upload cannot leave a
//     partial one), up to MaxAttempts, and each retry is logged with the
//     operation, the object (an upload's only when its error quotes the
//     URL: a broken connection's does, a 503's does not) and the error.
//     Left to itself, the storage client retries reads only, silently and
//     without end (a store that keeps answering 503 hangs the run), and an
//     upload fails at its first 503.
//   - A download cut short resumes where it stopped, from the same
//     generation of the object (the storage client's own reader); if the
//     object was replaced meanwhile the read fails, and [Download] says
//     ErrChanged.
//   - Missing credentials are an error that says how to provide them,
//     where gcsblob's own opener prints a warning on stdout and goes on
//     without any.
type GCSOpener struct {
	Options MuxOptions

	mu    sync.Mutex
	creds map[string]*google.Credentials // by universe_domain
}

// OpenBucketURL implements blob.BucketURLOpener.
func (o *GCSOpener) OpenBucketURL(ctx context.Context, u *url.URL) (*blob.Bucket, error) {
	opener := &gcsblob.URLOpener{Client: gcp.NewAnonymousHTTPClient(gcp.DefaultTransport())}
	q := u.Query()
	if os.Getenv(GCSEmulatorEnv) == "" && !anonymous(q) {
		creds, err := o.credentials(ctx, q.Get("universe_domain"))
		if err != nil {
			return nil, fmt.Errorf("open bucket gs://%s: no Google credentials (set GOOGLE_APPLICATION_CREDENTIALS to a service-account key file, "+
				"run `gcloud auth application-default login`, or run with a service account; add ?anonymous=true to read a public bucket): %w", u.Host, err)
		}
		if opener.Client, err = gcp.NewHTTPClient(gcp.DefaultTransport(), creds.TokenSource); err != nil {
			return nil, fmt.Errorf("open bucket gs://%s: %w", u.Host, err)
		}
		opener.TokenSource = gcp.CredentialsTokenSource(creds)
		if ud, err := creds.GetUniverseDomain(); err == nil && ud != "" {
			opener.Options.ClientOptions = append(opener.Options.ClientOptions, option.WithUniverseDomain(ud))
		}
	}
	b, err := opener.OpenBucketURL(ctx, u)
	if err != nil {
		return nil, err
	}
	var client *storage.Client
	if b.As(&client) {
		o.setRetry(client, u.Host)
	}
	return b, nil
}

// anonymous reports whether a gs:// URL's parameters ask for no
// credentials (anonymous=true or access_id=-, as gcsblob reads them).
func anonymous(q url.Values) bool {
	on, _ := strconv.ParseBool(q.Get("anonymous"))
	return on || q.Get("access_id") == "-"
}

// credentials finds the Application Default Credentials once per
// universe domain.
func (o *GCSOpener) credentials(ctx context.Context, universe string) (*google.Credentials, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if c, ok := o.creds[universe]; ok {
		return c, nil
	}
	c, err := gcp.DefaultCredentialsWithParams(ctx, google.CredentialsParams{UniverseDomain: universe})
	if err != nil {
		return nil, err
	}
	if o.creds == nil {
		o.creds = map[string]*google.Credentials{}
	}
	o.creds[universe] = c
	return c, nil
}

// setRetry gives client aem's retry policy.
func (o *GCSOpener) setRetry(client *storage.Client, bucket string) {
	maxAttempts := o.Options.MaxAttempts
	if maxAttempts == 0 {
		maxAttempts = DefaultMaxAttempts
	}
	maxBackoff := o.Options.MaxBackoff
	if maxBackoff == 0 {
		maxBackoff = DefaultMaxBackoff
	}
	r := &gcsRetry{bucket: bucket, log: o.Options.Log, maxAttempts: maxAttempts}
	client.SetRetry(
		storage.WithPolicy(storage.RetryAlways),
		storage.WithMaxAttempts(maxAttempts),
		storage.WithBackoff(gax.Backoff{Initial: 100 * time.Millisecond, Max: maxBackoff, Multiplier: 2}),
		storage.WithErrorFuncWithContext(r.shouldRetry),
	)
}

// gcsRetry decides and logs the retries of one bucket's requests.
type gcsRetry struct {
	bucket      string
	log         func(string)
	maxAttempts int
	// uploadRetries counts the retries of uploads, which the storage
	// client asks about without saying which upload and does not count
	// against MaxAttempts: they share MaxAttempts-1 retries per opened
	// bucket, and Upload opens one per object.
	uploadRetries atomic.Int64
}

// shouldRetry is asked after each failed attempt that MaxAttempts allows
// to be retried.
func (r *gcsRetry) shouldRetry(err error, rc *storage.RetryContext) bool {
	if !storage.ShouldRetry(err) || errors.Is(err, context.Canceled) {
		return false
	}
	what := "WriteObject gs://" + r.bucket
	if rc != nil {
		what = rc.Operation + " gs://" + rc.Bucket
		if rc.Object != "" {
			what += "/" + rc.Object
		}
	} else if r.uploadRetries.Add(1) >= int64(r.maxAttempts) {
		return false
	} else if name := uploadName(err); name != "" {
		what += "/" + name
	}
	if r.log != nil {
		r.log(fmt.Sprintf("object store: %s failed, retrying (at most %d attempts): %v", what, r.maxAttempts, redactedError{err}))
	}
	return true
}

// uploadName is the object an upload's error is about, when it quotes
// the upload's URL (a broken connection does; an answer such as a 503
// does not).
func uploadName(err error) string {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return ""
	}
	u, perr := url.Parse(ue.URL)
	if perr != nil {
		return ""
	}
	return u.Query().Get("name")
}

// uploadSession matches the id of a GCS resumable upload session in a
// URL. The session's URL is a credential (whoever holds it may write the
// object until the session expires, a week later), and the storage
// client's errors quote it.
var uploadSession = regexp.MustCompile(`(upload_id=)[^&\s"']+`)

// redactedError is err with every upload session id in its message
// replaced by REDACTED; errors.Is and errors.As still reach err.
type redactedError struct{ err error }

func (e redactedError) Error() string {
	return uploadSession.ReplaceAllString(e.err.Error(), "${1}REDACTED")
}

func (e redactedError) Unwrap() error { return e.err }
