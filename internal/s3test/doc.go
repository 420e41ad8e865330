// Package s3test runs a real S3-protocol server for tests, and a proxy in
// front of it that injects the faults of a network store.
//
// The server is the Versity S3 Gateway (versitygw) with its posix backend,
// built from its Go module by `scripts/setup --s3` into the checkout's
// git-ignored .aem/tools (or named by AEM_S3_SERVER). [Start] runs one on
// a loopback port for a test, with fresh credentials and storage, and
// stops it when the test ends; without the binary it skips the test,
// saying how to get it, or fails it under scripts/test ([RequireEnv]).
//
// A [Proxy] forwards to the server and applies [Fault]s to the requests
// that match them: an answer of 500 or 503, a connection reset part-way
// through an upload or a download, a delay, or a function run before the
// request goes on (to overwrite an object while someone reads it).
//
// Clients reach either through the AWS environment ([Server.Env],
// [Server.SetEnv]): AWS_ENDPOINT_URL_S3 on a loopback address (the AWS SDK
// then addresses buckets by path), AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY, AWS_REGION.
package s3test
