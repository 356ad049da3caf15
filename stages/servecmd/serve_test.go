package servecmd_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"empties/internal/cliutil"
	"empties/internal/ingest/ingesttest"
	"empties/internal/testutil"
	"empties/stages/servecmd"
)

func dataset(t *testing.T) string {
	t.Helper()
	return ingesttest.Dataset(t, testutil.Path(t, "testdata", "logs", "zstd-basic.eval"))
}

// start runs the command until the test ends; it returns the address the
// server listens on and what it printed.
func start(t *testing.T, opts servecmd.Options) (string, *testutil.SyncBuffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan string, 1)
	opts.Ready = func(u string) { ready <- u }
	out := &testutil.SyncBuffer{}
	done := make(chan error, 1)
	go func() { done <- servecmd.Run(ctx, opts, out) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("serve stopped by its context: %v, want context.Canceled (exit 130)", err)
		}
		if !strings.Contains(out.String(), "serve: stopped") {
			t.Errorf("no stop message:\n%s", out.String())
		}
	})
	select {
	case u := <-ready:
		return u, out
	case err := <-done:
		t.Fatalf("serve ended before listening: %v\n%s", err, out.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not listen within 60 s:\n%s", out.String())
	}
	return "", nil
}

func status(t *testing.T, u string) int {
	t.Helper()
	jar, _ := cookiejar.New(nil) // the token goes into a cookie
	resp, err := (&http.Client{Jar: jar}).Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// On loopback (the default) the server prints its address, answers with no
// token and has the SQL box on.
func TestServeOnLoopback(t *testing.T) {
	u, out := start(t, servecmd.Options{Data: dataset(t), Addr: "127.0.0.1", Port: 0})
	if !strings.Contains(out.String(), "serving ") || !strings.Contains(out.String(), "http://127.0.0.1:") || strings.Contains(out.String(), "token") {
		t.Errorf("start-up message:\n%s", out.String())
	}
	if !strings.Contains(out.String(), "SQL box on") {
		t.Errorf("the SQL box is not on on loopback:\n%s", out.String())
	}
	for _, p := range []string{"", "replies", "sql?q=SELECT+1"} {
		if c := status(t, u+p); c != 200 {
			t.Errorf("/%s: %d", p, c)
		}
	}
}

var tokenRe = regexp.MustCompile(`\?token=([0-9a-f]{32})`)

// Bound to every interface, the server prints a token and answers nothing
// without it; the SQL box is off unless asked for.
func TestServeBeyondLoopbackNeedsToken(t *testing.T) {
	u, out := start(t, servecmd.Options{Data: dataset(t), Addr: "0.0.0.0", Port: 0})
	m := tokenRe.FindStringSubmatch(out.String())
	if m == nil || !strings.Contains(out.String(), "SQL box off") {
		t.Fatalf("start-up message without a token, or with the SQL box on:\n%s", out.String())
	}
	_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(u, "http://"), "/"))
	base := "http://127.0.0.1:" + port + "/"
	if c := status(t, base+"replies"); c != http.StatusUnauthorized {
		t.Errorf("without the token: %d, want 401", c)
	}
	if c := status(t, base+"replies?token="+m[1]); c != 200 {
		t.Errorf("with the token: %d", c)
	}
	if c := status(t, base+"sql?q=SELECT+1&token="+m[1]); c != http.StatusForbidden {
		t.Errorf("the SQL box beyond loopback: %d, want 403 (off)", c)
	}

	on := true
	_, out = start(t, servecmd.Options{Data: dataset(t), Addr: "0.0.0.0", Port: 0, SQL: &on})
	if !strings.Contains(out.String(), "SQL box on") || !tokenRe.MatchString(out.String()) {
		t.Errorf("--sql beyond loopback:\n%s", out.String())
	}
}

// Mistakes are usage errors with a hint, before anything listens.
func TestServeErrors(t *testing.T) {
	var usage *cliutil.UsageError
	if err := servecmd.Run(context.Background(), servecmd.Options{}, io.Discard); !errors.As(err, &usage) {
		t.Errorf("no DIR: %v", err)
	}
	if err := servecmd.Run(context.Background(), servecmd.Options{Data: "x", Addr: "0.0.0.0:8080"}, io.Discard); !errors.As(err, &usage) || !strings.Contains(err.Error(), "--port") {
		t.Errorf("an address with a port: %v", err)
	}
	// DIR is checked before anything listens: on a port in use, the error
	// is DIR's.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	inUse := taken.Addr().(*net.TCPAddr).Port
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for dir, want := range map[string]string{
		t.TempDir():                        "not an empties dataset",
		filepath.Join(t.TempDir(), "none"): "no such folder",
		file:                               "is a file",
	} {
		err := servecmd.Run(context.Background(), servecmd.Options{Data: dir, Addr: "127.0.0.1", Port: inUse}, io.Discard)
		if !errors.As(err, &usage) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want a usage error saying %q", dir, err, want)
		}
		// serve takes the dataset as its DIR argument: no --data to name
		if err != nil && (strings.Contains(err.Error(), "--data") || !strings.Contains(err.Error(), "DIR names")) {
			t.Errorf("%s: %v names the dataset as a flag serve does not have", dir, err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	err = servecmd.Run(context.Background(), servecmd.Options{Data: dataset(t), Addr: "127.0.0.1", Port: port}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--port") {
		t.Errorf("a port in use: %v", err)
	}
}

// Ctrl-C stops the server at once, a query of the SQL box in flight
// included: the requests' context is the command's, so DuckDB is
// interrupted, not waited for until its time limit (ten minutes here).
func TestInterruptStopsAQueryInFlight(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ready := make(chan string, 1)
	opts := servecmd.Options{Data: dataset(t), Port: 0, Addr: "127.0.0.1", SQLTimeout: 10 * time.Minute, Ready: func(u string) { ready <- u }}
	out := &testutil.SyncBuffer{}
	done := make(chan error, 1)
	go func() { done <- servecmd.Run(ctx, opts, out) }()
	u := <-ready
	asked := make(chan struct{})
	go func() {
		close(asked)
		resp, err := http.Get(u + "sql.csv?q=" + url.QueryEscape("SELECT sum(range) FROM range(1000000000000000)")) // days of work in flat memory
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	<-asked
	time.Sleep(500 * time.Millisecond) // the query under way (were it not, the stop is only quicker)
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("serve: %v, want context.Canceled", err)
		}
	case <-time.After(2 * time.Minute): // a hang, not a slow stop: the query's limit is ten minutes
		t.Fatalf("serve did not stop with a query in flight:\n%s", out.String())
	}
}
