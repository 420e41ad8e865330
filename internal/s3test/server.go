package s3test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
)

// Module and Version name the server scripts/setup --s3 builds (go install
// Module@Version); its binary is .aem/tools/versitygw-Version.
const (
	Module  = "github.com/versity/versitygw/cmd/versitygw"
	Version = "v1.8.0"
)

// Region is the region the server answers for.
const Region = "us-east-1"

// InstallHint says how to get the server when it is missing.
const InstallHint = "run scripts/setup --s3 (builds " + Module + "@" + Version +
	" into .aem/tools, about 2 minutes once), or set AEM_S3_SERVER to a versitygw binary"

// ErrNotInstalled is returned by Find and Start when there is no server
// binary.
var ErrNotInstalled = errors.New("no S3 test server")

// Find returns the server binary: $AEM_S3_SERVER, else
// .aem/tools/versitygw-Version in the checkout that holds the working
// directory.
func Find() (string, error) {
	if p := os.Getenv("AEM_S3_SERVER"); p != "" {
		bin, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("%w: AEM_S3_SERVER=%s: %w", ErrNotInstalled, p, err)
		}
		return bin, nil
	}
	root, err := checkoutRoot()
	if err != nil {
		return "", fmt.Errorf("%w: %w; %s", ErrNotInstalled, err, InstallHint)
	}
	bin := filepath.Join(root, ".aem", "tools", "versitygw-"+Version)
	if _, err := os.Stat(bin); err != nil {
		return "", fmt.Errorf("%w: %s is missing: %s", ErrNotInstalled, bin, InstallHint)
	}
	return bin, nil
}

// checkoutRoot is the nearest directory above the working directory that
// holds go.mod.
func checkoutRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Server is a running S3-protocol server on a loopback port, with its own
// storage and root credentials.
type Server struct {
	// Endpoint is the server's URL, http://127.0.0.1:PORT.
	Endpoint string
	// AccessKey and SecretKey are its root credentials (random per server).
	AccessKey, SecretKey string

	client *s3.Client
	log    *syncBuffer
}

// RequireEnv turns a missing server from a skip into a failure when it
// is "1": the switch of home/hometest (a layer above this package; its
// test holds the two names equal), which scripts/test sets after
// scripts/setup --s3 has built the server.
const RequireEnv = "AEM_TEST_REQUIRE_INSTALL"

// Start runs a server for the test, stopped when the test ends. Without a
// binary it skips the test saying how to get one (fails it when
// RequireEnv is "1"); a server that does not come up fails the test.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := Find()
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%v (%s=1: the install is required)", err, RequireEnv)
		}
		t.Skip(err.Error())
	}
	s := &Server{AccessKey: "AKAEMTEST" + randomHex(t, 6), SecretKey: randomHex(t, 20), log: new(syncBuffer)}
	root := t.TempDir()
	var lastErr error
	for range 5 { // a port picked free can be taken before the server binds it
		addr := freePort(t)
		cmd := exec.Command(bin, "--port", addr, "--quiet", "posix", root)
		cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s.AccessKey, "ROOT_SECRET_KEY="+s.SecretKey, "VGW_REGION="+Region)
		cmd.Stdout, cmd.Stderr = s.log, s.log
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting %s: %v", bin, err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		s.Endpoint = "http://" + addr
		if lastErr = waitUp(s.Endpoint, exited); lastErr == nil {
			t.Cleanup(func() {
				cmd.Process.Signal(os.Interrupt)
				select {
				case <-exited:
				case <-time.After(5 * time.Second):
					cmd.Process.Kill()
					<-exited
				}
			})
			s.client = s.Client(s.Endpoint)
			return s
		}
		cmd.Process.Kill()
		<-exited
	}
	t.Fatalf("the S3 test server (%s) did not start: %v; its output:\n%s", bin, lastErr, s.log.String())
	return nil
}

// waitUp waits until endpoint answers HTTP, the process exits, or 10 s pass.
func waitUp(endpoint string, exited <-chan error) error {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("it exited: %v", err)
		default:
		}
		if resp, err := http.Get(endpoint + "/"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return errors.New("no answer within 10s")
}

func freePort(t testing.TB) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

func randomHex(t testing.TB, n int) string {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return strings.ToUpper(hex.EncodeToString(b))
}

// Env is the AWS environment of a client of the server reached at endpoint
// (the server's own Endpoint, or a Proxy's URL in front of it).
func (s *Server) Env(endpoint string) []string {
	return []string{
		"AWS_ENDPOINT_URL_S3=" + endpoint,
		"AWS_ACCESS_KEY_ID=" + s.AccessKey,
		"AWS_SECRET_ACCESS_KEY=" + s.SecretKey,
		"AWS_REGION=" + Region,
		// No shared config or credentials files: the environment decides;
		// and never the EC2 metadata service (not on loopback).
		"AWS_CONFIG_FILE=" + os.DevNull,
		"AWS_SHARED_CREDENTIALS_FILE=" + os.DevNull,
		"AWS_EC2_METADATA_DISABLED=true",
	}
}

// SetEnv sets Env(endpoint) in the test's process for its duration, so
// that s3:// URLs opened in the test reach the server. (Tests that call it
// cannot run in parallel.)
func (s *Server) SetEnv(t testing.TB, endpoint string) {
	for _, kv := range s.Env(endpoint) {
		k, v, _ := strings.Cut(kv, "=")
		t.Setenv(k, v)
	}
}

// Client is an S3 client of the server reached at endpoint, without
// retries, for a test to set up and inspect buckets.
func (s *Server) Client(endpoint string) *s3.Client {
	return s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: aws.String(endpoint),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
		Retryer:      aws.NopRetryer{},
	})
}

// Bucket creates a bucket and returns its URL, s3://name.
func (s *Server) Bucket(t testing.TB, name string) string {
	t.Helper()
	if _, err := s.client.CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("creating bucket %s: %v", name, err)
	}
	return "s3://" + name
}

// Put writes an object.
func (s *Server) Put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	if _, err := s.client.PutObject(context.Background(), &s3.PutObjectInput{Bucket: aws.String(bucket), Key: aws.String(key), Body: bytes.NewReader(data)}); err != nil {
		t.Fatalf("writing s3://%s/%s: %v", bucket, key, err)
	}
}

// Get reads an object; ok is false when it does not exist.
func (s *Server) Get(t testing.TB, bucket, key string) (data []byte, ok bool) {
	t.Helper()
	out, err := s.client.GetObject(context.Background(), &s3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		var missing *types.NoSuchKey
		if errors.As(err, &missing) {
			return nil, false
		}
		t.Fatalf("reading s3://%s/%s: %v", bucket, key, err)
	}
	defer out.Body.Close()
	data, err = io.ReadAll(out.Body)
	if err != nil {
		t.Fatalf("reading s3://%s/%s: %v", bucket, key, err)
	}
	return data, true
}

// Keys lists the keys under prefix, sorted.
func (s *Server) Keys(t testing.TB, bucket, prefix string) []string {
	t.Helper()
	var keys []string
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatalf("listing s3://%s/%s: %v", bucket, prefix, err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	slices.Sort(keys)
	return keys
}

// Uploads lists the multipart uploads in progress in bucket (parts of an
// object that never completed), as their keys.
func (s *Server) Uploads(t testing.TB, bucket string) []string {
	t.Helper()
	out, err := s.client.ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(bucket)})
	if err != nil {
		t.Fatalf("listing the uploads of s3://%s: %v", bucket, err)
	}
	var keys []string
	for _, u := range out.Uploads {
		keys = append(keys, aws.ToString(u.Key))
	}
	return keys
}

// Log is what the server printed.
func (s *Server) Log() string { return s.log.String() }

// syncBuffer is a bytes.Buffer safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
