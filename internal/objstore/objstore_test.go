package objstore_test

import (
	"bytes"
	"context"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"empties/internal/evallog"
	"empties/internal/objstore"
	"empties/internal/objstore/s3test"
)

// TestAgainstServer runs against a real versitygw on loopback, holding a log
// the pinned inspect_ai wrote into it through s3fs: one sample holding a
// message of about 8 MiB of incompressible text, and one small sample.
func TestAgainstServer(t *testing.T) {
	srv := s3test.Start(t)
	srv.Setenv(t)
	srv.Bucket(t, "logs")
	srv.Inspect(t, "big", "s3://logs/big/", "--mb", "8")
	local := t.TempDir()
	srv.Download(t, "logs", "big/", local)
	want, err := os.ReadFile(filepath.Join(local, "big-sample.eval"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	listed := func(t *testing.T, c *objstore.Client) objstore.Object {
		objs, err := c.List(ctx, "s3://logs/big/")
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) != 1 || objs[0].URL != "s3://logs/big/big-sample.eval" || objs[0].Size != int64(len(want)) || objs[0].ETag == "" || objs[0].LastModified.IsZero() {
			t.Fatalf("listing: %+v, want the one object of %d bytes with an ETag and a LastModified", objs, len(want))
		}
		return objs[0]
	}

	t.Run("list", func(t *testing.T) {
		c := newClient(t)
		o := listed(t, c)
		for _, u := range []string{"s3://logs/big", "s3://logs/big/big-sample.eval", "s3://logs/"} {
			objs, err := c.List(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			if len(objs) != 1 || objs[0] != o {
				t.Errorf("List(%s) = %+v, want [%+v]", u, objs, o)
			}
		}
		objs, err := c.List(ctx, "s3://logs/nothing-here/")
		if err != nil || len(objs) != 0 {
			t.Errorf("an empty prefix: %v, %v; want no objects, no error", objs, err)
		}
	})

	t.Run("reader-matches-the-object", func(t *testing.T) {
		c := newClient(t)
		r := c.Open(ctx, listed(t, c))
		var wg sync.WaitGroup
		errs := make(chan string, 64)
		for g := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(g), 13))
				for range 40 {
					n := []int{1, 30, 4096, 70 << 10, 300 << 10}[rng.IntN(5)]
					off := rng.Int64N(int64(len(want)))
					buf := make([]byte, n)
					got, err := r.ReadAt(buf, off)
					end := min(off+int64(n), int64(len(want)))
					if got != int(end-off) || !bytes.Equal(buf[:got], want[off:end]) {
						errs <- "bytes differ at " + strconv.FormatInt(off, 10)
					}
					if (end < off+int64(n)) != (err == io.EOF) {
						errs <- "ReadAt past the end must return io.EOF, and only then"
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for e := range errs {
			t.Fatal(e)
		}
	})

	t.Run("header-only-reads-a-fraction", func(t *testing.T) {
		c := newClient(t)
		l, err := c.OpenLog(ctx, listed(t, c), evallog.Limits{}, objstore.HeaderOnly)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		st := c.Stats()
		t.Logf("header-only open of a %d-byte log: %d GETs, %d bytes (%.1f%%)", len(want), st.Requests, st.Bytes, 100*float64(st.Bytes)/float64(len(want)))
		if l.Header.Eval.Task != "big_sample" || len(l.Samples) != 2 || l.SHA256 != "" {
			t.Fatalf("header-only open: task %q, %d samples, sha %q", l.Header.Eval.Task, len(l.Samples), l.SHA256)
		}
		if st.Bytes*10 > int64(len(want)) || st.Requests > 4 {
			t.Errorf("a header-only open fetched %d bytes in %d GETs of a %d-byte object; want under a tenth, in at most 4", st.Bytes, st.Requests, len(want))
		}
	})

	t.Run("full-read-equals-the-file", func(t *testing.T) {
		c := newClient(t)
		l, err := c.OpenLog(ctx, listed(t, c), evallog.Limits{}, false)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ref, err := evallog.Open(filepath.Join(local, "big-sample.eval"))
		if err != nil {
			t.Fatal(err)
		}
		defer ref.Close()
		if l.SHA256 != ref.SHA256 || l.Path != "s3://logs/big/big-sample.eval" || len(l.Samples) != len(ref.Samples) {
			t.Fatalf("opened from S3: sha %s path %s %d samples; from disk: sha %s %d samples", l.SHA256, l.Path, len(l.Samples), ref.SHA256, len(ref.Samples))
		}
		for i := range l.Samples {
			a, err := l.Samples[i].Bytes()
			if err != nil {
				t.Fatal(err)
			}
			b, err := ref.Samples[i].Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Fatalf("%s: %d bytes from S3 differ from the %d on disk", l.Samples[i].Member, len(a), len(b))
			}
		}
		st := c.Stats()
		t.Logf("full read of a %d-byte log: %d GETs, %d bytes (%.2f× the object: one streamed GET hashes it, ranged GETs read the rest)", len(want), st.Requests, st.Bytes, float64(st.Bytes)/float64(len(want)))
		if st.Bytes > 3*int64(len(want)) {
			t.Errorf("fetched %d bytes for a %d-byte object", st.Bytes, len(want))
		}
	})

	t.Run("json-streamed-in-one-get", func(t *testing.T) {
		srv.Inspect(t, "copy", "s3://logs/json/", testdataLogs(t))
		c := newClient(t)
		objs, err := c.List(ctx, "s3://logs/json/nan-scores.json")
		if err != nil || len(objs) != 1 {
			t.Fatalf("listing: %v %v", objs, err)
		}
		l, err := c.OpenLog(ctx, objs[0], evallog.Limits{}, false)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ref, err := evallog.Open(filepath.Join(testdataLogs(t), "nan-scores.json"))
		if err != nil {
			t.Fatal(err)
		}
		defer ref.Close()
		if l.SHA256 != ref.SHA256 || len(l.Samples) != len(ref.Samples) || len(l.Samples) == 0 {
			t.Fatalf("from S3: sha %s, %d samples; from disk: sha %s, %d samples", l.SHA256, len(l.Samples), ref.SHA256, len(ref.Samples))
		}
		for i := range l.Samples {
			a, _ := l.Samples[i].Bytes()
			b, _ := ref.Samples[i].Bytes()
			if !bytes.Equal(a, b) {
				t.Fatalf("sample %d differs", i)
			}
		}
		if st := c.Stats(); st.Requests != 1 || st.Bytes != objs[0].Size {
			t.Errorf("a .json log took %d GETs and %d bytes; want one GET of its %d bytes", st.Requests, st.Bytes, objs[0].Size)
		}
	})

	t.Run("errors-name-the-url", func(t *testing.T) {
		for _, tc := range []struct {
			name, url string
			env       map[string]string
			want      []string
		}{
			{"no-such-bucket", "s3://no-such-bucket/logs/", nil, []string{"s3://no-such-bucket/logs/", "no such bucket"}},
			{"bad-secret", "s3://logs/big/", map[string]string{"AWS_SECRET_ACCESS_KEY": "wrong"}, []string{"s3://logs/big/", "access refused", "AWS_SECRET_ACCESS_KEY"}},
			{"unknown-key", "s3://logs/big/", map[string]string{"AWS_ACCESS_KEY_ID": "nobody"}, []string{"s3://logs/big/", "access refused"}},
			{"unreachable", "s3://logs/big/", map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:1", "AWS_MAX_ATTEMPTS": "1"}, []string{"s3://logs/big/", "cannot reach http://127.0.0.1:1", "AWS_ENDPOINT_URL"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				for k, v := range tc.env {
					t.Setenv(k, v)
				}
				_, err := newClient(t).List(ctx, tc.url)
				if err == nil {
					t.Fatal("no error")
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not say %q", err, w)
					}
				}
			})
		}
	})

	t.Run("changed-object-is-refused", func(t *testing.T) {
		c := newClient(t)
		o := listed(t, c)
		o.ETag = "0123456789abcdef0123456789abcdef" // as if the object were rewritten since the listing
		_, err := c.Open(ctx, o).ReadAt(make([]byte, 10), 0)
		if err == nil || !strings.Contains(err.Error(), "changed") {
			t.Errorf("reading an object whose ETag no longer matches: %v; want an error saying it changed", err)
		}
	})
}

func newClient(t *testing.T) *objstore.Client {
	t.Helper()
	c, err := objstore.New(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func testdataLogs(t *testing.T) string {
	dir, err := filepath.Abs(filepath.Join("..", "..", "testdata", "logs"))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}
