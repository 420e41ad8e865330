// Package safefile writes user-visible files so that a reader sees either
// the old file or the whole new one, never a part, and computes the sha256
// of a file. Every writer of a file a user keeps (run outputs, golden
// datasets, thresholds files, reports, converted models) goes through
// [Create] or [WriteFile], so there is one durability policy:
//
//  1. create a temporary file ".tmp-NAME-RANDOM" in the destination's
//     directory (same file system, so the rename is atomic), mode 0644
//     before the umask;
//  2. write;
//  3. fsync the file and close it;
//  4. rename it over the destination;
//  5. fsync the directory, so the rename survives a crash.
//
// Any failure removes the temporary file and returns the error (an fsync
// error of the directory included: on a file system that cannot fsync a
// directory the write is not known to be durable). [File.Abort] removes the
// temporary file; a process killed before Commit leaves only a ".tmp-"
// file, which [RemoveStale] deletes.
package safefile
