// Package s3test runs a real S3-compatible server for tests: versitygw
// (built by `make versitygw`, found through EMPTIES_VERSITYGW or bin/) on
// loopback, with a posix backend in a temporary folder, and writes logs into
// it with the pinned inspect_ai's own S3 support.
package s3test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"empties/internal/testutil"
)

// Server is a running versitygw.
type Server struct {
	Endpoint       string // http://127.0.0.1:PORT
	Access, Secret string
	Root           string // the posix backend: <Root>/<bucket>/<key>
}

// Start runs versitygw until the test ends. A missing binary fails the test:
// the S3 tests are part of `make test`, which builds it.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := os.Getenv("EMPTIES_VERSITYGW")
	if bin == "" {
		bin = testutil.Path(t, "bin", "versitygw")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("the S3 tests need versitygw: run `make versitygw` (or set EMPTIES_VERSITYGW to its binary): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := &Server{Endpoint: "http://" + addr, Access: "empties-test", Secret: "empties-test-secret", Root: t.TempDir()}
	cmd := exec.Command(bin, "--port", addr, "--quiet", "posix", s.Root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+s.Access, "ROOT_SECRET_KEY="+s.Secret)
	logf, err := os.Create(filepath.Join(t.TempDir(), "versitygw.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		logf.Close()
	})
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logf.Name())
			t.Fatalf("versitygw did not answer on %s: %v\n%s", addr, err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return s
}

// Env is the standard AWS environment naming the server, with the shared
// configuration files pointed away from the user's.
func (s *Server) Env() map[string]string {
	none := filepath.Join(os.TempDir(), "empties-s3test-no-aws-config")
	return map[string]string{
		"AWS_ENDPOINT_URL": s.Endpoint, "AWS_ACCESS_KEY_ID": s.Access, "AWS_SECRET_ACCESS_KEY": s.Secret,
		"AWS_REGION": "us-east-1", "AWS_CONFIG_FILE": none, "AWS_SHARED_CREDENTIALS_FILE": none,
	}
}

// cleared are the AWS variables that would override Env.
var cleared = []string{"AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_ENDPOINT_URL_S3", "AWS_DEFAULT_REGION"}

// Setenv sets Env for the rest of the test (objstore.New reads it).
func (s *Server) Setenv(t testing.TB) {
	for _, k := range cleared {
		t.Setenv(k, "")
		os.Unsetenv(k)
	}
	for k, v := range s.Env() {
		t.Setenv(k, v)
	}
}

// environ is os.Environ with Env in place of any AWS_ variable.
func (s *Server) environ() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "AWS_") {
			env = append(env, kv)
		}
	}
	for k, v := range s.Env() {
		env = append(env, k+"="+v)
	}
	return env
}

// Client is an S3 client of the server, for what the tests set up.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		Region: "us-east-1", BaseEndpoint: aws.String(s.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(s.Access, s.Secret, ""),
	})
}

// Bucket creates a bucket.
func (s *Server) Bucket(t testing.TB, name string) {
	t.Helper()
	if _, err := s.Client().CreateBucket(context.Background(), &s3.CreateBucketInput{Bucket: &name}); err != nil {
		t.Fatalf("creating bucket %s: %v", name, err)
	}
}

// Inspect runs scripts/fixtures/s3_logs.py with the pinned inspect_ai of
// .venv against the server: args are the script's (study URL, big URL
// --mb N, copy URL DIR).
func (s *Server) Inspect(t testing.TB, args ...string) {
	t.Helper()
	root := testutil.RepoRoot(t)
	py := filepath.Join(root, ".venv", "bin", "python")
	if _, err := os.Stat(py); err != nil {
		t.Fatalf("the S3 tests need the pinned inspect_ai in .venv (run `make venv`): %v", err)
	}
	cmd := exec.Command(py, append([]string{filepath.Join(root, "scripts", "fixtures", "s3_logs.py")}, args...)...)
	cmd.Dir = root
	env := s.environ()
	scratch := t.TempDir()
	env = append(env, "XDG_DATA_HOME="+scratch, "XDG_CACHE_HOME="+scratch, "XDG_STATE_HOME="+scratch, "NO_COLOR=1")
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("s3_logs.py %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// Download copies every object under s3://bucket/prefix to dir/<key minus
// prefix>, with the object's LastModified as the file's modification time.
func (s *Server) Download(t testing.TB, bucket, prefix, dir string) {
	t.Helper()
	ctx := context.Background()
	c := s.Client()
	p := s3.NewListObjectsV2Paginator(c, &s3.ListObjectsV2Input{Bucket: &bucket, Prefix: &prefix})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range page.Contents {
			out, err := c.GetObject(ctx, &s3.GetObjectInput{Bucket: &bucket, Key: o.Key})
			if err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(*o.Key, prefix)))
			if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := os.Create(dst)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.ReadFrom(out.Body)
			out.Body.Close()
			f.Close()
			if err != nil {
				t.Fatal(fmt.Errorf("downloading %s: %w", *o.Key, err))
			}
			if err := os.Chtimes(dst, *o.LastModified, *o.LastModified); err != nil {
				t.Fatal(err)
			}
		}
	}
}
