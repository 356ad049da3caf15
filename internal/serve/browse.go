package serve

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// The replies browser: every reply of the generation, filtered by facets
// (one value or several per facet; facets combine with AND), a text search
// and a sample id, sorted and paged in DuckDB, so the page carries one page
// of rows whatever the dataset's size. A facet's counts are those of the
// rows every other facet's filter selects, so a reader sees what choosing
// another value would give. Every filter is in the URL.

// facet is one filter of the browser: a column of the index (f_<key>).
type facet struct {
	Key   string // URL parameter
	Label string
	src   string // its value: SQL over r (replies), l (logs), a (log_assignments), as VARCHAR
	needs string // a table the facet needs besides replies and logs
	// def is the selection when the URL names none.
	def []string
	// Help says what the values are.
	Help string
}

var facets = []facet{
	{Key: "class", Label: "class", src: "r.class", Help: "the reply's class (first matching rule)"},
	{Key: "non_answer", Label: "non-answer", src: "CAST(r.non_answer AS VARCHAR)", Help: "the class counts as a non-answer"},
	{Key: "final_class", Label: "final class", src: "r.final_class",
		Help: "the final reply's class: the model under test's last generation, what the scorer grades (the reply itself on a sample of one generation)"},
	{Key: "task", Label: "task", src: "r.task"},
	{Key: "model", Label: "model", src: "r.model", Help: "the model under test (the route, without a manifest)"},
	{Key: "eval", Label: "eval", src: "a.eval", needs: "log_assignments", Help: "eval profile (rescore's log assignments)"},
	{Key: "route", Label: "route", src: "a.route", needs: "log_assignments"},
	{Key: "stop_reason", Label: "stop reason", src: "r.stop_reason"},
	{Key: "stop_category", Label: "stop category", src: "r.stop_details_category",
		Help: "stop_details_category: the category of the provider's own stop details (a content filter, a refusal, the token limit), where it gives them"},
	{Key: "source", Label: "reply source", src: "r.reply_source", Help: "model_event: the first completed call of the model under test; sample_output; none"},
	{Key: "skipped", Label: "attempts skipped", src: `CASE WHEN r.failed_attempts > 0 AND r.placeholders_skipped > 0 THEN 'retried and placeholders'
		WHEN r.failed_attempts > 0 THEN 'retried attempts' WHEN r.placeholders_skipped > 0 THEN 'placeholders' ELSE 'none' END`,
		Help: "calls of the model under test before the reply that were skipped"},
	{Key: "log", Label: "log", src: "r.log_id"},
	{Key: "set", Label: "log set", src: "l.set_status", def: []string{"counted"},
		Help: "superseded logs (an older attempt, a recovered copy's original, shards) are counted by no measure; shown when chosen"},
}

// activeFacets are the facets the generation's tables allow.
func activeFacets(tables map[string]bool) []facet {
	var out []facet
	for _, f := range facets {
		if f.needs == "" || tables[f.needs] {
			out = append(out, f)
		}
	}
	return out
}

// sortKey is one order of the table, over index columns.
type sortKey struct {
	Key, Label string
	cols       []string
}

var sortKeys = []sortKey{
	{"class", "class", []string{"s_class"}},
	{"task", "task", []string{"f_task"}},
	{"model", "model", []string{"f_model"}},
	{"sample", "sample", []string{"s_num", "sample_id", "epoch"}},
	{"stop", "stop reason", []string{"f_stop_reason"}},
	{"chars", "text length", []string{"s_chars"}},
	{"tokens", "output tokens", []string{"s_tokens"}},
	{"attempts", "attempts skipped", []string{"s_attempts"}},
	{"log", "log", []string{"s_log"}},
}

// defaultOrder is the order without a sort: class in rule order, task,
// model, log, sample (numbers as numbers), epoch. It is total, so pages
// neither repeat nor skip rows; the index holds its rows in it (its rowid is
// the rank), which breaks the ties of every other order.
var defaultOrder = []string{"s_class", "f_task", "f_model", "s_log", "s_num", "sample_id", "epoch"}

// filter is what a browser URL asks for.
type filter struct {
	sel     map[string][]*string // facet key → values chosen (nil: NULL)
	Q       string               // text search in the reply's text and reasoning
	ID      string               // sample id, exactly
	Sort    string
	Desc    bool
	Page    int // from 1
	PerPage int
}

const (
	defaultPerPage = 50
	maxPerPage     = 500
)

// parseFilter reads a browser URL's query.
func parseFilter(v url.Values, fs []facet) filter {
	f := filter{sel: map[string][]*string{}, Q: strings.TrimSpace(v.Get("q")), ID: strings.TrimSpace(v.Get("id")),
		Sort: v.Get("sort"), Desc: v.Get("dir") == "desc", Page: 1, PerPage: defaultPerPage}
	nulls := v["null"]
	for _, fc := range fs {
		for _, s := range v[fc.Key] {
			s := s
			if !slices.ContainsFunc(f.sel[fc.Key], func(p *string) bool { return p != nil && *p == s }) {
				f.sel[fc.Key] = append(f.sel[fc.Key], &s)
			}
		}
		if slices.Contains(nulls, fc.Key) {
			f.sel[fc.Key] = append(f.sel[fc.Key], nil)
		}
		if _, named := f.sel[fc.Key]; !named && fc.def != nil {
			for _, d := range fc.def {
				f.sel[fc.Key] = append(f.sel[fc.Key], &d)
			}
		}
	}
	if !slices.ContainsFunc(sortKeys, func(k sortKey) bool { return k.Key == f.Sort }) {
		f.Sort, f.Desc = "", false
	}
	f.Page = pageNumber(v.Get("page"))
	if n, err := strconv.Atoi(v.Get("n")); err == nil && n > 0 {
		f.PerPage = min(n, maxPerPage)
	}
	return f
}

// values renders the filter as a URL query (facets in fs's order; a
// facet's default selection is left out).
func (f filter) values(fs []facet) url.Values {
	v := url.Values{}
	for _, fc := range fs {
		vals := f.sel[fc.Key]
		if isDefault(fc, vals) {
			continue
		}
		if len(vals) == 0 && fc.def != nil {
			continue
		}
		for _, p := range vals {
			if p == nil {
				v.Add("null", fc.Key)
			} else {
				v.Add(fc.Key, *p)
			}
		}
	}
	if f.Q != "" {
		v.Set("q", f.Q)
	}
	if f.ID != "" {
		v.Set("id", f.ID)
	}
	if f.Sort != "" {
		v.Set("sort", f.Sort)
		if f.Desc {
			v.Set("dir", "desc")
		}
	}
	if f.Page > 1 {
		v.Set("page", strconv.Itoa(f.Page))
	}
	if f.PerPage != defaultPerPage {
		v.Set("n", strconv.Itoa(f.PerPage))
	}
	return v
}

func isDefault(fc facet, vals []*string) bool {
	if fc.def == nil || len(vals) != len(fc.def) {
		return false
	}
	for i, p := range vals {
		if p == nil || *p != fc.def[i] {
			return false
		}
	}
	return true
}

// with returns a copy of f with a facet value toggled, back on page 1.
func (f filter) toggle(key string, val *string) filter {
	g := f.clone()
	cur := g.sel[key]
	i := slices.IndexFunc(cur, func(p *string) bool { return (p == nil) == (val == nil) && (p == nil || *p == *val) })
	if i >= 0 {
		cur = slices.Delete(slices.Clone(cur), i, i+1)
	} else {
		cur = append(slices.Clone(cur), val)
	}
	g.sel[key] = cur
	g.Page = 1
	return g
}

func (f filter) clone() filter {
	g := f
	g.sel = map[string][]*string{}
	for k, v := range f.sel {
		g.sel[k] = slices.Clone(v)
	}
	return g
}

// where is the WHERE clause of f over the index i (and its parameters),
// for the rows of the cell set cs (a text search's matches, when it is
// one). A chosen value no row of cs has is left out, so every value compared
// with an ENUM column is one of its own; a facet whose every chosen value is
// absent keeps no row.
func (f filter) where(fs []facet, cs *cellSet) (string, []any) {
	var conds []string
	var args []any
	for i, fc := range fs {
		vals := f.sel[fc.Key]
		if len(vals) == 0 {
			continue
		}
		col := "i." + fc.col()
		var ors, in []string
		for _, p := range vals {
			if !cs.has(i, p) {
				continue
			}
			if p == nil {
				ors = append(ors, col+" IS NULL")
				continue
			}
			in = append(in, "?")
			args = append(args, *p)
		}
		if len(in) > 0 {
			ors = append(ors, col+" IN ("+strings.Join(in, ", ")+")")
		}
		if len(ors) == 0 {
			ors = []string{"false"}
		}
		conds = append(conds, "("+strings.Join(ors, " OR ")+")")
	}
	if f.ID != "" {
		conds = append(conds, "i.sample_id = ?")
		args = append(args, f.ID)
	}
	if cs.search != "" {
		conds = append(conds, "i.rowid IN (SELECT s_rank FROM "+cs.search+")")
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// orderBy is the ORDER BY of f over the index i.
func (f filter) orderBy() string {
	dir := ""
	if f.Desc {
		dir = " DESC"
	}
	for _, k := range sortKeys {
		if k.Key == f.Sort && f.Sort != "" {
			var parts []string
			for _, c := range k.cols {
				parts = append(parts, "i."+c+dir+" NULLS LAST")
			}
			return " ORDER BY " + strings.Join(parts, ", ") + ", i.rowid"
		}
	}
	return " ORDER BY i.rowid" + dir
}

// facetCount is one value of a facet with its count.
type facetCount struct {
	Value *string // nil: NULL
	Count int64
}

// browseResult is one page of the browser.
type browseResult struct {
	Total  int64
	Rows   []replyRow
	Facets map[string][]facetCount
}

// replyRow is a row of the browser's table.
type replyRow struct {
	LogID, LogPath, Task, Model, SampleID string
	Epoch                                 int64
	Class, ClassRule                      string
	NonAnswer                             bool
	FinalClass                            string // the final reply's class
	Generations                           int64
	StopReason, StopCategory              *string
	ReplySource                           string
	Text                                  string // the first characters
	TextChars, ReasoningChars             int64
	Refusal                               bool
	ToolFunctions                         []string
	SampleError, CallError, OutputError   *string
	FailedAttempts, Placeholders          int64
	OutputTokens                          *int64
}

const snippetChars = 400

// browse answers one page: the facet counts from the generation's cells
// (cells.go), the page's keys from the index, the page's rows from the
// replies.
func browse(ctx context.Context, g *generation, f filter) (*browseResult, error) {
	fs := activeFacets(g.tables)
	cs, err := g.cells(ctx, f.Q, f.ID)
	if err != nil {
		return nil, err
	}
	res := &browseResult{Facets: map[string][]facetCount{}}
	res.Total = cs.count(fs, f, res.Facets)
	for k := range res.Facets {
		sortCounts(res.Facets[k])
	}
	where, args := f.where(fs, cs)
	q := "SELECT i.row_file, i.row_number FROM " + indexTable + " i" + where + f.orderBy() + " LIMIT ? OFFSET ?"
	args = append(args, f.PerPage, (f.Page-1)*f.PerPage)
	keys, err := pageKeys(ctx, g.db, q, args)
	if err != nil {
		return nil, fmt.Errorf("replies page: %w", err)
	}
	if res.Rows, err = pageRows(ctx, g.db, g.root, keys); err != nil {
		return nil, fmt.Errorf("replies page: %w", err)
	}
	return res, nil
}
