package serve_test

import (
	"context"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"empties/internal/duck"
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

// oneLog is a dataset of its own of a copy of one fixture log.
func oneLog(t *testing.T) (log, dir string) {
	t.Helper()
	log = filepath.Join(t.TempDir(), "zstd-basic.eval")
	testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", "zstd-basic.eval"), log)
	dir = t.TempDir()
	writeDataset(t, filepath.Dir(log), dir)
	return log, dir
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
	log, dir := oneLog(t)
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
	_, dir := oneLog(t)
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

// The headers a browser sends: for an <img> of another site's page (what
// Chromium sends for <img src="http://127.0.0.1:7576/..."> on a page of
// another origin), a link of another site followed to a page, a page of
// this server, and an older browser's <img> (no Fetch Metadata, a Referer).
var (
	imgOfAnotherSite  = map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image", "Referer": "http://evil.example/"}
	imgOfAnotherPort  = map[string]string{"Sec-Fetch-Site": "same-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "image"}
	frameOfAnother    = map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "iframe"}
	scriptOfAnother   = map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "no-cors", "Sec-Fetch-Dest": "script"}
	oldBrowserImg     = map[string]string{"Referer": "http://evil.example/page.html"}
	linkOfAnotherSite = map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document", "Sec-Fetch-User": "?1"}
	ownPage           = map[string]string{"Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
)

func getWith(t *testing.T, u string, headers map[string]string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// No page of another site makes the server run a query: the requests an
// <img>, a <script> or a frame of another site's page sends (and an older
// browser's, known by its Referer) are refused before anything runs, the
// two-billion-row ORDER BY an <img> once started included; a link of
// another site followed to the SQL box shows the query without running it;
// this server's own pages, an address typed and curl run it. (GETs were
// not checked for their origin, only POSTs.)
func TestCrossSiteRequestsRunNoQuery(t *testing.T) {
	_, hs := server(t, serve.Options{Data: fixtures(t), Loopback: true, SQL: true})
	huge := url.Values{"q": {"SELECT range, repeat('x', 200) FROM range(2000000000) ORDER BY hash(range)"}}.Encode()
	for name, h := range map[string]map[string]string{"img": imgOfAnotherSite, "img of another port": imgOfAnotherPort,
		"frame": frameOfAnother, "script": scriptOfAnother, "old browser's img": oldBrowserImg} {
		for _, p := range []string{"/sql.csv?" + huge, "/sql?" + huge, "/replies?q=the", "/", logPage(t, fixtures(t))} {
			if code, body := getWith(t, hs.URL+p, h); code != http.StatusForbidden || !strings.Contains(body, "a page of another site cannot use this server") {
				t.Errorf("%s: GET %.60s: %d %.300s", name, p, code, body)
			}
		}
	}
	q := url.Values{"q": {"SELECT 6 * 7 AS answer"}}.Encode()
	code, body := getWith(t, hs.URL+"/sql?"+q, linkOfAnotherSite)
	if code != 200 || !strings.Contains(body, `id="sql-held"`) || strings.Contains(body, `id="sql-result"`) || !strings.Contains(body, "SELECT 6 * 7 AS answer</textarea>") {
		t.Errorf("a link of another site to the SQL box: %d\n%.3000s", code, body)
	}
	if code, _ := getWith(t, hs.URL+"/sql.csv?"+q, linkOfAnotherSite); code != http.StatusForbidden {
		t.Errorf("a link of another site to a CSV download: %d, want 403", code)
	}
	if code, body := getWith(t, hs.URL+"/replies", linkOfAnotherSite); code != 200 || !strings.Contains(body, "replies match") {
		t.Errorf("a link of another site to the replies: %d", code)
	}
	for name, h := range map[string]map[string]string{"own page": ownPage, "address typed": {"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}, "curl": nil} {
		code, body := getWith(t, hs.URL+"/sql?"+q, h)
		if code != 200 || !strings.Contains(body, cellOpen+"42"+cellClose) || strings.Contains(body, `id="sql-held"`) {
			t.Errorf("%s: %d\n%.2000s", name, code, body)
		}
		if code, body := getWith(t, hs.URL+"/sql.csv?"+q, h); code != 200 || body != "answer\n42\n" {
			t.Errorf("%s, CSV: %d %q", name, code, body)
		}
	}
	req, _ := http.NewRequest("POST", hs.URL+"/switch", strings.NewReader("back=/"))
	for k, v := range linkOfAnotherSite {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a form of another site without an Origin: %v %v", resp, err)
	}
}

// Each statement of the SQL box runs within its limits, and one stopped by
// a limit says which, naming the flag that raises it: the two-billion-row
// ORDER BY stops at its time (1s here; 30s by default), a sort too big for
// its memory and spill stops there (64 MiB each here), a CSV cut by its time
// fails as a download instead of ending as if whole, and a page whose rows
// hold more than 16 MiB says so.
func TestSQLBoxHasLimits(t *testing.T) {
	dir := fixtures(t)
	lim := duck.Limits{Memory: 256 << 20, Spill: 1 << 30, Timeout: time.Second, MemoryFlag: "--sql-memory", SpillFlag: "--sql-spill", TimeoutFlag: "--sql-timeout"}
	_, hs := server(t, serve.Options{Data: dir, Loopback: true, SQL: true, SQLLimits: lim})
	huge := url.Values{"q": {"SELECT range, repeat('x', 200) FROM range(2000000000) ORDER BY hash(range)"}}.Encode()
	body := page(t, hs.URL, "/sql?"+huge)
	if !strings.Contains(body, `id="sql-error"`) || !strings.Contains(body, "the query ran for 1s, its time limit, and was stopped; --sql-timeout raises it") {
		t.Errorf("the two-billion-row sort:\n%.3000s", body)
	}
	if code, body := get(t, nil, hs.URL+"/sql.csv?"+huge); code != http.StatusServiceUnavailable || !strings.Contains(body, "--sql-timeout raises it") {
		t.Errorf("the two-billion-row sort as CSV: %d %.300s", code, body)
	}
	resp, err := http.Get(hs.URL + "/sql.csv?" + url.Values{"q": {"SELECT range FROM range(10000000000)"}}.Encode())
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Errorf("a CSV cut by its time limit after %d bytes ends as if whole", n)
	}
	lim = duck.Limits{Memory: 64 << 20, Spill: 64 << 20, MemoryFlag: "--sql-memory", SpillFlag: "--sql-spill", TimeoutFlag: "--sql-timeout"}
	_, hs = server(t, serve.Options{Data: dir, Loopback: true, SQL: true, SQLLimits: lim})
	body = page(t, hs.URL, "/sql?"+url.Values{"q": {"SELECT * FROM (SELECT range, repeat('x', 200) || range AS s FROM range(20000000) ORDER BY hash(range)) OFFSET 19999999"}}.Encode())
	if !strings.Contains(body, "the query needs more than its memory (64 MiB) and the disk it may spill to (64 MiB); --sql-spill raises it; --sql-memory raises it") {
		t.Errorf("a sort past memory and spill:\n%.3000s", body)
	}
	if body := page(t, hs.URL, "/sql?"+url.Values{"q": {"SELECT current_setting('memory_limit') AS m"}}.Encode()); !strings.Contains(body, cellOpen+"64.0 MiB"+cellClose) {
		t.Errorf("the SQL box's memory limit is not set:\n%.2000s", body)
	}
	body = page(t, hs.URL, "/sql?"+url.Values{"q": {"SELECT repeat('x', 20000000) AS s"}}.Encode())
	if !strings.Contains(body, "the rows of this page hold more than 16 MiB of text") {
		i := strings.Index(body, `id="sql-error"`)
		t.Errorf("a page of 20 MB: %.600s", body[max(i, 0):])
	}
}

// In Chromium: a page of another site (localhost, the server being at
// 127.0.0.1) holding an <img>, a <script> and an <iframe> that point at the
// SQL box, the first at the two-billion-row sort, gets 403 for each, sent
// with Chromium's own Fetch Metadata, and nothing runs; its link to a query
// opens the SQL box with the query unrun, and Run runs it.
func TestCrossSiteInChromium(t *testing.T) {
	s, err := serve.New(context.Background(), serve.Options{Data: fixtures(t), Loopback: true, SQL: true,
		SQLLimits: duck.Limits{Timeout: 5 * time.Second, TimeoutFlag: "--sql-timeout"}})
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		path, site, dest string
		code             int
	}
	var mu sync.Mutex
	var log []seen
	h := s.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &statusWriter{ResponseWriter: w, code: 200}
		h.ServeHTTP(rec, r)
		mu.Lock()
		log = append(log, seen{r.URL.Path, r.Header.Get("Sec-Fetch-Site"), r.Header.Get("Sec-Fetch-Dest"), rec.code})
		mu.Unlock()
	}))
	t.Cleanup(func() {
		hs.Close()
		s.Close()
	})
	target := hs.URL
	q := func(sql string) string { return target + "/sql?" + url.Values{"q": {sql}}.Encode() }
	huge := target + "/sql.csv?" + url.Values{"q": {"SELECT range, repeat('x', 200) FROM range(2000000000) ORDER BY hash(range)"}}.Encode()
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!DOCTYPE html><title>another site</title><img src="%s"><script src="%s"></script><iframe src="%s"></iframe><p><a id="go" href="%s">a query</a>`,
			html.EscapeString(huge), html.EscapeString(q("SELECT 1")), html.EscapeString(q("SELECT 2")), html.EscapeString(q("SELECT 6 * 7 AS answer")))
	}))
	t.Cleanup(evil.Close)
	evilURL := strings.Replace(evil.URL, "127.0.0.1", "localhost", 1)

	b := newBrowser(t)
	b.run(t, chromedp.Navigate(evilURL))
	var got []seen
	for range 600 { // the three loads, however slow the machine
		mu.Lock()
		got = slices.Clone(log)
		mu.Unlock()
		if len(got) >= 3 {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(got) != 3 {
		t.Fatalf("the server saw %v, want the img, script and iframe requests", got)
	}
	for _, r := range got {
		if r.code != http.StatusForbidden || r.site != "cross-site" {
			t.Errorf("%s (%s, Sec-Fetch-Site %q): %d, want 403", r.path, r.dest, r.site, r.code)
		}
	}
	b.follow(t, chromedp.Click("#go"), "/sql?")
	if text := get1(t, b, chromedp.Text("main")); !strings.Contains(text, "Not run: this link to a query came from a page of another site") || strings.Contains(text, "answer") && strings.Contains(text, "42") {
		t.Errorf("the SQL box opened from another site's link: %q", text)
	}
	b.follow(t, chromedp.Click("#run"), "/sql?")
	if text := get1(t, b, chromedp.Text("#sql-result")); !strings.Contains(text, "42") {
		t.Errorf("after Run: %q", text)
	}
	mu.Lock()
	last := log[len(log)-1]
	mu.Unlock()
	if last.site != "same-origin" || last.code != 200 {
		t.Errorf("Run: %+v, want a same-origin request answered", last)
	}
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}
