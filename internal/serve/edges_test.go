package serve_test

import (
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"empties/internal/serve"
	"empties/internal/testutil"
)

// After a switch the reader is sent back only to a path of this server:
// what a browser would read as another host ("/\evil", "/<tab>/evil",
// "//evil", a scheme) sends them to "/".
func TestSwitchRedirectsOnlyHere(t *testing.T) {
	_, hs := server(t, serve.Options{Data: fixtures(t), Loopback: true})
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for back, want := range map[string]string{
		`/\evil.example`:         "/",
		`/\/evil.example`:        "/",
		"/\t/evil.example":       "/",
		"/\n/evil.example":       "/",
		"/replies\r\nX-Evil: 1":  "/",
		"//evil.example":         "/",
		`\/evil.example`:         "/",
		"http://evil.example/":   "/",
		"javascript:alert(1)":    "/",
		"/replies/..\\..\\evil":  "/",
		"":                       "/",
		"/replies?class=answer":  "/replies?class=answer",
		`/replies?q=a\b`:         `/replies?q=a\b`,
		"/sample?log=1&id=a%2Fb": "/sample?log=1&id=a%2Fb",
	} {
		resp, err := noFollow.PostForm(hs.URL+"/switch", url.Values{"back": {back}})
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if loc := resp.Header.Get("Location"); resp.StatusCode != http.StatusSeeOther || loc != want {
			t.Errorf("back=%q: %d to %q, want %q", back, resp.StatusCode, loc, want)
		}
	}
}

// A page number beyond any page is held to the last one the server pages
// to, never an overflow ("rows -79–20") or a DuckDB error.
func TestPageNumbersAreBounded(t *testing.T) {
	_, hs := server(t, serve.Options{Data: fixtures(t), Loopback: true, SQL: true})
	negative := regexp.MustCompile(`rows -|–-|page -`)
	for _, p := range []string{"922337203685477581", "9223372036854775807", "99999999999999999999999", "-5", "x"} {
		body := page(t, hs.URL, "/sql?"+url.Values{"q": {"SELECT range FROM range(250)"}, "page": {p}}.Encode())
		if strings.Contains(body, `id="sql-error"`) || negative.MatchString(body) || !strings.Contains(body, `id="sql-summary"`) {
			t.Errorf("/sql page %s:\n%.2500s", p, body)
		}
		body = page(t, hs.URL, "/replies?"+url.Values{"page": {p}, "n": {"500"}}.Encode())
		if negative.MatchString(body) {
			t.Errorf("/replies page %s:\n%.2500s", p, body)
		}
	}
}

// logPage is the sample page of sample 1 of the one log of a dataset.
func logPage(t *testing.T, dir string) string {
	t.Helper()
	r := testutil.Query(t, dir, "SELECT log_id FROM replies WHERE sample_id = '1' AND epoch = 1")[0]
	return "/sample?" + url.Values{"log": {r[0]}, "id": {"1"}, "epoch": {"1"}}.Encode()
}

// A named pipe put where a log was is never opened for reading: the sample
// page says what it is, at once (it used to wait for a writer, holding a
// thread, for good), and so does /sample.json.
func TestSampleOfALogReplacedByAFIFO(t *testing.T) {
	logs := t.TempDir()
	log := filepath.Join(logs, "zstd-basic.eval")
	testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", "zstd-basic.eval"), log)
	dir := t.TempDir()
	writeDataset(t, logs, dir)
	_, hs := server(t, serve.Options{Data: dir})
	u := logPage(t, dir)
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(log, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{u, strings.Replace(u, "/sample?", "/sample.json?", 1)} {
		type answer struct {
			code int
			body string
		}
		got := make(chan answer, 1)
		go func() {
			resp, err := http.Get(hs.URL + p)
			if err != nil {
				got <- answer{0, err.Error()}
				return
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			got <- answer{resp.StatusCode, string(b)}
		}()
		var a answer
		select {
		case a = <-got:
		case <-time.After(2 * time.Minute): // a hang, not a slow answer: the server opened the pipe
			if w, err := os.OpenFile(log, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close() // the reader sees the end; the request returns
			}
			t.Fatalf("GET %s waited on the named pipe", p)
		}
		if !strings.Contains(a.body, "not a regular file (a named pipe)") {
			t.Errorf("GET %s: %d %.2000s", p, a.code, a.body)
		}
	}
}

// blockingReader stalls every read until released, as a file system that
// stops answering does, and counts the reads that entered.
type blockingReader struct {
	r       io.ReaderAt
	release chan struct{}
	entered *atomic.Int32
}

func (b blockingReader) ReadAt(p []byte, off int64) (int, error) {
	b.entered.Add(1)
	<-b.release
	return b.r.ReadAt(p, off)
}

// A log whose reads stall fails the sample page at the server's deadline
// with a message, the tables' rows still shown, however many requests ask
// for it; its one read goes on in the background (one thread, not one per
// request), and once the file system answers, the page reads the log.
func TestSampleOfAStalledLog(t *testing.T) {
	logs := t.TempDir()
	testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", "zstd-basic.eval"), filepath.Join(logs, "zstd-basic.eval"))
	dir := t.TempDir()
	writeDataset(t, logs, dir)
	s, hs := server(t, serve.Options{Data: dir, LogTimeout: 200 * time.Millisecond})
	release := make(chan struct{})
	var entered atomic.Int32
	serve.SlowLogs(s, func(r io.ReaderAt) io.ReaderAt { return blockingReader{r, release, &entered} })
	u := logPage(t, dir)
	text := testutil.Query(t, dir, "SELECT text FROM replies WHERE sample_id = '1' AND epoch = 1")[0][0]
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, body := get(t, nil, hs.URL+u)
			if code != 200 || !strings.Contains(body, `id="log-error"`) || !strings.Contains(body, "took longer than 200ms") || !strings.Contains(reply(body), htmlEscape(text)) {
				t.Errorf("a stalled log: %d %.2500s", code, body)
			}
		}()
	}
	wg.Wait()
	if n := entered.Load(); n != 1 {
		t.Errorf("%d reads of the stalled log entered, want 1 (one read in flight per log)", n)
	}
	close(release)
	for {
		body := page(t, hs.URL, u)
		if !strings.Contains(body, "waiting for an earlier read") {
			if strings.Contains(body, `id="log-error"`) {
				t.Errorf("once the file system answers, the page still fails:\n%.2500s", body)
			}
			break
		}
	}
}
