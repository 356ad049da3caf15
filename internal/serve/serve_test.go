package serve_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"empties/internal/classify"
	"empties/internal/ingest"
	"empties/internal/measures"
	"empties/internal/report"
	"empties/internal/serve"
	"empties/internal/store"
	"empties/internal/study"
	"empties/internal/testutil"
)

// datasets are written once per test binary, from real logs: the fixtures
// (testdata/logs, written by the pinned inspect_ai) and the wild corpus.
var datasets struct {
	sync.Mutex
	dirs map[string]string
}

// dataset ingests and analyzes the logs of a folder into a dataset shared
// by the tests that only read it.
func dataset(t testing.TB, logs string) string {
	t.Helper()
	datasets.Lock()
	defer datasets.Unlock()
	if d := datasets.dirs[logs]; d != "" {
		return d
	}
	dir := filepath.Join(scratch, fmt.Sprintf("ds%d", len(datasets.dirs)))
	writeDataset(t, logs, dir)
	if datasets.dirs == nil {
		datasets.dirs = map[string]string{}
	}
	datasets.dirs[logs] = dir
	return dir
}

func writeDataset(t testing.TB, logs, dir string) {
	t.Helper()
	ctx := context.Background()
	if err := ingest.Build(ctx, ingest.Config{Paths: []string{logs}, Out: dir}); err != nil {
		t.Fatal(err)
	}
	if err := measures.Run(ctx, measures.Config{Data: dir}, io.Discard); err != nil {
		t.Fatal(err)
	}
}

var scratch string

func TestMain(m *testing.M) {
	// The test binary doubles as another empties process that ingests
	// (ingestElsewhere): a server and an ingest are two processes, each
	// with its own pins and locks.
	if logs := os.Getenv("EMPTIES_SERVE_TEST_INGEST_LOGS"); logs != "" {
		err := ingest.Build(context.Background(), ingest.Config{Paths: []string{logs}, Out: os.Getenv("EMPTIES_SERVE_TEST_INGEST_OUT")})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	var err error
	if scratch, err = os.MkdirTemp("", "empties-serve-test-"); err != nil {
		panic(err)
	}
	code := m.Run()
	os.RemoveAll(scratch)
	os.Exit(code)
}

func fixtures(t testing.TB) string { return dataset(t, testutil.Path(t, "testdata", "logs")) }
func wild(t testing.TB) string     { return dataset(t, filepath.Join(testutil.WildCorpus(t), "logs")) }

// server starts a server over dir behind an httptest server.
func server(t testing.TB, opts serve.Options) (*serve.Server, *httptest.Server) {
	t.Helper()
	if opts.Report == nil {
		opts.Report = report.Write
	}
	s, err := serve.New(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() {
		hs.Close()
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, hs
}

func get(t testing.TB, c *http.Client, u string) (int, string) {
	t.Helper()
	if c == nil {
		c = http.DefaultClient
	}
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

func page(t testing.TB, base, path string) string {
	t.Helper()
	code, body := get(t, nil, base+path)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d\n%.2000s", path, code, body)
	}
	return body
}

var totalRe = regexp.MustCompile(`<strong>([0-9,]+)</strong> replies match`)

func total(t testing.TB, body string) int {
	t.Helper()
	m := totalRe.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no total on the page:\n%.3000s", body)
	}
	n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
	return n
}

// facetCounts reads one facet's values and counts from a browser page.
func facetCounts(t testing.TB, body, key string) map[string]int {
	t.Helper()
	i := strings.Index(body, `data-facet="`+key+`"`)
	if i < 0 {
		t.Fatalf("no facet %s on the page", key)
	}
	sec := body[i:]
	sec = sec[:strings.Index(sec, "</section>")]
	out := map[string]int{}
	re := regexp.MustCompile(`data-value="([^"]*)"[^>]*>(?:<span class="dot"[^>]*></span>)?<span class="v[^"]*">[^<]*</span><span class="n">([0-9,]+)</span>`)
	for _, m := range re.FindAllStringSubmatch(sec, -1) {
		n, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
		out[unescape(m[1])] = n
	}
	return out
}

func unescape(s string) string {
	r := strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&#34;", `"`, "&#39;", "'", "&quot;", `"`)
	return r.Replace(s)
}

// sqlCounts is an independent count of the same thing, in SQL over the
// dataset's views.
func sqlCounts(t testing.TB, dir, col, where string) map[string]int {
	t.Helper()
	out := map[string]int{}
	q := "SELECT coalesce(CAST(" + col + " AS VARCHAR), '(none)'), count(*) FROM replies r JOIN logs l USING (log_id)"
	if where != "" {
		q += " WHERE " + where
	}
	for _, r := range testutil.Query(t, dir, q+" GROUP BY 1") {
		n, _ := strconv.Atoi(r[1])
		out[r[0]] = n
	}
	return out
}

func sameCounts(t testing.TB, what string, got, want map[string]int) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("%s: the page counts %v, SQL counts %v", what, got, want)
	}
}

// The browser's totals and facet counts are the replies an independent
// query counts, for filters of one facet, of several, of several values of
// one facet, of NULL, and with a text search; a facet's counts leave its own
// filter out. Superseded logs are left out unless chosen.
func TestBrowserCountsMatchSQL(t *testing.T) {
	dir := wild(t)
	_, hs := server(t, serve.Options{Data: dir, Loopback: false})
	counted := "l.set_status = 'counted'"
	for _, c := range []struct {
		name, query, where string
		facets             map[string]string // facet key → column, counted under the other filters
	}{
		{"none", "", counted, map[string]string{"class": "r.class", "model": "r.model", "stop_reason": "r.stop_reason"}},
		{"class", "class=tool_only", counted + " AND r.class = 'tool_only'", map[string]string{"task": "r.task", "model": "r.model"}},
		{"class×task×model", "class=answer&task=inspect_evals/gpqa_diamond&model=openai/gpt-4o",
			counted + " AND r.class = 'answer' AND r.task = 'inspect_evals/gpqa_diamond' AND r.model = 'openai/gpt-4o'", nil},
		{"two classes", "class=error&class=truncated_empty", counted + " AND r.class IN ('error', 'truncated_empty')",
			map[string]string{"model": "r.model"}},
		{"null stop reason", "null=stop_reason", counted + " AND r.stop_reason IS NULL", map[string]string{"class": "r.class"}},
		{"two facets, one chosen twice", "model=openai/gpt-4o&model=openai/gpt-4o-mini&stop_reason=stop",
			counted + " AND r.model IN ('openai/gpt-4o', 'openai/gpt-4o-mini') AND r.stop_reason = 'stop'", map[string]string{"task": "r.task", "class": "r.class"}},
		{"text", "q=PASSWORD", counted + " AND (r.text ILIKE '%password%' OR r.reasoning_text ILIKE '%password%')", map[string]string{"class": "r.class"}},
		{"every log set", "set=counted&set=superseded", "", map[string]string{"class": "r.class"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := page(t, hs.URL, "/replies?"+c.query)
			want := 0
			for _, n := range sqlCounts(t, dir, "1", c.where) {
				want += n
			}
			if got := total(t, body); got != want || want == 0 {
				t.Errorf("total %d, SQL counts %d", got, want)
			}
			for key, col := range c.facets { // facets the case does not filter
				sameCounts(t, "facet "+key, facetCounts(t, body, key), sqlCounts(t, dir, col, c.where))
			}
		})
	}
	// The other filters, each on its rarest value in the corpus (the wild
	// logs have no stop_details: its null is chosen).
	for key, col := range map[string]string{"non_answer": "CAST(r.non_answer AS VARCHAR)", "stop_category": "r.stop_details_category",
		"source": "r.reply_source", "log": "r.log_id"} {
		query, where := url.Values{"null": {key}}, counted+" AND "+col+" IS NULL"
		if vals := testutil.Query(t, dir, "SELECT "+col+" FROM replies r JOIN logs l USING (log_id) WHERE "+counted+" AND "+col+" IS NOT NULL GROUP BY 1 ORDER BY count(*), 1 LIMIT 1"); len(vals) > 0 {
			query, where = url.Values{key: {vals[0][0]}}, counted+" AND "+col+" = '"+strings.ReplaceAll(vals[0][0], "'", "''")+"'"
		} else if key != "stop_category" {
			t.Errorf("%s: the corpus holds no value of %s", key, col)
		}
		body := page(t, hs.URL, "/replies?"+query.Encode())
		want := 0
		for _, n := range sqlCounts(t, dir, "1", where) {
			want += n
		}
		if got := total(t, body); got != want || want == 0 {
			t.Errorf("%s: total %d, SQL counts %d", query.Encode(), got, want)
		}
		sameCounts(t, query.Encode()+": facet class", facetCounts(t, body, "class"), sqlCounts(t, dir, "r.class", where))
	}
	// The summary's non-answers and replies with none, under a filter.
	body := page(t, hs.URL, "/replies?model=openai/gpt-4o-mini")
	want := testutil.Query(t, dir, `SELECT count(*) FILTER (r.non_answer), count(*) FILTER (r.class IN ('error', 'no_choices')) FROM replies r JOIN logs l USING (log_id)
		WHERE l.set_status = 'counted' AND r.model = 'openai/gpt-4o-mini'`)[0]
	if m := regexp.MustCompile(`replies match: ([0-9,]+) non-answers \([0-9.]+%\), ([0-9,]+) with no reply`).FindStringSubmatch(body); m == nil || m[1] != want[0] || m[2] != want[1] {
		t.Errorf("the summary says %v, SQL counts %v non-answers and %v with no reply", m, want[0], want[1])
	}
	// A chosen facet keeps its other values, counted without it.
	body = page(t, hs.URL, "/replies?class=tool_only")
	sameCounts(t, "the chosen facet class", facetCounts(t, body, "class"), sqlCounts(t, dir, "r.class", counted))
}

var rowRe = regexp.MustCompile(`<a class="open" href="/sample\?epoch=(\d+)&amp;from=[^"]*&amp;id=([^"&]*)&amp;log=([0-9a-f]+)"`)

// rowKeys lists the page's rows as log/id/epoch.
// A value's cell in the SQL box's result (sql.html), whatever its
// alignment (<td> or, in a column of numbers, <td class="n">).
const cellOpen, cellClose = `><div class="c s">`, `</div></td>`

func rowKeys(body string) []string {
	var out []string
	for _, m := range rowRe.FindAllStringSubmatch(body, -1) {
		id, _ := url.QueryUnescape(unescape(m[2]))
		out = append(out, m[3]+"/"+id+"/"+m[1])
	}
	return out
}

// Pages cover the rows a filter keeps once each, in the order asked for.
func TestBrowserPagesAndSorts(t *testing.T) {
	dir := wild(t)
	_, hs := server(t, serve.Options{Data: dir, Loopback: false})
	// The default order: class in rule order, task, model, log path, sample
	// id (numbers as numbers), epoch.
	var order []string
	for i, c := range classify.Classes() {
		order = append(order, fmt.Sprintf("WHEN '%s' THEN %d", c, i))
	}
	var want []string
	for _, r := range testutil.Query(t, dir, `SELECT r.log_id || '/' || r.sample_id || '/' || r.epoch FROM replies r JOIN logs l USING (log_id)
		WHERE l.set_status = 'counted' AND r.model = 'openai/gpt-4o-mini'
		ORDER BY CASE r.class `+strings.Join(order, " ")+` END, r.task, r.model, l.path, TRY_CAST(r.sample_id AS HUGEINT) NULLS LAST, r.sample_id, r.epoch`) {
		want = append(want, r[0])
	}
	if len(want) < 30 {
		t.Fatalf("%d replies of the model: too few for paging", len(want))
	}
	var got []string
	for p := 1; ; p++ {
		keys := rowKeys(page(t, hs.URL, fmt.Sprintf("/replies?model=openai/gpt-4o-mini&n=25&page=%d", p)))
		if len(keys) == 0 {
			break
		}
		got = append(got, keys...)
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the pages hold %d rows in another order than SQL's default order of the model's %d replies", len(got), len(want))
	}

	// Sorted by text length, longest first: the page's lengths do not grow.
	keys := rowKeys(page(t, hs.URL, "/replies?sort=chars&dir=desc&n=100"))
	lengths := map[string]int{}
	for _, r := range testutil.Query(t, dir, "SELECT log_id || '/' || sample_id || '/' || epoch, text_chars FROM replies") {
		lengths[r[0]], _ = strconv.Atoi(r[1])
	}
	for i := 1; i < len(keys); i++ {
		if lengths[keys[i]] > lengths[keys[i-1]] {
			t.Fatalf("sorted by length, row %d (%d chars) follows a shorter one (%d)", i, lengths[keys[i]], lengths[keys[i-1]])
		}
	}
	if len(keys) != 100 {
		t.Errorf("%d rows on a page of 100", len(keys))
	}
	// The default order puts the classes in rule order: error first.
	first := rowKeys(page(t, hs.URL, "/replies?n=3"))
	if len(first) == 0 || lengths[first[0]] < 0 {
		t.Fatal("no rows")
	}
	if r := testutil.Query(t, dir, "SELECT class FROM replies WHERE log_id || '/' || sample_id || '/' || epoch = ?", first[0]); r[0][0] != "error" {
		t.Errorf("the first row is of class %s, want error (rule order)", r[0][0])
	}
}

// The sample page tells the whole story from the log: a retried attempt
// marked and skipped, the reply chosen with its text, the prompt, the judge
// call and the score; attachment refs resolved.
func TestSamplePage(t *testing.T) {
	dir := fixtures(t)
	_, hs := server(t, serve.Options{Data: dir, Loopback: false})
	find := func(file, id string) (string, string) {
		r := testutil.Query(t, dir, "SELECT log_id, text FROM replies JOIN logs USING (log_id) WHERE path LIKE '%/' || ? AND sample_id = ?", file, id)
		if len(r) != 1 {
			t.Fatalf("%s sample %s: %d rows", file, id, len(r))
		}
		return r[0][0], r[0][1]
	}
	open := func(file, id string) string {
		log, _ := find(file, id)
		return page(t, hs.URL, "/sample?"+url.Values{"log": {log}, "id": {id}, "epoch": {"1"}}.Encode())
	}

	body := open("retry-first-attempt.eval", "1")
	if !strings.Contains(body, `data-status="retried"`) || !strings.Contains(body, "skipped: a failed attempt that inspect") {
		t.Errorf("retry-first-attempt.eval sample 1: the retried attempt is not marked skipped:\n%.4000s", body)
	}
	if !strings.Contains(body, `class="call completed chosen"`) || !strings.Contains(body, `<span class="mark">the reply</span>`) {
		t.Errorf("retry-first-attempt.eval sample 1: no call marked as the reply")
	}
	_, text := find("retry-first-attempt.eval", "1")
	if text == "" || !strings.Contains(reply(body), htmlEscape(text)) {
		t.Errorf("the reply section does not hold the reply's text %q:\n%.2000s", text, reply(body))
	}

	body = open("grader-role.eval", "1")
	if !strings.Contains(body, `id="call-`) || !strings.Contains(scores(body), "judge's reply:") || !strings.Contains(scores(body), "role grader") {
		t.Errorf("grader-role.eval sample 1: no judge call under the scores:\n%.3000s", scores(body))
	}
	if !strings.Contains(scores(body), "what the judge was sent") {
		t.Errorf("grader-role.eval sample 1: the judge's prompt is not shown")
	}

	body = open("attachments.eval", "1")
	if strings.Contains(body, "attachment://") {
		t.Errorf("attachments.eval: an attachment ref is shown unresolved")
	}
	_, text = find("attachments.eval", "1")
	if !strings.Contains(reply(body), htmlEscape(text[:60])) {
		t.Errorf("attachments.eval: the reply's text (from an attachment) is not shown")
	}

	body = open("reasoning.eval", "3")
	if !strings.Contains(reply(body), "reasoning") || !strings.Contains(body, "truncated_empty") {
		t.Errorf("reasoning.eval sample 3: no reasoning in the reply or no class")
	}
	body = open("sample-error.eval", "2")
	if !strings.Contains(body, "sample error") || !strings.Contains(body, "RuntimeError") {
		t.Errorf("sample-error.eval sample 2: the sample's error is not shown")
	}
	body = open("output-without-call.eval", "1")
	if !strings.Contains(body, "sample.output") || !strings.Contains(reply(body), `class="output"`) {
		t.Errorf("output-without-call.eval: the reply from sample.output is not shown:\n%.3000s", reply(body))
	}
	// A .json log's sample is read by its offset.
	log, _ := find("string-ids.json", "a")
	body = page(t, hs.URL, "/sample?"+url.Values{"log": {log}, "id": {"a"}, "epoch": {"1"}}.Encode())
	if strings.Contains(body, `id="log-error"`) || !strings.Contains(body, `class="output"`) {
		t.Errorf("string-ids.json sample a: not decoded:\n%.3000s", body)
	}
	// The raw member is what the log holds.
	code, raw := get(t, nil, hs.URL+"/sample.json?"+url.Values{"log": {log}, "id": {"a"}, "epoch": {"1"}}.Encode())
	if code != 200 || !strings.HasPrefix(strings.TrimSpace(raw), "{") || !strings.Contains(raw, `"id"`) {
		t.Errorf("sample.json: %d %.200s", code, raw)
	}
	if code, _ := get(t, nil, hs.URL+"/sample?log=nope&id=1&epoch=1"); code != http.StatusNotFound {
		t.Errorf("an unknown sample: %d, want 404", code)
	}
}

func section(body, id string) string {
	i := strings.Index(body, `<section id="`+id+`">`)
	if i < 0 {
		return ""
	}
	s := body[i:]
	if j := strings.Index(s, "</section>"); j >= 0 {
		s = s[:j]
	}
	return s
}

func reply(body string) string  { return section(body, "reply") }
func scores(body string) string { return section(body, "scores") }

func htmlEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;").Replace(s)
}

// The SQL box refuses every statement that writes, and runs what reads;
// after all of it, every byte of the dataset is as it was.
func TestSQLBoxIsReadOnly(t *testing.T) {
	dir := t.TempDir()
	writeDataset(t, testutil.Path(t, "testdata", "logs"), dir)
	before := testutil.TreeSum(t, dir)
	gen, err := store.Current(dir)
	if err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(gen, "replies", "part-00000.parquet")
	_, hs := server(t, serve.Options{Data: dir, Loopback: false, SQL: true})
	refused := []string{
		"COPY (SELECT * FROM replies LIMIT 1) TO '" + part + "'",
		"COPY (SELECT 1) TO '" + filepath.Join(gen, "x.csv") + "'",
		"COPY replies TO '" + filepath.Join(t.TempDir(), "out.parquet") + "'",
		"ATTACH '" + filepath.Join(gen, "empties.duckdb") + "' AS v",
		"CREATE TABLE t AS SELECT 1",
		"CREATE OR REPLACE VIEW replies AS SELECT 1",
		"DROP VIEW replies",
		"INSERT INTO empties_serve.replies_index SELECT * FROM empties_serve.replies_index",
		"DELETE FROM empties_serve.replies_index",
		"SET enable_external_access = true",
		"SET lock_configuration = false",
		"PRAGMA enable_profiling",
		"CALL pragma_version()",
		"EXPORT DATABASE '" + filepath.Join(gen, "export") + "'",
		"LOAD httpfs",
		"INSTALL httpfs",
		"SELECT 1; COPY (SELECT 1) TO '" + filepath.Join(gen, "y.csv") + "'",
		"EXPLAIN ANALYZE COPY (SELECT 1) TO '" + filepath.Join(gen, "z.csv") + "'",
		"PIVOT replies ON class USING count(*)",
		"CHECKPOINT",
		"DETACH empties_serve",
		"BEGIN TRANSACTION",
		"PRAGMA table_info('replies')",
		"SELECT * FROM dbgen(sf = 0.01)",
		"SELECT * FROM checkpoint()",
		"WITH c AS (FROM force_checkpoint()) SELECT * FROM c",
		"SELECT (SELECT count(*) FROM enable_logging(storage = 'file', storage_path = '" + filepath.Join(gen, "log") + "'))",
		"SELECT * FROM query('SELECT 42')",
		"SELECT * FROM query('COPY (SELECT 1) TO ''" + filepath.Join(gen, "q.csv") + "''')",
		"SELECT * FROM enable_profiling(save_location = '" + filepath.Join(gen, "prof.txt") + "')",
		"SELECT * FROM register_external_resource('duckdb', 'x', MAP{}, uri := '" + filepath.Join(gen, "x.duckdb") + "', attached_db_type := 'duckdb')",
		"EXPLAIN SELECT * FROM checkpoint()",
	}
	for _, q := range refused {
		body := page(t, hs.URL, "/sql?"+url.Values{"q": {q}}.Encode())
		if !strings.Contains(body, `id="sql-error"`) || !strings.Contains(body, "Refused:") {
			t.Errorf("%s: not refused:\n%.1500s", q, body)
		}
		code, csvBody := get(t, nil, hs.URL+"/sql.csv?"+url.Values{"q": {q}}.Encode())
		if code != http.StatusForbidden {
			t.Errorf("%s as CSV: %d, want 403: %.300s", q, code, csvBody)
		}
	}
	// What reads runs, unless it reads outside the generation.
	for _, q := range []string{
		"SELECT count(*) FROM replies", "DESCRIBE replies", "SHOW TABLES", "SUMMARIZE logs", "FROM replies LIMIT 3", "VALUES (1), (2)",
		"SELECT * FROM read_parquet('" + filepath.Join(gen, "logs", "*.parquet") + "')", "FROM query_table('logs')",
		"SELECT * FROM duckdb_tables()", "-- a comment\nSELECT 1;", "EXPLAIN SELECT * FROM replies", "EXPLAIN ANALYZE SELECT count(*) FROM replies",
		"SELECT value_json, timestamp FROM scores, model_calls LIMIT 3",
	} {
		body := page(t, hs.URL, "/sql?"+url.Values{"q": {q}}.Encode())
		if strings.Contains(body, `id="sql-error"`) || !strings.Contains(body, `id="sql-result"`) {
			t.Errorf("%s: refused or no result:\n%.1500s", q, body)
		}
	}
	for _, q := range []string{"SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM '/etc/passwd'", "SELEC 1"} {
		body := page(t, hs.URL, "/sql?"+url.Values{"q": {q}}.Encode())
		if !strings.Contains(body, `id="sql-error"`) {
			t.Errorf("%s: ran", q)
		}
	}
	if got := testutil.TreeSum(t, dir); got != before {
		t.Errorf("the dataset changed:\nbefore:\n%s\nafter:\n%s", before, got)
	}

	// Typed columns print as DuckDB prints them: a JSON value as its text
	// (not decoded by the driver), a time with its zone, in UTC.
	for q, want := range map[string]string{
		"SELECT value_json FROM scores WHERE value_json IS NOT NULL ORDER BY 1 DESC LIMIT 1": "SELECT CAST(value_json AS VARCHAR) FROM scores WHERE value_json IS NOT NULL ORDER BY 1 DESC LIMIT 1",
		"SELECT timestamp FROM model_calls WHERE timestamp IS NOT NULL ORDER BY 1 LIMIT 1":   "SELECT strftime(timestamp AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S') FROM model_calls WHERE timestamp IS NOT NULL ORDER BY 1 LIMIT 1",
	} {
		cell := testutil.Query(t, dir, want)[0][0]
		body := page(t, hs.URL, "/sql?"+url.Values{"q": {q}}.Encode())
		if !strings.Contains(body, cellOpen+htmlEscape(cell)) {
			t.Errorf("%s: the cell is not %q:\n%.1500s", q, cell, body)
		}
		if strings.Contains(q, "timestamp") && !strings.Contains(body, "&#43;00"+cellClose) {
			t.Errorf("%s: no UTC offset after %q:\n%.1500s", q, cell, body)
		}
	}

	// Results page and export: the whole result as CSV, paged on screen.
	body := page(t, hs.URL, "/sql?"+url.Values{"q": {"SELECT range AS i FROM range(250)"}, "page": {"2"}}.Encode())
	if !strings.Contains(body, "rows 101–200") || !strings.Contains(body, cellOpen+"100"+cellClose) || strings.Contains(body, cellOpen+"99"+cellClose) || strings.Contains(body, cellOpen+"200"+cellClose) {
		t.Errorf("page 2 of 250 rows:\n%.2000s", body)
	}
	code, csvBody := get(t, nil, hs.URL+"/sql.csv?"+url.Values{"q": {"SELECT class, count(*) AS n FROM replies GROUP BY ALL ORDER BY class"}}.Encode())
	recs, err := csv.NewReader(strings.NewReader(csvBody)).ReadAll()
	if code != 200 || err != nil {
		t.Fatalf("CSV: %d %v", code, err)
	}
	want := testutil.Query(t, dir, "SELECT class, count(*) AS n FROM replies GROUP BY ALL ORDER BY class")
	if fmt.Sprint(recs[1:]) != fmt.Sprint(want) || strings.Join(recs[0], ",") != "class,n" {
		t.Errorf("CSV %v, SQL %v", recs, want)
	}
}

// A query reads none of the server's open descriptors: /dev/fd/N (and
// /proc/self/fd/N) of a pipe the process holds, here one holding a secret,
// is refused, where DuckDB read it when /dev/fd/ was allowed for
// CopySelect's pipes. Results still stream out (page and CSV) through
// CopySelect's named pipe, whose folder is gone once the query is done.
func TestSQLBoxReadsNoDescriptor(t *testing.T) {
	dir := t.TempDir()
	writeDataset(t, testutil.Path(t, "testdata", "logs"), dir)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp) // the server's scratch, where the pipes are made
	_, hs := server(t, serve.Options{Data: dir, Loopback: false, SQL: true})
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	if _, err := pw.WriteString("the-secret,1\n"); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	for _, q := range []string{
		fmt.Sprintf("SELECT * FROM read_text('/dev/fd/%d')", pr.Fd()),
		fmt.Sprintf("SELECT * FROM read_csv('/dev/fd/%d', header = false)", pr.Fd()),
		fmt.Sprintf("SELECT * FROM read_blob('/dev/fd/%d')", pr.Fd()),
		fmt.Sprintf("SELECT * FROM read_text('/proc/self/fd/%d')", pr.Fd()),
		"SELECT * FROM read_csv('/dev/fd/0')",
		"SELECT * FROM read_text('/dev/stdin')",
	} {
		body := page(t, hs.URL, "/sql?"+url.Values{"q": {q}}.Encode())
		if !strings.Contains(body, `id="sql-error"`) || !strings.Contains(body, "Permission Error") || strings.Contains(body, "the-secret") {
			t.Errorf("%s: not refused:\n%.1500s", q, body)
		}
		code, csvBody := get(t, nil, hs.URL+"/sql.csv?"+url.Values{"q": {q}}.Encode())
		if code == http.StatusOK || strings.Contains(csvBody, "the-secret") {
			t.Errorf("%s as CSV: %d, want an error: %.300s", q, code, csvBody)
		}
	}
	body := page(t, hs.URL, "/sql?"+url.Values{"q": {"SELECT range AS i FROM range(250)"}, "page": {"3"}}.Encode())
	if !strings.Contains(body, "rows 201–250") || !strings.Contains(body, cellOpen+"249"+cellClose) {
		t.Errorf("page 3 of 250 rows:\n%.2000s", body)
	}
	q := "SELECT log_id, sample_id, epoch, class FROM replies ORDER BY ALL"
	code, csvBody := get(t, nil, hs.URL+"/sql.csv?"+url.Values{"q": {q}}.Encode())
	recs, err := csv.NewReader(strings.NewReader(csvBody)).ReadAll()
	if code != http.StatusOK || err != nil {
		t.Fatalf("CSV: %d %v", code, err)
	}
	if want := testutil.Query(t, dir, q); len(want) == 0 || fmt.Sprint(recs[1:]) != fmt.Sprint(want) {
		t.Errorf("CSV %v, SQL %v", recs, want)
	}
	var pipes []string
	filepath.WalkDir(tmp, func(p string, e fs.DirEntry, err error) error {
		if err == nil && (strings.Contains(e.Name(), ".copy.") || e.Type()&fs.ModeNamedPipe != 0) {
			pipes = append(pipes, p)
		}
		return nil
	})
	if len(pipes) > 0 {
		t.Errorf("the queries' pipes are left: %v", pipes)
	}
}

// Off loopback the server asks for its token: without it nothing answers,
// with it once the cookie carries it. On loopback a request naming another
// host is refused. The SQL box answers only when on.
func TestTokenAndHosts(t *testing.T) {
	dir := fixtures(t)
	_, hs := server(t, serve.Options{Data: dir, Token: "s3cret-token"})
	for _, p := range []string{"/", "/replies", "/sql?q=SELECT+1", "/assets/style.css"} {
		code, body := get(t, nil, hs.URL+p)
		if code != http.StatusUnauthorized || !strings.Contains(body, "needs its token") {
			t.Errorf("%s without the token: %d %.100s", p, code, body)
		}
	}
	if code, _ := get(t, nil, hs.URL+"/replies?token=wrong"); code != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d", code)
	}
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar}
	code, body := get(t, c, hs.URL+"/replies?token=s3cret-token&class=answer")
	if code != 200 || !strings.Contains(body, "replies match") {
		t.Fatalf("with the token: %d %.300s", code, body)
	}
	if strings.Contains(body, "s3cret-token") {
		t.Errorf("the page repeats the token (it is in a cookie, and left out of links)")
	}
	if code, _ := get(t, c, hs.URL+"/replies"); code != 200 {
		t.Errorf("with the cookie: %d", code)
	}
	if code, body := get(t, c, hs.URL+"/sql?q=SELECT+1"); code != http.StatusForbidden || !strings.Contains(body, "--sql") {
		t.Errorf("the SQL box off: %d %.200s", code, body)
	}

	_, lo := server(t, serve.Options{Data: dir, Loopback: true})
	req, _ := http.NewRequest("GET", lo.URL+"/replies", nil)
	req.Host = "attacker.example:80"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a request to another host name: %d, want 403", resp.StatusCode)
	}
	if code, _ := get(t, nil, lo.URL+"/replies"); code != 200 {
		t.Errorf("loopback: %d", code)
	}
	// A form of another site cannot switch generations.
	req, _ = http.NewRequest("POST", lo.URL+"/switch", strings.NewReader("back=/"))
	req.Header.Set("Origin", "http://attacker.example")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a cross-site POST: %d, want 403", resp.StatusCode)
	}
}

// A server reads the generation it pinned: an ingest that adds a log
// meanwhile is not seen (and its commit cannot remove the pinned
// generation), the pages offer the newer one, and a switch shows it and
// lets the next commit remove the old one.
func TestNewerGeneration(t *testing.T) {
	logs := t.TempDir()
	for _, f := range []string{"zstd-basic.eval", "epochs.eval"} {
		testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", f), filepath.Join(logs, f))
	}
	dir := t.TempDir()
	run := func() { ingestElsewhere(t, logs, dir) }
	run()
	s, hs := server(t, serve.Options{Data: dir, Poll: 20 * time.Millisecond})
	first := s.Generation()
	oldRoot, _ := store.Current(dir)
	if n := total(t, page(t, hs.URL, "/replies")); n != 9 {
		t.Fatalf("%d replies, want 9", n)
	}
	testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", "grader-role.eval"), filepath.Join(logs, "grader-role.eval"))
	run()
	if _, err := os.Stat(oldRoot); err != nil {
		t.Fatalf("the commit removed the generation the server reads: %v", err)
	}
	var body string
	for range 200 {
		body = page(t, hs.URL, "/replies")
		if strings.Contains(body, `id="newer-generation"`) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(body, `id="newer-generation"`) {
		t.Fatal("no banner for the newer generation")
	}
	if n := total(t, body); n != 9 {
		t.Errorf("before the switch the page shows %d replies, want the pinned generation's 9", n)
	}
	if n := total(t, page(t, hs.URL, "/replies?class=answer")); n > 9 {
		t.Errorf("a filtered page reads the newer generation: %d", n)
	}
	resp, err := http.PostForm(hs.URL+"/switch", url.Values{"back": {"/replies?class=answer"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Request.URL.RequestURI() != "/replies?class=answer" {
		t.Fatalf("switch: %d at %s", resp.StatusCode, resp.Request.URL)
	}
	if s.Generation() <= first || strings.Contains(string(b), `id="newer-generation"`) {
		t.Errorf("after the switch: generation %d (was %d), banner still shown", s.Generation(), first)
	}
	if n := total(t, page(t, hs.URL, "/replies")); n != 12 {
		t.Errorf("after the switch %d replies, want 12", n)
	}
	// The old generation is no longer pinned: the next commit removes it.
	time.Sleep(50 * time.Millisecond)
	os.Remove(filepath.Join(logs, "epochs.eval"))
	run()
	if _, err := os.Stat(oldRoot); !os.IsNotExist(err) {
		t.Errorf("the generation the server left is still there (%v): still pinned?", err)
	}
}

// ingestElsewhere ingests logs into dir in another process, as a user's
// ingest beside a running server is.
func ingestElsewhere(t *testing.T, logs, dir string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "EMPTIES_SERVE_TEST_INGEST_LOGS="+logs, "EMPTIES_SERVE_TEST_INGEST_OUT="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ingest in another process: %v\n%s", err, out)
	}
}

// Serving writes nothing into the dataset, whatever is asked, and leaves no
// file behind when it stops.
func TestServeWritesNothing(t *testing.T) {
	dir := t.TempDir()
	writeDataset(t, testutil.Path(t, "testdata", "logs"), dir)
	before := testutil.TreeSum(t, dir)
	wd, _ := os.Getwd()
	gen, _ := store.Current(dir)
	// DuckDB's default spill folder is .tmp under the working directory.
	if err := os.Chdir(gen); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	s, err := serve.New(context.Background(), serve.Options{Data: dir, SQL: true, Report: report.Write})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	for _, p := range []string{"/", "/report/tables/log_accounting.csv", "/replies", "/replies?q=the&sort=chars", "/replies?class=error",
		"/sql?q=" + url.QueryEscape("SELECT * FROM replies ORDER BY text DESC"), "/sql.csv?q=" + url.QueryEscape("SELECT * FROM model_calls")} {
		page(t, hs.URL, p)
	}
	for _, r := range testutil.Query(t, dir, "SELECT log_id, sample_id, epoch FROM replies LIMIT 20") {
		page(t, hs.URL, "/sample?"+url.Values{"log": {r[0]}, "id": {r[1]}, "epoch": {r[2]}}.Encode())
	}
	hs.Close()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := testutil.TreeSum(t, dir); got != before {
		t.Errorf("the dataset changed:\nbefore:\n%s\nafter:\n%s", before, got)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the server left files in its temporary folder: %v", left)
	}
}

// The report page is the report stage's, with the server's bar; its files
// are served beside it.
func TestReportPage(t *testing.T) {
	dir := wild(t)
	_, hs := server(t, serve.Options{Data: dir})
	body := page(t, hs.URL, "/")
	if !strings.Contains(body, "Empty responses: exploration report") || !strings.Contains(body, `class="es-bar"`) {
		t.Errorf("the report page:\n%.1500s", body)
	}
	csvBody := page(t, hs.URL, "/report/tables/non_answer_rates.csv")
	if !strings.HasPrefix(csvBody, "eval,") && !strings.Contains(strings.SplitN(csvBody, "\n", 2)[0], "non_answer_rate") {
		t.Errorf("non_answer_rates.csv: %.200s", csvBody)
	}
	if code, _ := get(t, nil, hs.URL+"/report/../../../../etc/passwd"); code == 200 {
		t.Errorf("a path out of the report folder is served")
	}
}

// A log rewritten since it was ingested is read and said to have changed; a
// log gone shows the tables' rows and says why the rest is missing.
func TestSampleOfAChangedLog(t *testing.T) {
	logs := t.TempDir()
	log := filepath.Join(logs, "zstd-basic.eval")
	testutil.CopyFile(t, testutil.Path(t, "testdata", "logs", "zstd-basic.eval"), log)
	dir := t.TempDir()
	writeDataset(t, logs, dir)
	_, hs := server(t, serve.Options{Data: dir})
	r := testutil.Query(t, dir, "SELECT log_id, text FROM replies WHERE sample_id = '1'")[0]
	u := "/sample?" + url.Values{"log": {r[0]}, "id": {"1"}, "epoch": {"1"}}.Encode()
	if body := page(t, hs.URL, u); strings.Contains(body, `class="warn"`) || strings.Contains(body, `id="log-error"`) {
		t.Fatalf("the log as ingested is said to be changed or unreadable")
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(log, later, later); err != nil {
		t.Fatal(err)
	}
	if body := page(t, hs.URL, u); !strings.Contains(body, "the log file changed since it was ingested") || !strings.Contains(reply(body), htmlEscape(r[1])) {
		t.Errorf("a touched log: no warning, or no reply")
	}
	if err := os.Remove(log); err != nil {
		t.Fatal(err)
	}
	body := page(t, hs.URL, u)
	if !strings.Contains(body, `id="log-error"`) || !strings.Contains(body, "no such file") || !strings.Contains(reply(body), htmlEscape(r[1])) {
		t.Errorf("a log gone: the page does not say so, or lost the table's text:\n%.2500s", body)
	}
}

// Every turn on the pages (testdata/turns: the real tool loop and react
// agent): the final class facet counts what SQL counts, alone and under a
// class filter, and filters; a sample's calls each show their own class in
// call order, the last generation marked the final reply, and the facts say
// what the final reply is; a sample of one generation says its reply is it.
func TestTurnsOnThePages(t *testing.T) {
	dir := dataset(t, testutil.Path(t, "testdata", "turns"))
	_, hs := server(t, serve.Options{Data: dir, Loopback: false})
	body := page(t, hs.URL, "/replies")
	sameCounts(t, "facet final_class", facetCounts(t, body, "final_class"), sqlCounts(t, dir, "r.final_class", ""))
	body = page(t, hs.URL, "/replies?class=tool_only")
	sameCounts(t, "facet final_class under class tool_only", facetCounts(t, body, "final_class"), sqlCounts(t, dir, "r.final_class", "r.class = 'tool_only'"))
	body = page(t, hs.URL, "/replies?final_class=silent")
	if got := total(t, body); got != 1 || !strings.Contains(body, "3 turns; final") {
		t.Errorf("final_class=silent: %d replies, want tools-then-silent's one, with its turns", got)
	}
	open := func(id string) string {
		log := testutil.Query(t, dir, "SELECT log_id FROM replies WHERE sample_id = ?", id)[0][0]
		return page(t, hs.URL, "/sample?"+url.Values{"log": {log}, "id": {id}, "epoch": {"1"}}.Encode())
	}
	idRe := regexp.MustCompile(`^ [^>]*id="call-(\d+)"`)
	badgeRe := regexp.MustCompile(`<span class="badge"[^>]*>([a-z_]+)</span>`)
	for id, want := range map[string]string{
		"react-silent-mid-turn": "0 tool_only,1 silent,2 tool_only final", "tools-then-silent": "0 tool_only,1 tool_only,2 silent final",
		"react-filtered-final": "0 tool_only,1 filtered,2 filtered,3 filtered final",
	} {
		var got []string
		for _, call := range strings.Split(section(open(id), "calls"), `<article class="call`)[1:] {
			header, _, _ := strings.Cut(call, "</header>")
			m, b := idRe.FindStringSubmatch(call), badgeRe.FindStringSubmatch(header)
			if m == nil || b == nil {
				t.Fatalf("%s: a call without an id or a class: %.300s", id, call)
			}
			c := m[1] + " " + b[1]
			if strings.Contains(header, `<span class="mark final">the final reply</span>`) {
				c += " final"
			}
			got = append(got, c)
		}
		if strings.Join(got, ",") != want {
			t.Errorf("%s: the calls show %v, want %s", id, got, want)
		}
	}
	if body := open("tools-then-silent"); !strings.Contains(body, `silent</span> by rule <code>silent@v1</code>; a non-answer: the last of <strong>3</strong> generations`) {
		t.Errorf("tools-then-silent: the facts do not name the final reply:\n%.3000s", body)
	}
	if body := open("one-turn-answer"); !strings.Contains(body, "the reply itself: the model under test's one generation") {
		t.Errorf("one-turn-answer: the facts do not say its reply is its final reply")
	}
}

// A sample's facts read as words: its tool calls "none" or their count and
// functions ("1: add", never "0 []" or a list's brackets), tools offered
// yes, no or unknown (not true or false), a call's usage as words ("usage:
// input 10 · output 5 · total 15", not JSON), tokens the log
// does not show "unknown", and max_tokens with who set it or "unset
// (provider default)", each as replies holds it.
func TestSampleFactsRead(t *testing.T) {
	dir := dataset(t, testutil.Path(t, "testdata", "turns"))
	_, hs := server(t, serve.Options{Data: dir, Loopback: false})
	rows := testutil.Query(t, dir, `SELECT log_id, sample_id, tool_call_count::VARCHAR, array_to_string(tool_call_functions, ', '),
		coalesce(output_tokens::VARCHAR, 'unknown'), coalesce(max_tokens::VARCHAR || ' (set by ' || max_tokens_source || ')', 'unset (provider default)'),
		CASE tools_offered WHEN true THEN 'yes' WHEN false THEN 'no' ELSE 'unknown (the log does not show it)' END,
		'usage: input ' || input_tokens || ' · output ' || output_tokens || ' · total ' || (input_tokens + output_tokens)
		FROM replies ORDER BY sample_id`)
	cellRe := regexp.MustCompile(`<tr><th>(tool calls|tokens)</th><td>(.*?)</td></tr>`)
	calls := 0
	for _, r := range rows {
		body := page(t, hs.URL, "/sample?"+url.Values{"log": {r[0]}, "id": {r[1]}, "epoch": {"1"}}.Encode())
		cells := map[string]string{}
		for _, m := range cellRe.FindAllStringSubmatch(body, -1) {
			cells[m[1]] = m[2]
		}
		want := "none"
		if r[2] != "0" {
			want, calls = r[2]+": "+r[3], calls+1
		}
		if want += " · tools offered: " + r[6]; cells["tool calls"] != want {
			t.Errorf("%s: tool calls %q, want %q", r[1], cells["tool calls"], want)
		}
		if !strings.Contains(body, r[7]) || strings.Contains(body, `"input_tokens"`) {
			t.Errorf("%s: the reply's call does not read %q, or shows usage as JSON", r[1], r[7])
		}
		if tok := cells["tokens"]; !strings.HasPrefix(tok, "output "+r[4]) || !strings.HasSuffix(tok, "max_tokens "+r[5]) {
			t.Errorf("%s: tokens %q, want output %s … max_tokens %s", r[1], tok, r[4], r[5])
		}
	}
	if len(rows) == 0 || calls == 0 {
		t.Errorf("%d samples, %d with tool calls: the fixture no longer has both kinds", len(rows), calls)
	}
}

// A choice's stop_details reads as words ("stop_details: type refusal,
// category cyber"), as the report's examples read it, not as JSON: every
// reply of testdata/classify with stop_details.
func TestStopDetailsRead(t *testing.T) {
	dir := dataset(t, testutil.Path(t, "testdata", "classify"))
	_, hs := server(t, serve.Options{Data: dir, Loopback: false})
	rows := testutil.Query(t, dir, `SELECT log_id, sample_id, epoch::VARCHAR, 'stop_details: type ' || stop_details_type ||
		coalesce(', category ' || stop_details_category, '') FROM replies WHERE stop_details_type IS NOT NULL AND reply_source = 'model_event'`)
	for _, r := range rows {
		body := page(t, hs.URL, "/sample?"+url.Values{"log": {r[0]}, "id": {r[1]}, "epoch": {r[2]}}.Encode())
		if !strings.Contains(body, r[3]) || strings.Contains(body, `stop_details <code>`) {
			t.Errorf("%s: the page does not read %q, or shows stop_details as JSON", r[1], r[3])
		}
	}
	if len(rows) < 2 {
		t.Errorf("%d replies with stop_details: the fixtures no longer have them", len(rows))
	}
}

// A judge inside the solver is no final reply: where the study places a log
// in an eval whose judge runs in the solver (AIR-Bench's annotate, the
// profile fixture through rescore with the study's manifest), the sample
// page says its last generation is that judge's and the study takes the
// first reply as the final one; without the manifest it says nothing of it.
func TestJudgeInTheSolverIsNoFinalReply(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir() // its own: rescore writes into it
	if err := ingest.Build(ctx, ingest.Config{Paths: []string{testutil.Path(t, "testdata", "profiles", "air_bench.eval")}, Out: dir}); err != nil {
		t.Fatal(err)
	}
	open := func(hs *httptest.Server) string {
		r := testutil.Query(t, dir, "SELECT log_id, sample_id, epoch FROM replies WHERE generations > 1 ORDER BY sample_id LIMIT 1")
		if len(r) == 0 {
			t.Fatal("the AIR-Bench fixture has no sample of two generations")
		}
		return page(t, hs.URL, "/sample?"+url.Values{"log": {r[0][0]}, "id": {r[0][1]}, "epoch": {r[0][2]}}.Encode())
	}
	const note = "Its eval's judge runs in the solver"
	_, hs := server(t, serve.Options{Data: dir, Loopback: false})
	if strings.Contains(open(hs), note) {
		t.Error("without the manifest the page says the eval's judge runs in the solver")
	}
	if _, err := study.Rescore(ctx, study.Config{Data: dir, Manifest: testutil.Path(t, "data", "study.yaml")}); err != nil {
		t.Fatal(err)
	}
	_, hs = server(t, serve.Options{Data: dir, Loopback: false})
	if !strings.Contains(open(hs), note) {
		t.Error("with the study's manifest the page does not say that AIR-Bench's last generation is its judge's")
	}
}
