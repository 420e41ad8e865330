// Package gcstest runs a Google Cloud Storage emulator for tests, in the
// test's own process, on a loopback port.
//
// The emulator is fake-gcs-server's fakestorage library (a Go module, so
// nothing to install): it serves GCS's JSON API (object metadata, lists,
// uploads, simple and resumable) and its XML downloads, the two HTTP paths
// that cloud.google.com/go/storage, under gocloud.dev's gcsblob, takes.
// [Start] runs one for a test, with empty storage, and stops it when the
// test ends.
//
// Clients reach it through the environment ([Server.Env],
// [Server.SetEnv]): STORAGE_EMULATOR_HOST, which gcsblob honours by
// talking plain HTTP to that host with no authentication. The environment
// also names a service-account key file of the test's own, holding a
// random private key ([Server.Secret]), and an empty gcloud configuration,
// so that nothing can reach a developer's real Google credentials, and a
// test can check that no credential reaches an output or a log.
//
// Faults (503s, resets, an object rewritten while read) come from
// internal/s3test's Proxy, which forwards any HTTP: put one in front of
// [Server.Endpoint] and give clients its URL instead.
package gcstest
