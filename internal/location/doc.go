// Package location reads and writes files named by a local path or by a
// gocloud.dev/blob URL (file://, mem://, and s3:// or gs:// when the binary
// links those drivers): parsing, downloading an object, uploading files to a
// prefix (each object appears only when its upload completes), deleting, and
// fetching the files of a remote directory into a local one.
//
// Errors about the location itself wrap [ErrUnreadable]; the underlying
// cause (context.Canceled when the caller gave up, a driver error) stays
// reachable with errors.Is.
package location
