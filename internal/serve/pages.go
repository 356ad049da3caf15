package serve

import (
	"bytes"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"empties/internal/classify"
	"empties/internal/duck"
	"empties/internal/errtext"
	"empties/internal/numfmt"
	"empties/internal/sqlfmt"
)

// pageData is what every page's frame (the bar) shows.
type pageData struct {
	Title   string
	Active  string // report, replies, sql
	Data    string // the dataset folder
	Gen     int
	Written string
	Newer   int    // a newer generation on disk, 0 if none
	Here    string // this page's URL, to come back to after a switch
	SQL     bool
	Elapsed string
	Body    any
	NonAns  []string
	Classes []string
}

func (s *Server) pageData(r *http.Request, g *generation, active, title string) *pageData {
	s.mu.Lock()
	newest := s.newest
	s.mu.Unlock()
	p := &pageData{Title: title, Active: active, Data: s.dir, Gen: g.Number, Written: g.Written, Here: r.URL.RequestURI(), SQL: s.opts.SQL}
	if newest > g.Number {
		p.Newer = newest
	}
	return p
}

func (s *Server) render(w http.ResponseWriter, name string, p *pageData) {
	var b bytes.Buffer
	if err := s.tmpl.ExecuteTemplate(&b, name, p); err != nil {
		http.Error(w, "rendering the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(b.Bytes())
}

func (s *Server) errorPage(w http.ResponseWriter, r *http.Request, g *generation, code int, err error) {
	p := s.pageData(r, g, "", "error")
	p.Body = err.Error()
	var b bytes.Buffer
	if terr := s.tmpl.ExecuteTemplate(&b, "error", p); terr != nil {
		http.Error(w, err.Error(), code)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(code)
	w.Write(b.Bytes())
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func boolKey(b bool) string {
	if b {
		return "\x00null"
	}
	return ""
}

// thousands renders an integer with thousands separators (sqlfmt.Thousands).
func thousands(n int64) string { return sqlfmt.Thousands(n) }

// sampleKeyOf reads a sample's key from a URL.
func sampleKeyOf(r *http.Request) (sampleKey, error) {
	q := r.URL.Query()
	epoch, err := strconv.ParseInt(q.Get("epoch"), 10, 64)
	if err != nil || q.Get("log") == "" {
		return sampleKey{}, fmt.Errorf("a sample is named by log, id and epoch: /sample?log=<log_id>&id=<sample_id>&epoch=<n>")
	}
	return sampleKey{LogID: q.Get("log"), ID: q.Get("id"), Epoch: epoch}, nil
}

// sampleView is the sample page.
type sampleView struct {
	*samplePage
	Back      string
	JSONHref  string
	SameLog   string
	SameClass string
	Skipped   int
}

func (s *Server) serveSample(w http.ResponseWriter, r *http.Request, g *generation) {
	start := time.Now()
	k, err := sampleKeyOf(r)
	if err != nil {
		s.errorPage(w, r, g, http.StatusBadRequest, err)
		return
	}
	sp, err := s.loadSample(r.Context(), g, k)
	if errors.Is(err, errNotFound) {
		s.errorPage(w, r, g, http.StatusNotFound, fmt.Errorf("no reply of sample %q epoch %d in log %s in generation %d", k.ID, k.Epoch, k.LogID, g.Number))
		return
	}
	if err != nil {
		s.errorPage(w, r, g, http.StatusInternalServerError, err)
		return
	}
	v := &sampleView{samplePage: sp, Back: "/replies"}
	if from := r.URL.Query().Get("from"); strings.HasPrefix(from, "/replies") {
		v.Back = from
	}
	v.JSONHref = "/sample.json?" + url.Values{"log": {k.LogID}, "id": {k.ID}, "epoch": {strconv.FormatInt(k.Epoch, 10)}}.Encode()
	v.SameLog = "/replies?" + url.Values{"log": {k.LogID}}.Encode()
	v.SameClass = "/replies?" + url.Values{"class": {sp.Reply.Str("class")}, "task": {sp.Reply.Str("task")}, "model": {sp.Reply.Str("model")}}.Encode()
	for _, c := range sp.Calls {
		if c.Skipped != "" {
			v.Skipped++
		}
	}
	p := s.pageData(r, g, "replies", fmt.Sprintf("sample %s epoch %d", k.ID, k.Epoch))
	p.Body = v
	p.Elapsed = time.Since(start).Round(time.Millisecond).String()
	s.render(w, "sample", p)
}

// serveSampleJSON sends the sample member as the log holds it.
func (s *Server) serveSampleJSON(w http.ResponseWriter, r *http.Request, g *generation) {
	k, err := sampleKeyOf(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	replies, err := queryRecords(r.Context(), g.db, replyQuery, k.LogID, k.ID, k.Epoch)
	l := g.logs[k.LogID]
	if err != nil || len(replies) == 0 || l == nil {
		http.Error(w, "no such sample", http.StatusNotFound)
		return
	}
	raw, _, err := s.logs.sampleBytes(r.Context(), l, replies[0].Str("member"))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(raw)
}

// sqlView is the SQL page.
type sqlView struct {
	Query    string
	Cols     []string
	Rows     [][]string
	Numeric  []bool // each column is numbers on this page (right-aligned)
	Error    string
	Refused  bool
	Held     bool // a link of another site's page: shown, not run
	Page     int
	Prev     string
	Next     string
	From     int
	CSV      string
	Tables   []string
	Examples []string
}

const sqlPageRows = 100

func (s *Server) sqlOff(w http.ResponseWriter, r *http.Request, g *generation) bool {
	if s.opts.SQL {
		return false
	}
	s.errorPage(w, r, g, http.StatusForbidden, errors.New("the SQL box is off on this server: it is on by default on loopback only; start `empties serve` with --sql to turn it on"))
	return true
}

func (s *Server) serveSQL(w http.ResponseWriter, r *http.Request, g *generation) {
	if s.sqlOff(w, r, g) {
		return
	}
	start := time.Now()
	q := r.URL.Query().Get("q")
	v := &sqlView{Query: q, Page: 1, Examples: []string{
		"SELECT class, count(*) AS n FROM replies GROUP BY ALL ORDER BY n DESC",
		"SELECT task, model, avg(non_answer::INT) AS non_answer_share, count(*) AS n FROM replies GROUP BY ALL ORDER BY non_answer_share DESC",
		"SELECT call_status, kind, count(*) FROM model_calls GROUP BY ALL",
		"DESCRIBE replies",
	}}
	for t := range g.tables {
		v.Tables = append(v.Tables, t)
	}
	slices.Sort(v.Tables)
	v.Page = pageNumber(r.URL.Query().Get("page"))
	switch {
	case strings.TrimSpace(q) == "":
	case heldQuery(r):
		v.Held = true
	default:
		s.runSQL(r, g, v)
	}
	p := s.pageData(r, g, "sql", "SQL")
	p.Body = v
	p.Elapsed = time.Since(start).Round(time.Millisecond).String()
	s.render(w, "sql", p)
}

// runSQL fills one page of the query's rows: the query, checked alone,
// runs inside SELECT * FROM (...) LIMIT/OFFSET (checked again as a whole),
// or, where DuckDB cannot take it as a subquery (an EXPLAIN), as it is,
// reading only as far as the page.
func (s *Server) runSQL(r *http.Request, g *generation, v *sqlView) {
	rd, err := g.sqlReader(r.Context(), s.opts.SQLLimits)
	if err != nil {
		v.Error = err.Error()
		return
	}
	ctx, cancel := rd.Limits.Context(r.Context())
	defer cancel()
	conn, err := rd.Conn(ctx)
	if err != nil {
		v.Error = err.Error()
		return
	}
	defer conn.Close()
	q := strings.TrimRight(strings.TrimSpace(v.Query), "; \t\n")
	if _, err := duck.CheckRead(ctx, conn, q); err != nil {
		v.Error, v.Refused = err.Error(), isRefused(err)
		return
	}
	offset := (v.Page - 1) * sqlPageRows
	skip := 0
	paged := "SELECT * FROM (\n" + q + "\n) LIMIT " + strconv.Itoa(sqlPageRows+1) + " OFFSET " + strconv.Itoa(offset)
	if _, err := duck.CheckRead(ctx, conn, paged); err != nil {
		paged, skip = q, offset
	}
	n := 0
	cols, err := readRows(ctx, conn, paged, func(_, row []string) bool {
		if skip > 0 {
			skip--
			return true
		}
		n++
		if n > sqlPageRows {
			return false
		}
		v.Rows = append(v.Rows, row)
		return true
	})
	if err != nil {
		v.Error, v.Refused = rd.Limits.Explain(ctx, err).Error(), isRefused(err)
		return
	}
	v.Cols = cols
	v.Numeric = numericColumns(len(cols), v.Rows)
	v.From = offset + 1
	base := url.Values{"q": {v.Query}}
	v.CSV = "/sql.csv?" + base.Encode()
	if v.Page > 1 {
		b := url.Values{"q": {v.Query}, "page": {strconv.Itoa(v.Page - 1)}}
		v.Prev = "/sql?" + b.Encode()
	}
	if n > sqlPageRows {
		b := url.Values{"q": {v.Query}, "page": {strconv.Itoa(v.Page + 1)}}
		v.Next = "/sql?" + b.Encode()
	}
}

// numericColumns says which columns hold numbers only, on rows (a NULL
// aside, and at least one number): the page aligns them right, as DuckDB's
// own shell does. The rows are the CSV's text, the types gone. It has an
// entry for each of the n columns and for any cell a row has past them.
func numericColumns(n int, rows [][]string) []bool {
	for _, r := range rows {
		n = max(n, len(r))
	}
	out := make([]bool, n)
	for c := range out {
		seen, all := false, true
		for _, r := range rows {
			if c >= len(r) || r[c] == "NULL" {
				continue
			}
			if _, err := strconv.ParseFloat(r[c], 64); err != nil {
				all = false
				break
			}
			seen = true
		}
		out[c] = seen && all
	}
	return out
}

// serveSQLCSV sends the whole result of a query as CSV.
func (s *Server) serveSQLCSV(w http.ResponseWriter, r *http.Request, g *generation) {
	if s.sqlOff(w, r, g) {
		return
	}
	rd, err := g.sqlReader(r.Context(), s.opts.SQLLimits)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	ctx, cancel := rd.Limits.Context(r.Context())
	defer cancel()
	conn, err := rd.Conn(ctx)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	defer conn.Close()
	q := strings.TrimRight(strings.TrimSpace(r.URL.Query().Get("q")), "; \t\n")
	started, err := writeCSV(ctx, conn, q, w)
	err = rd.Limits.Explain(ctx, err)
	switch {
	case err != nil && !started:
		code := http.StatusBadRequest
		if isRefused(err) {
			code = http.StatusForbidden
		}
		var le *duck.LimitError
		if errors.As(err, &le) {
			code = http.StatusServiceUnavailable
		}
		http.Error(w, err.Error(), code)
	case err != nil:
		// Part of the result is sent: the download must fail, not end as
		// if whole. Aborting the response cuts the connection before the
		// chunked body's end, which a browser or curl reports.
		panic(http.ErrAbortHandler)
	}
}

// parseTemplates reads the embedded templates.
func parseTemplates() (*template.Template, error) {
	funcs := template.FuncMap{
		"thousands":  thousands,
		"fold":       fold,
		"deref":      deref,
		"classColor": classColor,
		"add":        func(a, b int) int { return a + b },
		"int64":      func(n int) int64 { return int64(n) },
		"clip":       clip,
		"errtext":    errtext.Layout,
		"firstline":  errtext.FirstLine,
		"middle":     middle,
		"pct": func(a, b int64) string {
			return strconv.FormatFloat(100*float64(a)/float64(max(b, 1)), 'f', 1, 64) + "%"
		},
		"chars": func(s string) string { return thousands(int64(utf8.RuneCountInString(s))) },
		"deref64": func(p *int64) int64 {
			if p == nil {
				return 0
			}
			return *p
		},
		"splitMessages": splitMessages,
		"plural":        func(n int, word string) string { return numfmt.Plural(int64(n), word, word+"s") },
		"toolCalls":     numfmt.ToolCalls,
		"facetArgs":     func(key string, it facetItem) map[string]any { return map[string]any{"Key": key, "Item": it} },
	}
	return template.New("").Funcs(funcs).ParseFS(templateFS, "templates/*.html")
}

// folded is a long text cut for the page: Head is shown, the rest behind a
// toggle.
type folded struct {
	Head, Rest string
	Chars      int
}

const foldAt = 2000

func fold(s string) folded {
	n := utf8.RuneCountInString(s)
	if n <= foldAt+200 {
		return folded{Head: s, Chars: n}
	}
	i := 0
	for k := range s {
		if i == foldAt {
			return folded{Head: s[:k], Rest: s[k:], Chars: n}
		}
		i++
	}
	return folded{Head: s, Chars: n}
}

// classColor is the class's colour on every page, the report's too.
func classColor(class string) string {
	if c, ok := classify.Colors[class]; ok {
		return c
	}
	return "#777777"
}

// middle cuts s to n characters in the middle, keeping its start and its
// end, which is where names that share a prefix differ (two logs of one
// eval set, two bedrock models): the full text is the element's title.
func middle(s string, n int) string {
	r := []rune(s)
	if len(r) <= n || n < 5 {
		return s
	}
	head := (n - 1) / 3
	return string(r[:head]) + "…" + string(r[len(r)-(n-1-head):])
}

// clip cuts s to n characters, marking the cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// splitMessages folds the earlier messages of a long conversation: the last
// three are shown.
func splitMessages(m []messageView) struct{ Early, Late []messageView } {
	if len(m) <= 6 {
		return struct{ Early, Late []messageView }{nil, m}
	}
	return struct{ Early, Late []messageView }{m[:len(m)-3], m[len(m)-3:]}
}
