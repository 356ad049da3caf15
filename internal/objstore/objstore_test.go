package objstore_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"

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

	// put writes body to s3://logs/<key>, as a rewrite of a log would.
	put := func(key string, body []byte) error {
		_, err := srv.Client().PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String("logs"), Key: &key, Body: bytes.NewReader(body)})
		return err
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

	// A full read fetches each byte of the object once: the central
	// directory and header as it opens, the rest in one download that the
	// member reads wait on and that gives the hash, in either order, whether
	// the download starts at the open (a small object) or at the first read.
	for _, tc := range []struct {
		name      string
		lazy      bool
		hashFirst bool
	}{
		{"download-at-open", false, false},
		{"download-at-open-hash-first", false, true},
		{"download-at-first-read", true, false},
		{"download-at-first-read-hash-first", true, true},
	} {
		t.Run("full-read-fetches-the-object-once/"+tc.name, func(t *testing.T) {
			if tc.lazy {
				defer objstore.SetPrefetchBelow(0)()
			}
			hashFirst := tc.hashFirst
			c := newClient(t)
			l, err := c.OpenLog(ctx, listed(t, c), evallog.Limits{}, false)
			if err != nil {
				t.Fatal(err)
			}
			defer l.Close()
			atOpen := c.Stats()
			ref, err := evallog.Open(filepath.Join(local, "big-sample.eval"))
			if err != nil {
				t.Fatal(err)
			}
			defer ref.Close()
			if l.SHA256 != "" {
				t.Errorf("the hash is known at open (%s), before the download that gives it", l.SHA256)
			}
			if hashFirst {
				if err := l.FinishHash(); err != nil {
					t.Fatal(err)
				}
			}
			if l.Path != "s3://logs/big/big-sample.eval" || len(l.Samples) != len(ref.Samples) {
				t.Fatalf("opened from S3: path %s, %d samples; from disk: %d samples", l.Path, len(l.Samples), len(ref.Samples))
			}
			var wg sync.WaitGroup
			errs := make(chan error, len(l.Samples))
			for i := range l.Samples {
				wg.Add(1)
				go func() {
					defer wg.Done()
					a, err := l.Samples[i].Bytes()
					if err != nil {
						errs <- err
						return
					}
					b, err := ref.Samples[i].Bytes()
					if err != nil {
						errs <- err
						return
					}
					if !bytes.Equal(a, b) {
						errs <- fmt.Errorf("%s: %d bytes from S3 differ from the %d on disk", l.Samples[i].Member, len(a), len(b))
					}
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Fatal(err)
			}
			if err := l.FinishHash(); err != nil {
				t.Fatal(err)
			}
			if l.SHA256 != ref.SHA256 {
				t.Errorf("sha256 from S3 %s, from disk %s", l.SHA256, ref.SHA256)
			}
			st := c.Stats()
			ratio := float64(st.Bytes) / float64(len(want))
			t.Logf("full read of a %d-byte log: %d GETs, %d bytes (%.4f× the object), %d GETs and %d bytes of them as it opened", len(want), st.Requests, st.Bytes, ratio, atOpen.Requests, atOpen.Bytes)
			if ratio > 1.1 || st.Requests > 8 {
				t.Errorf("fetched %d bytes in %d GETs for a %d-byte object; want at most 1.1× its size, in at most 8", st.Bytes, st.Requests, len(want))
			}
		})
	}

	t.Run("spool-reads-match-the-object", func(t *testing.T) {
		c := newClient(t)
		s, err := c.OpenSpool(ctx, listed(t, c))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		read := func(rng *rand.Rand) error {
			n := []int{1, 30, 4096, 70 << 10, 300 << 10}[rng.IntN(5)]
			off := rng.Int64N(int64(len(want)))
			buf := make([]byte, n)
			got, err := s.ReadAt(buf, off)
			end := min(off+int64(n), int64(len(want)))
			if got != int(end-off) || !bytes.Equal(buf[:got], want[off:end]) {
				return fmt.Errorf("bytes differ at %d (%v)", off, err)
			}
			if (end < off+int64(n)) != (err == io.EOF) {
				return fmt.Errorf("ReadAt(%d bytes at %d) of %d: %v; want io.EOF past the end, and only then", n, off, len(want), err)
			}
			return nil
		}
		rng := rand.New(rand.NewPCG(1, 13))
		for range 20 { // as the log opens: ranged GETs
			if err := read(rng); err != nil {
				t.Fatal(err)
			}
		}
		s.Sequential()
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for g := range 8 { // after: waiting on the download
			wg.Add(1)
			go func() {
				defer wg.Done()
				rng := rand.New(rand.NewPCG(uint64(g), 14))
				for range 40 {
					if err := read(rng); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		sum, err := s.Hash()
		if want := sha256.Sum256(want); err != nil || sum != hex.EncodeToString(want[:]) {
			t.Errorf("Hash() = %s, %v; want %x", sum, err, want)
		}
		if st := c.Stats(); st.Bytes > int64(len(want)) {
			t.Errorf("fetched %d bytes in %d GETs for a %d-byte object: a byte was fetched twice", st.Bytes, st.Requests, len(want))
		}
	})

	t.Run("cancel-stops-the-download", func(t *testing.T) {
		c := newClient(t)
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		var at atomic.Int64
		defer objstore.SetDownloadHook(func(pos int64) {
			if pos >= 1<<20 && at.CompareAndSwap(0, pos) {
				cancel()
			}
		})()
		defer objstore.SetPrefetchBelow(0)() // so that the bytes of the open are counted apart
		o := listed(t, c)
		l, err := c.OpenLog(cctx, o, evallog.Limits{}, false)
		if err != nil {
			t.Fatal(err)
		}
		atOpen := c.Stats()
		biggest := l.Samples[0]
		for _, r := range l.Samples {
			if r.RawSize() > biggest.RawSize() {
				biggest = r
			}
		}
		if _, err := biggest.Bytes(); !errors.Is(err, context.Canceled) {
			t.Errorf("reading %s while the run is cancelled: %v, want context.Canceled", biggest.Member, err)
		}
		if err := l.FinishHash(); err == nil {
			t.Error("FinishHash after cancellation: no error")
		}
		l.Close() // waits for the download to stop
		got := c.Stats().Bytes - atOpen.Bytes
		t.Logf("cancelled at byte %d of %d: %d bytes downloaded in all", at.Load(), len(want), got)
		// The download fetches from where the open stopped, so it had
		// fetched fewer than at.Load() bytes when it was cancelled; one
		// chunk more allows for a read that was under way.
		if at.Load() == 0 || got > at.Load()+1<<20 {
			t.Errorf("cancelled at byte %d, the download fetched %d bytes of a %d-byte object; want it stopped within a chunk", at.Load(), got, len(want))
		}
	})

	t.Run("changed-mid-read-is-refused", func(t *testing.T) {
		const key = "changing/big-sample.eval"
		if err := put(key, want); err != nil {
			t.Fatal(err)
		}
		defer objstore.SetPrefetchBelow(0)() // the download starts after the change
		c := newClient(t)
		objs, err := c.List(ctx, "s3://logs/changing/")
		if err != nil || len(objs) != 1 {
			t.Fatalf("listing: %v %v", objs, err)
		}
		l, err := c.OpenLog(ctx, objs[0], evallog.Limits{}, false)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		other := bytes.Clone(want)
		other[len(other)/2] ^= 1 // the same size, another ETag
		if err := put(key, other); err != nil {
			t.Fatal(err)
		}
		var failed int
		for _, r := range l.Samples {
			if _, err := r.Bytes(); err != nil {
				failed++
				if !strings.Contains(err.Error(), "changed") || !strings.Contains(err.Error(), objs[0].URL) {
					t.Errorf("%s: %v; want an error naming the URL and saying it changed", r.Member, err)
				}
			}
		}
		if failed == 0 {
			t.Error("every sample of an object rewritten after the open was read")
		}
		if err := l.FinishHash(); err == nil || !strings.Contains(err.Error(), "changed") {
			t.Errorf("FinishHash of an object rewritten after the open: %v; want an error saying it changed", err)
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

	// A connection that breaks off half-way through a body is resumed from
	// where it stopped: every byte fetched once, the same bytes and hash as
	// on disk. The proxy breaks every connection after 1.5 MiB, so the
	// download of the 6.8 MB object breaks off four times.
	for _, kind := range []string{"eval", "json"} {
		t.Run("resumes-broken-connections-"+kind, func(t *testing.T) {
			defer objstore.SetResumeWait(time.Millisecond)()
			p := srv.NewProxy(t)
			p.Body = func(int) int64 { return 3 << 19 }
			t.Setenv("AWS_ENDPOINT_URL", p.Endpoint)
			c := newClient(t)
			o := listed(t, c)
			if kind == "json" {
				body, err := c.Stream(ctx, o)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(body)
				body.Close()
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("streamed %d bytes (%v); want the object's %d", len(got), err, len(want))
				}
			} else {
				l, err := c.OpenLog(ctx, o, evallog.Limits{}, false)
				if err != nil {
					t.Fatal(err)
				}
				defer l.Close()
				ref, err := evallog.Open(filepath.Join(local, "big-sample.eval"))
				if err != nil {
					t.Fatal(err)
				}
				defer ref.Close()
				for i := range l.Samples {
					a, err := l.Samples[i].Bytes()
					if err != nil {
						t.Fatal(err)
					}
					if b, _ := ref.Samples[i].Bytes(); !bytes.Equal(a, b) {
						t.Fatalf("%s: %d bytes read through broken connections differ from the %d on disk", l.Samples[i].Member, len(a), len(b))
					}
				}
				if err := l.FinishHash(); err != nil || l.SHA256 != ref.SHA256 {
					t.Fatalf("sha256 through broken connections %s (%v), from disk %s", l.SHA256, err, ref.SHA256)
				}
			}
			st := c.Stats()
			t.Logf("%d connections broken off; %d GETs, %d bytes of a %d-byte object", p.Cuts(), st.Requests, st.Bytes, len(want))
			if p.Cuts() < 3 || st.Bytes != int64(len(want)) {
				t.Errorf("%d connections broken off, %d bytes fetched of a %d-byte object; want 3 or more, and each byte once", p.Cuts(), st.Bytes, len(want))
			}
		})
	}

	t.Run("resume-of-a-changed-object-is-refused", func(t *testing.T) {
		defer objstore.SetResumeWait(time.Millisecond)()
		const key = "resumed/big-sample.eval"
		if err := put(key, want); err != nil {
			t.Fatal(err)
		}
		objs, err := newClient(t).List(ctx, "s3://logs/resumed/")
		if err != nil || len(objs) != 1 {
			t.Fatalf("listing: %v %v", objs, err)
		}
		other := bytes.Clone(want)
		other[len(other)-1] ^= 1 // the same size, another ETag
		p := srv.NewProxy(t)
		p.Body = func(k int) int64 { // the first connection breaks off
			if k == 0 {
				return 3 << 19
			}
			return -1
		}
		p.OnCut = func() { // on the proxy's goroutine: no t.Fatal
			if err := put(key, other); err != nil {
				t.Error(err)
			}
		}
		t.Setenv("AWS_ENDPOINT_URL", p.Endpoint)
		c := newClient(t)
		body, err := c.Stream(ctx, objs[0])
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(body)
		body.Close()
		if err == nil || !strings.Contains(err.Error(), "changed") || !strings.Contains(err.Error(), objs[0].URL) {
			t.Errorf("resuming the read of an object rewritten after the break: %d bytes, %v; want an error naming the URL and saying it changed", len(got), err)
		}
	})

	t.Run("a-connection-that-keeps-breaking-gives-up", func(t *testing.T) {
		defer objstore.SetResumeWait(time.Millisecond)()
		o := listed(t, newClient(t))
		// The first connection carries 64 KiB of the body; every later one
		// only a response's headers: each resumed GET is answered, and
		// breaks off before a byte of the body arrives.
		p := srv.NewProxy(t)
		p.Body = func(k int) int64 {
			if k == 0 {
				return 64 << 10
			}
			return 0
		}
		t.Setenv("AWS_ENDPOINT_URL", p.Endpoint)
		c := newClient(t)
		body, err := c.Stream(ctx, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(body)
		body.Close()
		if err == nil || !strings.Contains(err.Error(), "broke off") || len(got) != 64<<10 {
			t.Errorf("a connection that breaks at every GET: %d bytes, %v; want 64 KiB and an error saying it broke off", len(got), err)
		}
		// Read as a log, the error names the URL, once.
		if l, err := c.OpenLog(ctx, o, evallog.Limits{}, false); err == nil {
			l.Close()
			t.Error("a log whose every GET breaks off opened")
		} else if t.Logf("as a log: %v", err); !strings.Contains(err.Error(), "broke off") || strings.Count(err.Error(), o.URL) != 1 {
			t.Errorf("opening a log whose every GET breaks off: %v; want an error naming the URL once and saying it broke off", err)
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
