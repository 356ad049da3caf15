package serve_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"empties/internal/serve"
	"empties/internal/store"
	"empties/internal/testutil"
)

// browser is a headless Chromium tab (testutil.Browser, shared with the
// report's tests) with the steps these tests take.
type browser struct {
	*testutil.Browser
	ctx context.Context
}

func newBrowser(t *testing.T) *browser { return newBrowserAt(t, 1400, 1000) }

func newBrowserAt(t *testing.T, width, height int) *browser {
	tb := testutil.NewBrowser(t, width, height)
	return &browser{Browser: tb, ctx: tb.Ctx}
}

func (b *browser) run(t *testing.T, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(b.ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

func get1[T any](t *testing.T, b *browser, a chromedp.Action[T]) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// follow runs an action that leads to another page (a click on a link, a
// form's submit) and waits until the page at an address holding part has
// loaded. The old page's scripting context goes away under a waiting query,
// so the wait asks again until the new page answers.
func (b *browser) follow(t *testing.T, a chromedp.Action[chromedp.Void], part string) {
	t.Helper()
	b.run(t, a)
	check := `location.href.includes(` + strconv.Quote(part) + `) && document.readyState === 'complete'`
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if ok, err := chromedp.Run(b.ctx, chromedp.Evaluate[bool](check)); err == nil && ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("no page at an address with %q after 30 s", part)
}

func eval[T any](t *testing.T, b *browser, js string) T {
	t.Helper()
	v, err := chromedp.Run(b.ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return v
}

// geometry checks what a reader at 1400 px sees: the page does not scroll
// sideways, and every table ends inside the window (or inside a box that
// scrolls on its own, as the SQL results do).
func geometry(t *testing.T, b *browser, name string) {
	t.Helper()
	type geo struct {
		ScrollWidth, ClientWidth int
		Tables                   []string
	}
	g := eval[geo](t, b, `({
	  scrollWidth: document.documentElement.scrollWidth,
	  clientWidth: document.documentElement.clientWidth,
	  tables: [...document.querySelectorAll('table')].filter(tb => {
	    if (tb.closest('.scroll')) return false;
	    const r = tb.getBoundingClientRect();
	    return r.width > 0 && r.right > document.documentElement.clientWidth + 1;
	  }).map(tb => (tb.id || tb.className || 'table') + ' ends at ' + Math.round(tb.getBoundingClientRect().right)),
	})`)
	if g.ScrollWidth > g.ClientWidth {
		t.Errorf("%s: the page scrolls sideways at 1400 px (%d px wide in a %d px window)", name, g.ScrollWidth, g.ClientWidth)
	}
	for _, tb := range g.Tables {
		t.Errorf("%s: %s, past the window's %d px", name, tb, g.ClientWidth)
	}
}

func screenshot(t *testing.T, b *browser, name string) {
	t.Helper()
	shot := get1(t, b, chromedp.FullScreenshot(100))
	p := filepath.Join(testutil.Artifacts(t), name+".png")
	if err := os.WriteFile(p, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	if len(shot) < 10000 {
		t.Errorf("screenshot %s is %d bytes: nothing rendered?", p, len(shot))
	}
}

// In a real Chromium, on the wild corpus: filter to a class, then to a task
// and model within it, open a sample and see its reply; find the sample with
// three retried attempts and see them marked, the reply chosen and the judge
// call; on every page nothing is fetched but from the server, and no page
// scrolls sideways at 1400 px. In the SQL box a write is refused and the
// dataset's bytes stay as they were. Screenshots are kept as artifacts.
func TestInChromium(t *testing.T) {
	dir := wild(t)
	before := testutil.TreeSum(t, dir)
	_, hs := server(t, serve.Options{Data: dir, Loopback: true, SQL: true})
	b := newBrowser(t)

	// The report, with the server's bar.
	b.run(t, chromedp.Navigate(hs.URL+"/"), chromedp.WaitReady("body"))
	if title := eval[string](t, b, `document.title`); !strings.Contains(title, "report") {
		t.Errorf("the first page's title is %q, want the report", title)
	}
	geometry(t, b, "report")
	screenshot(t, b, "serve-report")

	// Replies, then one class.
	b.follow(t, chromedp.Click(`.es-bar a[href="/replies"]`), "/replies")
	geometry(t, b, "replies")
	class := "truncated_empty"
	b.follow(t, chromedp.Click(`section[data-facet="class"] a[data-value="`+class+`"]`), "class="+class)
	type rows struct {
		URL     string
		Summary string
		Classes []string
		Tasks   []string
		Models  []string
	}
	read := func() rows {
		return eval[rows](t, b, `({
		  url: location.href,
		  summary: document.querySelector('#summary strong').textContent.replaceAll(',', ''),
		  classes: [...document.querySelectorAll('#replies tbody tr')].map(r => r.dataset.class),
		  tasks: [...document.querySelectorAll('#replies tbody td.sample .meta:nth-of-type(1)')].map(e => e.dataset.value),
		  models: [...document.querySelectorAll('#replies tbody td.sample .meta:nth-of-type(2)')].map(e => e.dataset.value),
		})`)
	}
	got := read()
	want := testutil.Query(t, dir, "SELECT count(*) FROM replies JOIN logs USING (log_id) WHERE class = ? AND set_status = 'counted'", class)[0][0]
	if !strings.Contains(got.URL, "class="+class) || got.Summary != want || len(got.Classes) == 0 {
		t.Fatalf("filtered to %s: %+v, want %s rows", class, got, want)
	}
	for _, c := range got.Classes {
		if c != class {
			t.Errorf("a row of class %s among the %s replies", c, class)
		}
	}
	screenshot(t, b, "serve-replies-class")

	// class × task × model: the first task, then the first model, within it.
	b.follow(t, chromedp.Click(`section[data-facet="class"] a[data-value="answer"]`), "class=answer")
	task := get1(t, b, chromedp.AttributeValue(`section[data-facet="task"] li a`, "data-value")).Value
	b.follow(t, chromedp.Click(`section[data-facet="task"] li a`), "task=")
	model := get1(t, b, chromedp.AttributeValue(`section[data-facet="model"] li:not(.on) a`, "data-value")).Value
	b.follow(t, chromedp.Click(`section[data-facet="model"] li:not(.on) a`), "model=")
	got = read()
	want = testutil.Query(t, dir, `SELECT count(*) FROM replies r JOIN logs l USING (log_id) WHERE r.class IN ('truncated_empty', 'answer')
		AND r.task = ? AND r.model = ? AND l.set_status = 'counted'`, task, model)[0][0]
	if got.Summary != want || len(got.Tasks) == 0 {
		t.Errorf("class × task × model (%s, %s): %s rows on the page, SQL counts %s", task, model, got.Summary, want)
	}
	for i := range got.Tasks {
		if got.Tasks[i] != task || got.Models[i] != model {
			t.Errorf("row %d is %s / %s, not %s / %s", i, got.Tasks[i], got.Models[i], task, model)
		}
	}

	// Open the first sample: its reply is on the page, and the way back
	// keeps the filters.
	b.follow(t, chromedp.Click(`#replies tbody tr a.open`), "/sample?")
	type sample struct {
		Reply, Back string
		Retried     int
		Chosen      int
		Judges      int
	}
	readSample := func() sample {
		return eval[sample](t, b, `({
		  reply: document.querySelector('#reply').innerText,
		  back: document.querySelector('#back').getAttribute('href'),
		  retried: document.querySelectorAll('#calls article.call.retried.skipped').length,
		  chosen: document.querySelectorAll('#calls article.call.chosen').length,
		  judges: document.querySelectorAll('#scores article.call').length,
		})`)
	}
	sp := readSample()
	if !strings.Contains(sp.Back, "task="+url.QueryEscape(task)) || !strings.Contains(sp.Back, "class=answer") {
		t.Errorf("the way back is %s: the filters are lost", sp.Back)
	}
	if len(strings.TrimSpace(sp.Reply)) < 20 {
		t.Errorf("the reply section is empty: %q", sp.Reply)
	}
	geometry(t, b, "sample")

	// The sample with retried attempts, found through the browser's own
	// filters and search.
	r := testutil.Query(t, dir, `SELECT sample_id, failed_attempts, judge_calls, left(text, 40) FROM replies
		WHERE failed_attempts > 0 ORDER BY failed_attempts DESC, sample_id LIMIT 1`)[0]
	id, retried := r[0], r[1]
	b.run(t, chromedp.Navigate(hs.URL+"/replies?skipped="+url.QueryEscape("retried attempts")), chromedp.WaitVisible("#replies"),
		chromedp.SetValue(`input[name="id"]`, id))
	b.follow(t, chromedp.Submit(`input[name="id"]`), "id=")
	if got := read(); got.Summary != "1" {
		t.Fatalf("searching sample id %s among retried: %s rows", id, got.Summary)
	}
	b.follow(t, chromedp.Click(`#replies tbody tr a.open`), "/sample?")
	sp = readSample()
	if strconv.Itoa(sp.Retried) != retried || sp.Chosen != 1 || sp.Judges == 0 {
		t.Errorf("sample %s: %d retried attempts marked (want %s), %d calls chosen (want 1), %d judge calls", id, sp.Retried, retried, sp.Chosen, sp.Judges)
	}
	if !strings.Contains(sp.Reply, strings.TrimSpace(r[3])) {
		t.Errorf("the reply section does not show the reply %q:\n%.500s", r[3], sp.Reply)
	}
	geometry(t, b, "sample with attempts")
	screenshot(t, b, "serve-sample")

	// An agent's sample with an empty turn in the middle, found through the
	// final class facet: each generation of the model under test shows its
	// own class, in call order, and the last one is marked the final reply.
	turn := testutil.Query(t, dir, `SELECT r.sample_id, r.final_class, r.final_call_index, r.generations FROM replies r
		WHERE r.generations > 1 AND r.non_answer_generations > 0 ORDER BY r.generations DESC, r.sample_id LIMIT 1`)[0]
	b.run(t, chromedp.Navigate(hs.URL+"/replies"), chromedp.WaitVisible("#replies"))
	b.follow(t, chromedp.Click(`section[data-facet="final_class"] a[data-value="`+turn[1]+`"]`), "final_class=")
	b.run(t, chromedp.SetValue(`input[name="id"]`, turn[0]))
	b.follow(t, chromedp.Submit(`input[name="id"]`), "id=")
	b.follow(t, chromedp.Click(`#replies tbody tr a.open`), "/sample?")
	type turns struct {
		Classes []string
		Final   []string
	}
	tv := eval[turns](t, b, `({
	  classes: [...document.querySelectorAll('#calls article.call')].filter(a => a.querySelector('header .badge')).map(a => a.querySelector('header .badge').textContent),
	  final: [...document.querySelectorAll('#calls article.call')].filter(a => a.querySelector('.mark.final')).map(a => a.id),
	})`)
	var classes []string
	for _, r := range testutil.Query(t, dir, `SELECT m.class FROM model_calls m JOIN replies r USING (log_id, sample_id, epoch)
		WHERE r.sample_id = ? AND r.generations > 1 AND m.class IS NOT NULL ORDER BY m.call_index`, turn[0]) {
		classes = append(classes, r[0])
	}
	if strings.Join(tv.Classes, ",") != strings.Join(classes, ",") || strconv.Itoa(len(classes)) != turn[3] {
		t.Errorf("sample %s: the calls show the classes %v, model_calls has %v (%s generations)", turn[0], tv.Classes, classes, turn[3])
	}
	if strings.Join(tv.Final, ",") != "call-"+turn[2] {
		t.Errorf("sample %s: the final reply is marked on %v, want call-%s", turn[0], tv.Final, turn[2])
	}
	geometry(t, b, "sample with turns")
	screenshot(t, b, "serve-sample-turns")

	// The SQL box: a write is refused, a query runs.
	gen, err := store.Current(dir)
	if err != nil {
		t.Fatal(err)
	}
	write := "COPY (SELECT * FROM replies LIMIT 1) TO '" + filepath.Join(gen, "replies", "part-00000.parquet") + "'"
	b.run(t, chromedp.Navigate(hs.URL+"/sql"), chromedp.WaitVisible("#q"), chromedp.SetValue("#q", write))
	b.follow(t, chromedp.Click("#run"), "q=")
	if msg := eval[string](t, b, `document.querySelector('#sql-error.refused') ? document.querySelector('#sql-error').textContent : ''`); !strings.Contains(msg, "Refused") {
		t.Errorf("the COPY over a table's file is not refused: %q", msg)
	}
	b.run(t, chromedp.SetValue("#q", "SELECT class, count(*) AS n FROM replies GROUP BY ALL ORDER BY n DESC"))
	b.follow(t, chromedp.Click("#run"), "GROUP")
	if n := eval[int](t, b, `document.querySelectorAll('#sql-result tbody tr').length`); strconv.Itoa(n) != testutil.Query(t, dir, "SELECT count(DISTINCT class) FROM replies")[0][0] {
		t.Errorf("the query's result has %d rows", n)
	}
	// a column of numbers is aligned right, its header too; a column of names left
	align := eval[string](t, b, `[...document.querySelectorAll('#sql-result tr')].map(r => [...r.cells].map(c => getComputedStyle(c).textAlign.replace('start', 'left')).join(' ')).filter((x, i, a) => a.indexOf(x) === i).join('|')`)
	if align != "left right" {
		t.Errorf("the result's columns (class, n) align %q, want every row \"left right\"", align)
	}
	geometry(t, b, "sql")
	screenshot(t, b, "serve-sql")
	if got := testutil.TreeSum(t, dir); got != before {
		t.Errorf("the dataset changed while served")
	}

	for _, u := range b.Requests() {
		if !strings.HasPrefix(u, hs.URL+"/") && !strings.HasPrefix(u, "data:") {
			t.Errorf("a page fetched %s", u)
		}
	}
	for _, p := range b.Problems() {
		t.Error(p)
	}
}

// At 1400 and 900 px, on the wild corpus: the report, the replies page, the
// sample page of the longest error and the SQL box with every column of
// replies break no name or header inside a word, run no text out of its
// cell, keep intervals on one line and scroll a wide table in its own box
// (the SQL result does scroll); the error shows its first lines, the rest
// folded, so the reply is on the first screens; facet labels cut in the
// middle keep their ends. Screenshots are artifacts (serve-*-900.png).
func TestLayoutInChromium(t *testing.T) {
	dir := wild(t)
	_, hs := server(t, serve.Options{Data: dir, Loopback: true, SQL: true})
	id := testutil.Query(t, dir, `SELECT sample_id FROM replies WHERE sample_error IS NOT NULL ORDER BY length(sample_error) DESC LIMIT 1`)[0][0]
	for _, width := range []int{1400, 900} {
		b := newBrowserAt(t, width, 900)
		check := func(name string) {
			t.Helper()
			testutil.CheckLayout(t, name, width, b.MeasureLayout(t))
			if width == 900 {
				screenshot(t, b, "serve-"+name+"-900")
			}
		}
		b.run(t, chromedp.Navigate(hs.URL+"/"), chromedp.WaitReady("body"))
		check("report")
		b.run(t, chromedp.Navigate(hs.URL+"/replies"), chromedp.WaitVisible("#replies"))
		check("replies")
		type facet struct{ Shown, Full string }
		labels := eval[[]facet](t, b, `[...document.querySelectorAll('section[data-facet="log"] a')].map(a => ({shown: a.querySelector('.v').textContent, full: a.dataset.value}))`)
		cut := 0
		for _, l := range labels {
			if l.Shown == l.Full {
				continue
			}
			cut++
			head, tail, ok := strings.Cut(l.Shown, "…")
			if !ok || !strings.HasPrefix(l.Full, head) || !strings.HasSuffix(l.Full, tail) || len(tail) < 10 {
				t.Errorf("facet label %q of %q: not cut in the middle keeping its end", l.Shown, l.Full)
			}
		}
		if cut == 0 {
			t.Errorf("no log facet label is cut: %v", labels)
		}
		b.run(t, chromedp.Navigate(hs.URL+"/replies?id="+url.QueryEscape(id)), chromedp.WaitVisible("#replies"))
		b.follow(t, chromedp.Click(`#replies tbody tr a.open`), "/sample?")
		type errView struct {
			Height   float64
			Folded   bool
			Escapes  bool
			Mono     bool
			ReplyTop float64
		}
		ev := eval[errView](t, b, `(() => { const e = document.querySelector('#sample-error'); return {
		  height: e.getBoundingClientRect().height, folded: !!e.querySelector('details.errmore:not([open])'),
		  escapes: e.innerText.includes('\\n'), mono: !!e.querySelector('pre.errblock'),
		  replyTop: document.querySelector('#reply').getBoundingClientRect().top + scrollY}; })()`)
		if ev.Height > 200 || !ev.Folded || ev.Escapes || !ev.Mono || ev.ReplyTop > 1300 {
			t.Errorf("the longest sample error at %d px: %+v, want its first lines in a monospace block (under 200 px, the rest folded, no \\n escapes) and the reply within the first screens", width, ev)
		}
		check("sample-error")
		b.run(t, chromedp.Navigate(hs.URL+"/sql?q="+url.QueryEscape("SELECT * FROM replies LIMIT 20")), chromedp.WaitVisible("#sql-result"))
		l := b.MeasureLayout(t)
		testutil.CheckLayout(t, "sql", width, l)
		if !slices.Contains(l.Scrolling, "sql-result") {
			t.Errorf("SELECT * FROM replies at %d px does not scroll in its box: %+v", width, l)
		}
		if width == 900 {
			screenshot(t, b, "serve-sql-900")
		}
		for _, p := range b.Problems() {
			t.Error(p)
		}
	}
}

// Off loopback, in the browser: without the token the server answers
// nothing but how to get in; the address with the token opens the pages,
// which then work without it (the cookie).
func TestTokenInChromium(t *testing.T) {
	dir := fixtures(t)
	_, hs := server(t, serve.Options{Data: dir, Token: "tok-123"})
	b := newBrowser(t)
	b.run(t, chromedp.Navigate(hs.URL+"/replies"))
	text := get1(t, b, chromedp.Text("body"))
	if !strings.Contains(text, "needs its token") {
		t.Errorf("without the token: %q", text)
	}
	b.run(t, chromedp.Navigate(hs.URL+"/replies?token=tok-123"), chromedp.WaitVisible("#replies"))
	if u := eval[string](t, b, `location.href`); strings.Contains(u, "token") {
		t.Errorf("the token stays in the address bar: %s", u)
	}
	b.follow(t, chromedp.Click(`#replies tbody tr a.open`), "/sample?")
	b.run(t, chromedp.Navigate(hs.URL+"/sql"))
	text = get1(t, b, chromedp.Text("body"))
	if !strings.Contains(text, "SQL box is off") {
		t.Errorf("the SQL box off this server: %q", text)
	}
}
