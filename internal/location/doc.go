// Package location reads and writes files named by a local path or by a
// gocloud.dev/blob URL (file://, mem://, s3://, and gs:// when the binary
// links that driver): parsing, downloading an object, uploading files to a
// prefix (each object appears only when its upload completes), deleting,
// and fetching the files of a remote directory into a local one.
//
// [NewURLMux] is the set of object stores aem opens. Its s3:// opener
// ([S3Opener]) adds what a long batch job needs from a network store:
// every request that fails in a way worth retrying is retried with
// backoff, and each retry is logged; a download cut short resumes from
// the same version of the object, or fails with [ErrChanged] if the object
// was replaced meanwhile. [FetchDir] reads a run directory's commit marker
// first and checks it again last, so a directory rewritten while it is
// read is ErrChanged rather than a mix of two versions.
//
// Errors about the location itself wrap [ErrUnreadable]; the underlying
// cause (context.Canceled when the caller gave up, a driver error,
// ErrChanged) stays reachable with errors.Is.
package location
