package gcstest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsouza/fake-gcs-server/fakestorage"
)

// EmulatorEnv is the variable that points Google's storage clients (and
// gocloud's gcsblob) at an emulator: host:port, plain HTTP, no
// authentication.
const EmulatorEnv = "STORAGE_EMULATOR_HOST"

// Server is a running GCS emulator on a loopback port, with its own
// storage.
type Server struct {
	// Endpoint is the emulator's URL, http://127.0.0.1:PORT.
	Endpoint string
	// Secret is the private key of the service-account key file that Env
	// names (random per server): no output or log may ever hold it.
	Secret string
	// KeyFile is the service-account key file holding Secret (its key is
	// not a usable one: nothing may sign with it).
	KeyFile string

	srv    *fakestorage.Server
	gcloud string // an empty gcloud configuration directory
}

// Start runs an emulator for the test, stopped when the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	// PublicHost "127.0.0.1" (no port) makes the emulator answer the XML
	// downloads the storage client sends to http://127.0.0.1:PORT/BUCKET/KEY,
	// whatever the port: its own or a proxy's.
	srv, err := fakestorage.NewServerWithOptions(fakestorage.Options{
		Scheme:     "http",
		Host:       "127.0.0.1",
		PublicHost: "127.0.0.1",
	})
	if err != nil {
		t.Fatalf("starting the GCS emulator: %v", err)
	}
	t.Cleanup(srv.Stop)
	dir := t.TempDir()
	s := &Server{Endpoint: srv.URL(), Secret: randomHex(t, 32), srv: srv,
		KeyFile: filepath.Join(dir, "service-account.json"), gcloud: filepath.Join(dir, "gcloud")}
	key, err := json.Marshal(map[string]string{
		"type":           "service_account",
		"project_id":     "aem-test",
		"private_key_id": randomHex(t, 20),
		"private_key":    "-----BEGIN PRIVATE KEY-----\n" + s.Secret + "\n-----END PRIVATE KEY-----\n",
		"client_email":   "aem-test@aem-test.iam.gserviceaccount.com",
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(s.KeyFile, key, 0o600); err != nil {
		t.Fatalf("writing the test's service-account key: %v", err)
	}
	if err := os.Mkdir(s.gcloud, 0o700); err != nil {
		t.Fatal(err)
	}
	return s
}

func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// Env is the environment of a client of the emulator reached at endpoint
// (the server's own Endpoint, or a Proxy's URL in front of it): EmulatorEnv
// takes its host:port.
func (s *Server) Env(endpoint string) []string {
	return []string{
		EmulatorEnv + "=" + strings.TrimPrefix(endpoint, "http://"),
		// Never a developer's own credentials: the test's key file, an
		// empty gcloud configuration.
		"GOOGLE_APPLICATION_CREDENTIALS=" + s.KeyFile,
		"CLOUDSDK_CONFIG=" + s.gcloud,
	}
}

// SetEnv sets Env(endpoint) in the test's process for its duration, so
// that gs:// URLs opened in the test reach the emulator. (Tests that call
// it cannot run in parallel.)
func (s *Server) SetEnv(t testing.TB, endpoint string) {
	for _, kv := range s.Env(endpoint) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// Bucket creates a bucket and returns its URL, gs://name.
func (s *Server) Bucket(t testing.TB, name string) string {
	t.Helper()
	s.srv.CreateBucketWithOpts(fakestorage.CreateBucketOpts{Name: name})
	return "gs://" + name
}

// Put writes an object.
func (s *Server) Put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	obj := fakestorage.Object{ObjectAttrs: fakestorage.ObjectAttrs{BucketName: bucket, Name: key}, Content: data}
	if err := s.srv.CreateObjectStreaming(obj.StreamingObject()); err != nil {
		t.Fatalf("writing gs://%s/%s: %v", bucket, key, err)
	}
}

// Get reads an object; ok is false when it does not exist.
func (s *Server) Get(t testing.TB, bucket, key string) (data []byte, ok bool) {
	t.Helper()
	obj, err := s.srv.GetObjectStreaming(bucket, key)
	if err != nil {
		if _, _, lerr := s.srv.ListObjectsWithOptions(bucket, fakestorage.ListOptions{}); lerr != nil {
			t.Fatalf("reading gs://%s/%s: %v", bucket, key, lerr)
		}
		return nil, false // the bucket is there, the object is not
	}
	defer obj.Close()
	data, err = io.ReadAll(obj.Content)
	if err != nil {
		t.Fatalf("reading gs://%s/%s: %v", bucket, key, err)
	}
	return data, true
}

// Keys lists the keys under prefix, sorted.
func (s *Server) Keys(t testing.TB, bucket, prefix string) []string {
	t.Helper()
	objs, _, err := s.srv.ListObjectsWithOptions(bucket, fakestorage.ListOptions{Prefix: prefix})
	if err != nil {
		t.Fatalf("listing gs://%s/%s: %v", bucket, prefix, err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Name)
	}
	slices.Sort(keys)
	return keys
}
