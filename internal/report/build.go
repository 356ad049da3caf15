// Package report builds the report of a dataset (`empties report`, and the
// page `empties serve` shows): a page that answers on its first screen how
// often replies come back empty, why and where (index.html, self-contained,
// and index.md, the same in Markdown), every table it draws on as CSV,
// Parquet and Markdown, and its charts as Vega-Lite specs. The same inputs
// give byte-identical outputs: rows are ordered, nothing carries a
// timestamp. The report computes no statistic of its own; it shows the
// tables the SQL and the decide stage wrote, through the query files
// sql/queries/report_*.sql. Build is the page as a function of the
// dataset's tables.
package report

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"empties/internal/duck"
	"empties/internal/measures"
	"empties/internal/sqlfmt"
	"empties/internal/vocab"
)

// published are the tables the report shows, in order, with a title. Any
// other analysis table found is added after them; the per-reply tables are
// left to SQL and notebooks.
var published = []struct{ name, title string }{
	{"decisions", "Decisions D1-D4 and hypotheses H1-H4"},
	{"d1a_truncation", "D1(a): truncated_empty share of samples, reasoning routes, default arm"},
	{"d1b_non_refusal", "D1(b): re-run truncations that became non-refusals"},
	{"d1b_wide_outcomes", "D1(b): what each re-run truncation became"},
	{"d2_form_disagreement", "D2: refusal forms that differ between routes of a model"},
	{"d3_headline_deltas", "D3: P3 - P0 headline deltas"},
	{"d4_judge_behaviour", "D4: judges on non-answers"},
	{"d4_judge_verdicts", "D4: verdict distribution per judge and form"},
	{"headlines", "Headline metrics under P0-P3 with bootstrap intervals"},
	{"p0_check", "P0 check: recomputed headline against the stored metric"},
	{"class_rates", "Class rates per {eval} × {route}{ × arm} (Wilson intervals)"},
	{"transient_share", "Transient share: control re-runs that became an answer"},
	{"tight_vs_default", "HLE tight vs default, paired by sample"},
	{"cost", "Cost per route and part"},
	{"judge_calls_saved", "Judge calls saved by bypassing"},
	{"rates_by_stop_reason", "Exploratory: rates by stop reason"},
	{"rates_by_stop_category", "Exploratory: rates by stop_details category"},
	{"overview", "Headline: non-answers, no replies and answers per {route} and for all {routes} (Wilson intervals)"},
	{"overview_classes", "Headline by class: each class's share of the samples per {route} and for all {routes}"},
	{"non_answer_rates", "Exploration: non-answer, no-reply, reasoning_only and tool_only shares per {eval} × {route} (Wilson intervals)"},
	{"truncation_by_max_tokens", "Exploration: stops at the token limit per effective max_tokens and its source"},
	{"judge_calls_on_non_answers", "Exploration: judge calls that received a non-answer"},
	{"reply_sources", "Exploration: how the replies were chosen"},
	{"log_accounting", "Exploration: logs read by status, and files that could not be read"},
	{"class_examples", "Exploration: real examples of each class, with inspect view links"},
	{"turn_rates", "Every turn: non-answer generations, and final replies against first, per {eval} × {route}{ × arm}"},
	{"turn_examples", "Every turn: empty turns of multi-turn samples, with the turns around them"},
	{"analyze_runs", "What the last analyze run computed, and why a table is empty"},
	{"reruns", "Re-run pairing"},
	{"log_assignments", "Logs and their place in the study"},
	{"exposure", "Exposure search: inspect_evals evals exposed to the empty-reply problem"},
	{"ingest_errors", "Files that could not be ingested"},
}

// perReply are tables too large or too raw for the report.
var perReply = map[string]bool{"replies": true, "scores": true, "model_calls": true, "policy_scores": true,
	"judge_verdicts": true, "reply_outcomes": true, "judge_tests": true, "logs": true, "planned_reruns": true,
	"study_replies": true, "priced_calls": true, "tight_vs_default_samples": true}

// Summary is what a build wrote.
type Summary struct {
	Tables, Charts int
	Images         int    // charts drawn as images for index.md
	NoImages       string // why they were not, when a renderer was given and failed
}

// Build writes the report of the dataset open in db (present: its tables)
// into dir, an existing folder: index.html and index.md, tables/<name>.csv,
// .parquet and .md for every table the page lists, plots/<name>.vl.json for
// every chart, and plots/<name>.png for index.md where images draws them
// (nil: none, and index.md says so). It reads only the dataset's tables and
// computes no statistic of its own, so the same tables give the same bytes;
// it touches nothing outside dir. A server builds the same page into a
// folder of its own.
func Build(ctx context.Context, db *sql.DB, present []string, dir string, images ChartImages) (Summary, error) {
	queries, err := measures.LoadQueries()
	if err != nil {
		return Summary{}, err
	}
	desc, err := newDescriber()
	if err != nil {
		return Summary{}, err
	}
	b := &builder{ctx: ctx, db: db, queries: queries, desc: desc, dir: dir, have: map[string]bool{}, vocab: vocab.Export()}
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
	specs := map[string][]byte{}
	for _, c := range b.charts {
		spec, err := c.json()
		if err != nil {
			return Summary{}, fmt.Errorf("chart %s: %w", c.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, "plots", c.name+".vl.json"), spec, 0o644); err != nil {
			return Summary{}, err
		}
		specs[c.name] = spec
	}
	sum := Summary{}
	switch {
	case len(specs) == 0:
	case images == nil:
		b.imagesNote.why = "no chart renderer was given"
	default:
		pngs, err := images.Draw(ctx, specs)
		if err != nil {
			if ctx.Err() != nil {
				return Summary{}, ctx.Err()
			}
			b.imagesNote.why = err.Error()
			sum.NoImages = err.Error()
		}
		for _, c := range b.charts {
			if png, ok := pngs[c.name]; ok {
				if err := os.WriteFile(filepath.Join(dir, "plots", c.name+".png"), png, 0o644); err != nil {
					return Summary{}, err
				}
				c.image = true
				sum.Images++
			}
		}
	}
	md := p.markdown()
	if err := os.WriteFile(filepath.Join(dir, "index.md"), []byte(md), 0o644); err != nil {
		return Summary{}, err
	}
	if err := os.WriteFile(filepath.Join(dir, "index.html"), []byte(p.htmlPage()), 0o644); err != nil {
		return Summary{}, err
	}
	sum.Tables, sum.Charts = len(b.written), len(b.charts)
	return sum, nil
}

// Write builds the report of the dataset in dataDir into out, a new folder
// it creates, through a database of its own: how a server writes the page
// of each generation of its dataset into its scratch (empties serve). The
// tables of each folder of more (as measures.Explore writes them) are read
// too, a later folder's table taking the place of an earlier one's.
func Write(ctx context.Context, dataDir, out string, more ...string) error {
	db, present, err := duck.OpenDataset(ctx, dataDir)
	if err != nil {
		return err
	}
	defer db.Close()
	for _, dir := range more {
		found, err := duck.CreateViews(ctx, db, dir, duck.ReaderViews)
		if err != nil {
			return err
		}
		for _, t := range found {
			if !slices.Contains(present, t) {
				present = append(present, t)
			}
		}
	}
	if err := os.Mkdir(out, 0o755); err != nil {
		return err
	}
	_, err = Build(ctx, db, present, out, nil)
	return err
}

// builder holds what the page is built from.
type builder struct {
	ctx     context.Context
	db      *sql.DB
	queries *measures.Queries // sql/queries/report_*.sql: every query the page runs
	desc    *describer        // every shown column's label and format
	dir     string
	have    map[string]bool
	study   bool // the dataset was placed in a study (rescore ran with a manifest)
	vocab   vocab.Vocabulary
	runs    map[string]analyzeRun
	charts  []*chart
	// imagesNote is index.md's line on why its charts are not images.
	imagesNote imagesNote
	written    []string // tables with files
	ids        map[string]int
	anchors    map[string]int
	cells      int64 // task × model cells of the default arm (overview.n_cells)
	// multi is the default arm's multi-turn counts; nil when no sample is
	// multi-turn, and then the page has no multi-turn line, section or tables.
	multi *turnsOverview
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
	_, rows, err := b.query("report_analyze_runs", nil)
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
// returns its columns and its rows.
func (b *builder) query(name string, holes map[string]string, args ...any) ([]string, [][]any, error) {
	rows, err := b.queries.Rows(b.ctx, b.db, name, holes, args...)
	if err != nil {
		return nil, nil, err
	}
	return scanRows(rows)
}

// viewOf lays out the rows of query (over table, for a query whose hole a
// table fills) by its columns' declarations.
func (b *builder) viewOf(id, query, table string, cols []string, rows [][]any, o viewOptions) (*view, error) {
	desc, err := b.describe(query, table, cols)
	if err != nil {
		return nil, err
	}
	return autoView(id, desc, rows, b.study, o), nil
}

// The headings other parts of the page link to.
const (
	hClasses   = "What the classes mean"
	hCharts    = "Charts"
	hExamples  = "Examples: what the replies look like"
	hTables    = "All tables"
	hDecisions = "Decisions"
	hGlossary  = "Words of the study"
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
	eval, _, route, _ := b.modeWords()
	return fmt.Sprintf("Rates per %s × %s", eval, route)
}

// titleWords fills a title's mode words ({eval}, {route}, ...; " × arm" only
// in a study, where the arm is a dimension: without a manifest every reply
// is the default arm's).
func (b *builder) titleWords(title string) string {
	arm := ""
	if b.study {
		arm = " × arm"
	}
	return b.words(strings.ReplaceAll(title, "{ × arm}", arm))
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

// modeWords names things as the dataset has them: with a manifest an eval and
// a route, without one the log's task and model.
func (b *builder) modeWords() (eval, evals, route, routes string) {
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
	banner, err := b.simulatedBanner()
	if err != nil {
		return nil, err
	}
	sections = append(sections, banner...)
	if b.multi, err = b.turns(); err != nil {
		return nil, err
	}
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
	if b.multi != nil {
		turns, err := b.turnsSection()
		if err != nil {
			return nil, err
		}
		sections = append(sections, turns)
	}
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

// simulatedBanner says, above everything, when the replies are not a
// provider's: logs whose model under test is inspect_ai's mockllm (the
// demo's, the fixtures'), as the logs themselves record it.
func (b *builder) simulatedBanner() ([]block, error) {
	if !b.have["logs"] {
		return nil, nil
	}
	_, rows, err := b.query("report_simulated", nil)
	if err != nil {
		return nil, fmt.Errorf("report: logs: %w", err)
	}
	n, _ := asInt(rows[0][0])
	sim, _ := asInt(rows[0][1])
	if sim == 0 {
		return nil, nil
	}
	which := fmt.Sprintf("In %s of the %s logs read", count(sim), count(n))
	if sim == n {
		which = fmt.Sprintf("In every one of the %s logs read", count(n))
	}
	return []block{para{class: "banner", text: fmt.Sprintf("**Simulated replies.** %s, the model under test is inspect_ai's %s (the logs' `eval.model`), which returns scripted outputs, not a provider's replies. The numbers below show what the pipeline computes from such logs; they say nothing about how any real model or provider behaves.",
		which, code(text(rows[0][2])))}}, nil
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
	cols, rows, err := b.query(query, holes)
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
	shown, on := query, name
	if o.shown != "" {
		if cols, rows, err = b.query(o.shown, nil); err != nil {
			return nil, fmt.Errorf("report: table %s: %w", name, err)
		}
		shown, on = o.shown, ""
	}
	v, err := b.viewOf(b.id("t-"+name), shown, on, cols, rows, o)
	if err != nil {
		return nil, err
	}
	v.csv = name
	var md strings.Builder
	fmt.Fprintf(&md, "# %s\n\n`%s`: %s. Files: [%[2]s.csv](%[2]s.csv) and [%[2]s.parquet](%[2]s.parquet) hold every column at full precision; `empties schema %[2]s` describes them.\n\n", title, name, plural(int64(len(rows)), "row", "rows"))
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
		titles[p.name] = b.titleWords(p.title)
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
		if (name == "turn_rates" || name == "turn_examples") && b.multi == nil {
			continue // no sample is multi-turn: nothing of its own to show
		}
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
			o.keepConstant, o.keepOrder, o.shown = true, true, "report_decisions"
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
		if name == "class_examples" || name == "turn_examples" { // forty columns: the examples above are its reading
			shown := link("the examples", hExamples)
			if name == "turn_examples" {
				shown = link("the empty turns", "Empty turns, with the turns around them")
			}
			blocks = append(blocks, para{text: fmt.Sprintf("%s: `%s`, %s, shown as %s; files [CSV](tables/%[2]s.csv), [Parquet](tables/%[2]s.parquet).",
				titles[name], name, plural(int64(len(v.rows)), "row", "rows"), shown)})
			continue
		}
		blocks = append(blocks, folded{
			summary: fmt.Sprintf("%s: `%s`, %s", titles[name], name, plural(int64(len(v.rows)), "row", "rows")),
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
