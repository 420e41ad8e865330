// Package storetest starts a real object store behind a fault proxy for
// the tests of the packages that read and write object stores: an S3
// server (package s3test) or a GCS emulator (package gcstest), with this
// process's environment pointed at the proxy and a bucket "evals". It is
// imported by tests only.
package storetest
