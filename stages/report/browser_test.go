package report_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"empties/internal/testutil"
	"empties/stages/analyze"
	"empties/stages/decide"
	"empties/stages/ingest"
	"empties/stages/report"
	"empties/stages/rescore"
)

// pageFacts is what the test reads from the rendered page.
type pageFacts struct {
	DecisionRows int      `json:"decisionRows"`
	Plots        []string `json:"plots"`
	Title        string   `json:"title"`
	Examples     int      `json:"examples"`
}

// chromiumPath is the system Chromium (Debian's chromium package, which
// `make chromium` installs; EMPTIES_CHROMIUM overrides). No browser is ever
// downloaded: a missing one fails the test.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("EMPTIES_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatal("no chromium on PATH: run `make chromium` (apt-get install chromium) or set EMPTIES_CHROMIUM")
	return ""
}

// artifactDir is where the screenshot goes: $EMPTIES_ARTIFACTS (make test
// sets out/ci), else a temporary folder.
func artifactDir(t *testing.T) string {
	dir := os.Getenv("EMPTIES_ARTIFACTS")
	if dir == "" {
		return t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// studyReport writes the study report of the profile fixtures.
func studyReport(t *testing.T) string {
	t.Helper()
	ctx := context.Background()
	data := t.TempDir()
	if err := ingest.Run(ctx, ingest.Options{Paths: []string{testutil.Path(t, "testdata", "profiles")}, Out: data, Progress: "never"}, io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	m := testutil.Path(t, "data", "study.yaml")
	if err := rescore.Run(ctx, rescore.Options{Data: data, Manifest: m}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := analyze.Run(ctx, analyze.Options{Data: data, Manifest: m}, io.Discard); err != nil {
		t.Fatal(err)
	}
	if err := decide.Run(ctx, decide.Options{Data: data, Manifest: m}, io.Discard); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "report")
	if err := report.Run(ctx, report.Options{Data: data, Out: out}, io.Discard); err != nil {
		t.Fatal(err)
	}
	return out
}

// The page renders in a real headless Chromium: the decision table has a row
// per decision, every plot of plots/ is inline and drawn, nothing is fetched
// but the page itself, nothing fails to load and no script error or CSP
// violation is reported. The screenshot is kept (artifactDir/report.png).
func TestReportPageRendersInChromium(t *testing.T) {
	exe := chromiumPath(t)
	out := studyReport(t)
	page, err := filepath.Abs(filepath.Join(out, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	url := "file://" + page

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(1280, 1600))
	var mu sync.Mutex
	var requests, problems []string
	listen := func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			requests = append(requests, e.Request.URL)
		case *network.EventLoadingFailed:
			problems = append(problems, fmt.Sprintf("loading failed (%s): %s", e.Type, e.ErrorText))
		case *network.EventResponseReceived:
			if e.Response.Status >= 400 {
				problems = append(problems, fmt.Sprintf("%s: HTTP %d", e.Response.URL, int(e.Response.Status)))
			}
		case *cdpruntime.EventExceptionThrown:
			problems = append(problems, "script exception: "+e.ExceptionDetails.Text)
		case *cdpruntime.EventConsoleAPICalled:
			if e.Type == cdpruntime.ConsoleAPICalledTypeError {
				problems = append(problems, "console error")
			}
		case *cdplog.EventEntryAdded:
			// CSP violations and blocked loads are reported here.
			if e.Entry.Level == cdplog.EntryLevelError {
				problems = append(problems, fmt.Sprintf("browser log (%s): %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		}
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(listen))
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
	defer cancel()

	// chromedp enables the log, network and runtime domains of the tab.
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady("body")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[pageFacts](`({
	  decisionRows: document.querySelectorAll('#decisions table tr').length - 1,
	  plots: [...document.querySelectorAll('svg.plot')].filter(s => {
	    const r = s.getBoundingClientRect(); return r.width > 100 && r.height > 100 && s.querySelectorAll('path, text').length > 10;
	  }).map(s => s.dataset.plot),
	  title: document.title,
	  examples: document.querySelectorAll('a[href^="http://127.0.0.1:7575/#/logs/"]').length,
	})`))
	if err != nil {
		t.Fatal(err)
	}
	shot, err := chromedp.Run(ctx, chromedp.FullScreenshot(90))
	if err != nil {
		t.Fatal(err)
	}
	shotPath := filepath.Join(artifactDir(t), "report.png")
	if err := os.WriteFile(shotPath, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(shot) < 10000 {
		t.Errorf("screenshot %s is %d bytes: nothing rendered?", shotPath, len(shot))
	}

	f, err := os.Open(filepath.Join(out, "tables", "decisions.csv"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(f).ReadAll()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if want := len(recs) - 1; got.DecisionRows != want || want == 0 {
		t.Errorf("decision table in the page: %d rows, decisions.csv has %d", got.DecisionRows, want)
	}
	svgs, _ := filepath.Glob(filepath.Join(out, "plots", "*.svg"))
	var want []string
	for _, s := range svgs {
		want = append(want, strings.TrimSuffix(filepath.Base(s), ".svg"))
	}
	sort.Strings(want)
	sort.Strings(got.Plots)
	if len(want) == 0 || strings.Join(got.Plots, ",") != strings.Join(want, ",") {
		t.Errorf("plots drawn in the page: %v, plots/ has %v", got.Plots, want)
	}
	if got.Title != "Empty responses: study report" {
		t.Errorf("title %q", got.Title)
	}
	if got.Examples == 0 {
		t.Errorf("no inspect view links to examples in the page")
	}
	mu.Lock()
	defer mu.Unlock()
	for _, r := range requests {
		if r != url {
			problems = append(problems, "the page fetched "+r)
		}
	}
	if len(requests) == 0 {
		problems = append(problems, "no request seen for the page itself: the listener saw nothing")
	}
	for _, p := range problems {
		t.Error(p)
	}
}
