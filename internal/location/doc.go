// Package location reads and writes files named by a local path or by a
// gocloud.dev/blob URL (file://, mem://, s3://, gs://): parsing,
// downloading an object, uploading files to a prefix (each object appears
// only when its upload completes), deleting, and fetching the files of a
// remote directory into a local one.
//
// [NewURLMux] is the set of object stores aem opens. Its s3:// and gs://
// openers ([S3Opener], [GCSOpener]) add what a long batch job needs from a
// network store: every request that fails in a way worth retrying is
// retried with backoff, uploads included, and each retry is logged; a
// download cut short resumes from the same version of the object, or
// fails with [ErrChanged] if the object was replaced meanwhile. [FetchDir]
// reads a run directory's commit marker first and checks it again last,
// so a directory rewritten while it is read is ErrChanged rather than a
// mix of two versions. No credential reaches an error or a log: keys come
// from the environment only, and the id of a GCS resumable upload session
// (a credential for that one object) is redacted from errors.
//
// The tests run s3:// against a real S3 server (internal/s3test) and
// gs:// against a GCS emulator (internal/gcstest), behind a proxy that
// injects faults.
//
// Errors about the location itself wrap [ErrUnreadable]; the underlying
// cause (context.Canceled when the caller gave up, a driver error,
// ErrChanged) stays reachable with errors.Is.
package location
