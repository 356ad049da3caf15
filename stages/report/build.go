package report

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"empties/internal/duck"
	"empties/internal/measures"
	"empties/internal/sqlfmt"
	"empties/internal/vocab"
)

// Summary is what a build wrote.
type Summary struct {
	Tables, Charts int
}

// Build writes the report of the dataset open in db (present: its tables)
// into dir, an existing folder: index.html and index.md, tables/<name>.csv,
// .parquet and .md for every table the page lists, plots/<name>.vl.json for
// every chart. It reads only the dataset's tables and computes no statistic
// of its own, so the same tables give the same bytes; it touches nothing
// outside dir. A server builds the same page into a folder of its own.
func Build(ctx context.Context, db *sql.DB, present []string, dir string) (Summary, error) {
	queries, err := measures.LoadQueries()
	if err != nil {
		return Summary{}, err
	}
	b := &builder{ctx: ctx, db: db, queries: queries, dir: dir, have: map[string]bool{}, vocab: vocab.Export()}
	for _, t := range present {
		b.have[t] = true
	}
	b.study = b.have["log_assignments"]
	for _, d := range []string{"tables", "plots"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return Summary{}, err
		}
	}
	if err := b.readRuns(); err != nil {
		return Summary{}, err
	}
	p, err := b.page(present)
	if err != nil {
		return Summary{}, err
	}
	for _, c := range b.charts {
		spec, err := c.json()
		if err != nil {
			return Summary{}, fmt.Errorf("chart %s: %w", c.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "plots", c.name+".vl.json"), spec, 0o644); err != nil {
			return Summary{}, err
		}
	}
	md := p.markdown()
	if err := os.WriteFile(filepath.Join(dir, "index.md"), []byte(md), 0o644); err != nil {
		return Summary{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(p.htmlPage()), 0o644); err != nil {
		return Summary{}, err
	}
	return Summary{Tables: len(b.written), Charts: len(b.charts)}, nil
}

// Write builds the report of the dataset in dataDir into out, a new folder
// it creates, through a database of its own: how a server writes the page
// of each generation of its dataset into its scratch (empties serve).
func Write(ctx context.Context, dataDir, out string) error {
	db, present, err := duck.OpenDataset(ctx, dataDir)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := os.Mkdir(out, 0o755); err != nil {
		return err
	}
	_, err = Build(ctx, db, present, out)
	return err
}

// builder holds what the page is built from.
type builder struct {
	ctx     context.Context
	db      *sql.DB
	queries *measures.Queries // sql/queries/report_*.sql: every query the page runs
	dir     string
	have    map[string]bool
	study   bool // the dataset was placed in a study (rescore ran with a manifest)
	vocab   vocab.Vocabulary
	runs    map[string]analyzeRun
	charts  []*chart
	written []string // tables with files
	ids     map[string]int
	anchors map[string]int
	cells   int64 // task × model cells of the default arm (overview.n_cells)
}

// analyzeRun is a row of analyze_runs: why an output holds no rows.
type analyzeRun struct {
	status  string
	missing []string
}

func (b *builder) readRuns() error {
	b.runs = map[string]analyzeRun{}
	if !b.have["analyze_runs"] {
		return nil
	}
	_, _, rows, err := b.query("report_analyze_runs", nil)
	if err != nil {
		return fmt.Errorf("report: analyze_runs: %w", err)
	}
	for _, r := range rows {
		run := analyzeRun{status: text(r[1])}
		if l, ok := r[2].([]any); ok {
			for _, m := range l {
				run.missing = append(run.missing, text(m))
			}
		}
		b.runs[text(r[0])] = run
	}
	return nil
}

// query runs the query file sql/queries/<name>.sql, its holes filled, and
// returns its columns, their DuckDB types and its rows.
func (b *builder) query(name string, holes map[string]string, args ...any) ([]string, []string, [][]any, error) {
	rows, err := b.queries.Rows(b.ctx, b.db, name, holes, args...)
	if err != nil {
		return nil, nil, nil, err
	}
	return scanTyped(rows)
}

// The headings other parts of the page link to.
const (
	hClasses   = "What the classes mean"
	hCharts    = "Charts"
	hExamples  = "Examples: what the replies look like"
	hTables    = "All tables"
	hDecisions = "Decisions"
)

// h is a heading whose id is GitHub's anchor for its text, numbered as
// GitHub numbers a repeated one.
func (b *builder) h(level int, text string) heading {
	if b.anchors == nil {
		b.anchors = map[string]int{}
	}
	id := anchor(text)
	n := b.anchors[id]
	b.anchors[id]++
	if n > 0 {
		id = fmt.Sprintf("%s-%d", id, n)
	}
	return heading{level, id, text}
}

// link is a Markdown link to the first heading of that text.
func link(label, heading string) string { return "[" + label + "](#" + anchor(heading) + ")" }

// ratesTitle heads the per-cell tables.
func (b *builder) ratesTitle() string {
	eval, _, route, _ := b.words()
	return fmt.Sprintf("Rates per %s × %s", eval, route)
}

// id returns an HTML id, unique on the page.
func (b *builder) id(s string) string {
	if b.ids == nil {
		b.ids = map[string]int{}
	}
	s = slug(s)
	b.ids[s]++
	if n := b.ids[s]; n > 1 {
		return fmt.Sprintf("%s-%d", s, n)
	}
	return s
}

// words names things as the dataset has them: with a manifest an eval and
// a route, without one the log's task and model.
func (b *builder) words() (eval, evals, route, routes string) {
	if b.study {
		return "eval", "evals", "route", "routes"
	}
	return "task", "tasks", "model", "models"
}

// page assembles the report.
func (b *builder) page(present []string) (*page, error) {
	p := &page{title: "Empty responses: exploration report"}
	if b.study {
		p.title = "Empty responses: study report"
	}
	if !b.have["replies"] {
		p.add(para{text: "This dataset has no replies table: run `empties ingest` (or `empties run LOGS --out DIR`)."})
		return p, nil
	}
	var sections []block
	if b.study {
		s, err := b.decisionsSection()
		if err != nil {
			return nil, err
		}
		sections = append(sections, s...)
	}
	head, err := b.headline()
	if err != nil {
		return nil, err
	}
	sections = append(sections, head...)
	sections = append(sections, b.definitions())
	charts, err := b.chartsSection()
	if err != nil {
		return nil, err
	}
	sections = append(sections, charts)
	ex, err := b.examples()
	if err != nil {
		return nil, err
	}
	sections = append(sections, ex)
	rates, err := b.exploration()
	if err != nil {
		return nil, err
	}
	sections = append(sections, rates)
	all, err := b.allTables(present)
	if err != nil {
		return nil, err
	}
	sections = append(sections, all)
	p.add(sections...)
	return p, nil
}

// table writes one dataset table's files (CSV at full precision, Parquet,
// a Markdown page) and returns its view for the page: the rows of the query
// file query (report_table or report_table_as_written) over the table.
func (b *builder) table(name, title, query string, o viewOptions) (*view, error) {
	holes := map[string]string{"table": duck.Ident(name)}
	q, err := b.queries.SQL(query, holes)
	if err != nil {
		return nil, err
	}
	cols, types, rows, err := b.query(query, holes)
	if err != nil {
		return nil, fmt.Errorf("report: table %s: %w", name, err)
	}
	var buf strings.Builder
	cw := csv.NewWriter(&buf)
	cw.Write(cols)
	for _, r := range rows {
		rec := make([]string, len(r))
		for i, v := range r {
			rec[i] = full(v)
		}
		cw.Write(rec)
	}
	cw.Flush()
	base := filepath.Join(b.dir, "tables", name)
	if err := os.WriteFile(base+".csv", []byte(buf.String()), 0o644); err != nil {
		return nil, err
	}
	// DuckDB writes the Parquet file from the same query, in its order.
	if _, err := b.db.ExecContext(b.ctx, fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet, COMPRESSION zstd)", q, duck.Quote(base+".parquet"))); err != nil {
		return nil, fmt.Errorf("report: table %s: parquet: %w", name, err)
	}
	if o.shown != "" {
		if cols, types, rows, err = b.query(o.shown, nil); err != nil {
			return nil, fmt.Errorf("report: table %s: %w", name, err)
		}
	}
	v := autoView(b.id("t-"+name), cols, types, rows, o)
	v.csv = name
	var md strings.Builder
	fmt.Fprintf(&md, "# %s\n\n`%s`: %d rows. Files: [%[2]s.csv](%[2]s.csv) and [%[2]s.parquet](%[2]s.parquet) hold every column at full precision; `empties schema %[2]s` describes them.\n\n", title, name, len(rows))
	for _, n := range v.notes {
		md.WriteString(n + "\n\n")
	}
	if len(rows) == 0 {
		md.WriteString("(no rows)\n")
	} else {
		md.WriteString(v.markdownRows(0))
	}
	if err := os.WriteFile(base+".md", []byte(md.String()), 0o644); err != nil {
		return nil, err
	}
	b.written = append(b.written, name)
	return v, nil
}

// full renders a value for CSV: every digit, empty for NULL.
func full(v any) string {
	if v == nil {
		return ""
	}
	return sqlfmt.Format(v)
}

// unavailable says in one line why a table has no rows here, from
// analyze_runs: the manifest, the input tables missing, or nothing to count.
func (b *builder) unavailable(name string) string {
	run, ok := b.runs[name]
	switch {
	case !b.have[name] && !ok:
		return "not in this dataset: its stage has not run"
	case !ok:
		return "no rows"
	case run.status == "empty":
		return "nothing to count in these logs"
	}
	var tables []string
	manifest := false
	for _, m := range run.missing {
		if m == "manifest" {
			manifest = true
		} else {
			tables = append(tables, m)
		}
	}
	switch {
	case manifest:
		return "needs the study manifest (`--manifest`)"
	case len(tables) > 0:
		return "needs " + strings.Join(tables, ", ") + ", not in this dataset"
	}
	return "no rows"
}

// allTables lists every table the report shows, folded, with its files, and
// the ones that could not be computed on one line per reason.
func (b *builder) allTables(present []string) (block, error) {
	var blocks []block
	blocks = append(blocks, b.h(2, hTables),
		para{text: "Every table the page draws on, formatted for reading; each downloads as CSV and Parquet (every column, full precision) from `tables/`, and opens in DuckDB or pandas (`empties sql`, `DIR/empties.duckdb`). Click a column to sort, type in the box to filter."})
	titles := map[string]string{}
	var order []string
	for _, p := range published {
		titles[p.name] = p.title
		order = append(order, p.name)
	}
	var extra []string
	for _, t := range present {
		if _, known := titles[t]; !known && !perReply[t] {
			extra = append(extra, t)
		}
	}
	sort.Strings(extra)
	for _, t := range extra {
		titles[t] = t
		order = append(order, t)
	}
	reasons := map[string][]string{}
	var reasonOrder []string
	for _, name := range order {
		if !b.have[name] {
			r := b.unavailable(name)
			if _, seen := reasons[r]; !seen {
				reasonOrder = append(reasonOrder, r)
			}
			reasons[r] = append(reasons[r], name)
			continue
		}
		o := viewOptions{}
		q := "report_table"
		switch name {
		case "decisions":
			o.keepConstant, o.keepOrder, o.shown, o.labels = true, true, "report_decisions", decisionLabels
			q = "report_table_as_written"
		case "analyze_runs":
			o.keepOrder = true
		case "log_accounting":
			o.keepOrder = true
		}
		v, err := b.table(name, titles[name], q, o)
		if err != nil {
			return nil, err
		}
		if len(v.rows) == 0 {
			r := b.unavailable(name)
			if _, seen := reasons[r]; !seen {
				reasonOrder = append(reasonOrder, r)
			}
			reasons[r] = append(reasons[r], name)
			continue
		}
		if name == "class_examples" { // forty columns: the examples above are its reading
			blocks = append(blocks, para{text: fmt.Sprintf("%s: `%s`, %s rows, shown as %s; files [CSV](tables/%[2]s.csv), [Parquet](tables/%[2]s.parquet).",
				titles[name], name, count(int64(len(v.rows))), link("the examples", hExamples))})
			continue
		}
		blocks = append(blocks, folded{
			summary: fmt.Sprintf("%s: `%s`, %s rows", titles[name], name, count(int64(len(v.rows)))),
			blocks:  []block{v},
		})
	}
	if len(reasonOrder) > 0 {
		var lines []string
		for _, r := range reasonOrder {
			names := reasons[r]
			for i, n := range names {
				names[i] = code(n)
			}
			lines = append(lines, fmt.Sprintf("No rows: %s (%s).", strings.Join(names, ", "), r))
		}
		blocks = append(blocks, list(lines))
	}
	return section{id: "tables-section", blocks: blocks}, nil
}
