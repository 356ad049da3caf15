package testutil

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Browser is a headless Chromium tab (the system's, Chromium) of a given
// window size that records every request and every problem a reader would
// hit: failed loads, HTTP errors, script exceptions, console errors and
// warnings, CSP violations. The report's and serve's browser tests share it.
type Browser struct {
	Ctx      context.Context
	mu       sync.Mutex
	requests []string
	problems []string
}

// NewBrowser opens a tab of width × height px, closed when the test ends.
// A 404 that a page asks for on purpose is no problem; every other error
// status is.
func NewBrowser(t testing.TB, width, height int) *Browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(Chromium(t)), chromedp.NoSandbox,
		chromedp.DisableGPU, chromedp.WindowSize(width, height))
	b := &Browser{}
	listen := func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			b.requests = append(b.requests, e.Request.URL)
		case *network.EventLoadingFailed:
			b.problems = append(b.problems, fmt.Sprintf("loading failed (%s): %s", e.Type, e.ErrorText))
		case *network.EventResponseReceived:
			if e.Response.Status >= 400 && e.Response.Status != 404 && e.Response.Status != 403 && e.Response.Status != 401 {
				b.problems = append(b.problems, fmt.Sprintf("%s: HTTP %d", e.Response.URL, int(e.Response.Status)))
			}
		case *cdpruntime.EventExceptionThrown:
			b.problems = append(b.problems, "script exception: "+e.ExceptionDetails.Text)
		case *cdpruntime.EventConsoleAPICalled:
			if e.Type == cdpruntime.ConsoleAPICalledTypeError || e.Type == cdpruntime.ConsoleAPICalledTypeWarning {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				b.problems = append(b.problems, fmt.Sprintf("console %s: %s", e.Type, strings.Join(args, " ")))
			}
		case *cdplog.EventEntryAdded:
			// CSP violations and blocked loads are reported here; a status
			// a page asked for (a refused write: 403) is not a problem.
			if e.Entry.Level == cdplog.EntryLevelError && !strings.Contains(e.Entry.Text, "status of 40") {
				b.problems = append(b.problems, fmt.Sprintf("browser log (%s): %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL))
			}
		}
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx, chromedp.WithListener(listen))
	t.Cleanup(cancel)
	// A hang guard, not a time limit: a loaded machine is slow.
	ctx, cancel = context.WithTimeout(ctx, 15*time.Minute)
	t.Cleanup(cancel)
	b.Ctx = ctx
	return b
}

// Requests are the addresses the tab asked for, in order.
func (b *Browser) Requests() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.requests...)
}

// Problems are what went wrong in the tab, in order.
func (b *Browser) Problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.problems...)
}

// Layout is what a reader sees of a page's tables, from the rendered
// geometry (LayoutJS).
type Layout struct {
	PageOverflow float64  `json:"pageOverflow"` // how far the page scrolls sideways
	Broken       []string `json:"broken"`       // a word of a header or a name split across lines
	Overflowing  []string `json:"overflowing"`  // a cell whose text runs out of it
	Intervals    []string `json:"intervals"`    // an interval [a, b] on more than one line
	Unscrolled   []string `json:"unscrolled"`   // a table wider than its box, in no box that scrolls
	Scrolling    []string `json:"scrolling"`    // the tables that scroll in their own box (id or class)
}

// LayoutJS measures a page's tables as Layout reports them. A word is a run
// of characters between spaces, ending after a slash (a name breaks only
// there): each must lie on one line, in every header and every cell but
// prose (td.text) and free text (serve's replies and SQL values, .c).
// Cells inside closed folds are not measured.
const LayoutJS = `(() => {
  const W = document.documentElement.clientWidth;
  const out = {pageOverflow: document.documentElement.scrollWidth - W, broken: [], overflowing: [], intervals: [], unscrolled: [], scrolling: []};
  const where = e => ((e.closest('[id]') || {}).id || e.tagName.toLowerCase());
  const lines = r => new Set([...r.getClientRects()].filter(x => x.width > 0.5).map(x => Math.round(x.top))).size;
  for (const cell of document.querySelectorAll('th, td')) {
    if (!cell.getClientRects().length) continue;
    if (cell.scrollWidth > cell.clientWidth + 1) out.overflowing.push(where(cell) + ': ' + cell.textContent.trim().slice(0, 60));
    if (cell.matches('td.text, td.reply, table.raw td') || cell.closest('td.text, td.reply')) continue;
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let n; (n = walk.nextNode());) {
      if (n.parentElement.closest('.c:not(.s), pre, details:not([open])')) continue;
      const re = /[^\s\/]+\/?/g;
      for (let m; (m = re.exec(n.textContent));) {
        const r = document.createRange();
        r.setStart(n, m.index);
        r.setEnd(n, m.index + m[0].length);
        if (lines(r) > 1) out.broken.push(where(cell) + ': ' + m[0]);
      }
    }
  }
  for (const ci of document.querySelectorAll('.ci')) {
    if (ci.getClientRects().length && lines(ci) > 1) out.intervals.push(where(ci) + ': ' + ci.textContent);
  }
  for (const t of document.querySelectorAll('table')) {
    const r = t.getBoundingClientRect();
    if (r.width === 0) continue;
    const box = t.closest('.scroll');
    if (box && box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX === 'auto') out.scrolling.push(t.id || where(t));
    if (!box && (r.right > W + 0.5 || t.parentElement.scrollWidth > t.parentElement.clientWidth + 1)) {
      out.unscrolled.push(where(t) + ': ' + Math.round(r.left) + '..' + Math.round(r.right) + ' of ' + W);
    }
  }
  return out;
})()`

// MeasureLayout reads the tab's Layout.
func (b *Browser) MeasureLayout(t testing.TB) Layout {
	t.Helper()
	l, err := chromedp.Run(b.Ctx, chromedp.Evaluate[Layout](LayoutJS))
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// CheckLayout fails the test for anything a reader at this width would find
// cut or squeezed: a sideways scroll of the page, a word broken across
// lines, text running out of its cell, an interval on two lines, a table
// wider than its box that does not scroll in it.
func CheckLayout(t testing.TB, page string, width int, l Layout) {
	t.Helper()
	if l.PageOverflow > 0 {
		t.Errorf("%s at %d px: the page scrolls sideways by %.0f px", page, width, l.PageOverflow)
	}
	for _, kind := range []struct {
		what  string
		items []string
	}{{"a word broken across lines", l.Broken}, {"text runs out of its cell", l.Overflowing},
		{"an interval on two lines", l.Intervals}, {"a table wider than its box, not scrolling", l.Unscrolled}} {
		for i, s := range kind.items {
			if i == 10 {
				t.Errorf("%s at %d px: %s: %d more", page, width, kind.what, len(kind.items)-10)
				break
			}
			t.Errorf("%s at %d px: %s: %s", page, width, kind.what, s)
		}
	}
}
