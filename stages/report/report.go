// Package report regenerates the study's report from a dataset (`empties
// report`): every analysis table as Markdown and CSV, plots as PNG and SVG
// drawn in Go, and an index.md linking all of it. The same inputs give
// byte-identical outputs: rows are ordered, nothing carries a timestamp.
// The report computes no statistic of its own; it shows the tables the SQL
// and the decide stage wrote.
package report

import (
	"context"
	"database/sql"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/urfave/cli/v3"

	"empties/internal/cliutil"
	"empties/internal/duck"
	"empties/internal/guard"
	"empties/internal/sqlfmt"
	"empties/internal/store"
)

// Options configure a report.
type Options struct {
	Data  string
	Out   string
	Avoid []string // paths the report folder must keep clear of (run's LOGS)
}

// Command returns the `report` subcommand.
func Command() *cli.Command {
	return &cli.Command{
		Name:  "report",
		Usage: "regenerate the report: tables as Markdown and CSV, plots, index.md and index.html",
		Description: `Writes OUT/index.md (decisions, the exploration sections, plots, links) and
OUT/index.html (the same page, plots inline as SVG, opens with no network),
OUT/tables/<table>.md
and .csv for every analysis table present, and OUT/plots/<plot>.png and .svg:
class shares per eval × route, truncation share by route (D1(a)), P3 − P0
deltas with the P0 interval (D3), and judge pass rates on non-answers (D4).
Tables and plots whose inputs are missing are listed as such. The same
inputs give byte-identical files.

Without a manifest (a dataset analyze ran on without --manifest) the page is
an exploration report: logs read and unreadable, non-answer rates per task ×
model with Wilson intervals, how the replies were chosen, truncation against
the effective max_tokens, judges that received a non-answer, and a few real
replies of each class with the inspect view address that opens each. With a
manifest the study report has the same sections after its decisions.

Examples:
   empties report --data data/study --out report/
   empties report --data out/explore --out out/explore/report`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "data", Aliases: []string{"d"}, Usage: "dataset `DIR`", Required: true},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "report folder `DIR`: new, empty, or an earlier report (whose files it replaces); anything else is refused", Required: true},
		},
		Action: func(ctx context.Context, c *cli.Command) error {
			return Run(ctx, Options{Data: c.String("data"), Out: c.String("out")}, c.Root().Writer)
		},
	}
}

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
	{"class_rates", "Class rates per eval × route × arm (Wilson intervals)"},
	{"transient_share", "Transient share: control re-runs that became an answer"},
	{"tight_vs_default", "HLE tight vs default, paired by sample"},
	{"cost", "Cost per route and part"},
	{"judge_calls_saved", "Judge calls saved by bypassing"},
	{"rates_by_stop_reason", "Exploratory: rates by stop reason"},
	{"rates_by_stop_category", "Exploratory: rates by stop_details category"},
	{"non_answer_rates", "Exploration: non-answer, reasoning_only and tool_only shares per eval × route (Wilson intervals)"},
	{"truncation_by_max_tokens", "Exploration: stops at the token limit per effective max_tokens and its source"},
	{"judge_calls_on_non_answers", "Exploration: judge calls that received a non-answer"},
	{"reply_sources", "Exploration: how the replies were chosen"},
	{"log_accounting", "Exploration: logs read by status, and files that could not be read"},
	{"class_examples", "Exploration: real examples of each class, with inspect view links"},
	{"reruns", "Re-run pairing"},
	{"log_assignments", "Logs and their place in the study"},
	{"exposure", "Exposure search: inspect_evals evals exposed to the empty-reply problem"},
	{"ingest_errors", "Files that could not be ingested"},
}

// perReply are tables too large or too raw for the report.
var perReply = map[string]bool{"replies": true, "scores": true, "model_calls": true, "policy_scores": true,
	"judge_verdicts": true, "reply_outcomes": true, "judge_tests": true, "logs": true, "planned_reruns": true,
	"study_replies": true, "priced_calls": true, "tight_vs_default_samples": true}

// Run writes the report.
func Run(ctx context.Context, opts Options, w io.Writer) error {
	if !store.HasTable(opts.Data, "replies") {
		return cliutil.Usagef("report: %s has no tables; run the pipeline first (`empties run LOGS --out %s`, or ingest and analyze)", opts.Data, opts.Data)
	}
	// The report folder is checked before any work (new, empty, or an
	// earlier report; never a user's folder, the logs or a dataset) and
	// built in a temporary folder that Commit switches in.
	out, err := guard.OpenFolder(opts.Out, "report", guard.Rules{Avoid: opts.Avoid})
	if err != nil {
		return err
	}
	defer out.Close()
	db, present, err := duck.OpenDataset(ctx, opts.Data)
	if err != nil {
		return err
	}
	defer db.Close()
	have := map[string]bool{}
	for _, t := range present {
		have[t] = true
	}
	tmp := out.Dir()
	for _, d := range []string{filepath.Join(tmp, "tables"), filepath.Join(tmp, "plots")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	r := &builder{ctx: ctx, db: db, dir: tmp, have: have}
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
	order = append(order, "max_tokens_by_route")
	titles["max_tokens_by_route"] = "Effective max_tokens per eval × route × arm (where it came from)"
	for _, t := range order {
		if t == "max_tokens_by_route" {
			if have["log_assignments"] {
				err = r.table(t, titles[t], maxTokensQuery)
			}
		} else if have[t] {
			err = r.table(t, titles[t], "SELECT * FROM "+duck.Ident(t)+" ORDER BY ALL")
		} else {
			r.missing = append(r.missing, t)
		}
		if err != nil {
			return fmt.Errorf("report: table %s: %w", t, err)
		}
	}
	if err := r.plots(); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := r.index(); err != nil {
		return err
	}
	if err := out.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(w, "report: %d tables, %d plots in %s (open %s, or %s in a browser)\n", len(r.tables), len(r.plotted), opts.Out,
		filepath.Join(opts.Out, "index.md"), filepath.Join(opts.Out, "index.html"))
	return nil
}

// maxTokensQuery labels the effective max_tokens of each cell.
const maxTokensQuery = `SELECT a.eval, a.route, a.arm, r.max_tokens_source, r.max_tokens, count(*) AS replies
FROM replies r JOIN log_assignments a USING (log_id)
WHERE a.eval IS NOT NULL
GROUP BY ALL ORDER BY ALL`

// builder accumulates what the index links to.
type builder struct {
	ctx     context.Context
	db      *sql.DB
	dir     string
	have    map[string]bool
	tables  []tableInfo
	missing []string
	plotted []plotInfo
	skipped []string
}

type tableInfo struct {
	name, title string
	rows        int
	head        string // the Markdown table, for the index where small
}

// table writes one table as CSV (full precision) and Markdown (4
// significant digits).
func (b *builder) table(name, title, q string) error {
	cols, rows, err := b.query(q)
	if err != nil {
		return err
	}
	var csvBuf strings.Builder
	cw := csv.NewWriter(&csvBuf)
	cw.Write(cols)
	for _, r := range rows {
		rec := make([]string, len(r))
		for i, v := range r {
			rec[i] = full(v)
		}
		cw.Write(rec)
	}
	cw.Flush()
	if err := os.WriteFile(filepath.Join(b.dir, "tables", name+".csv"), []byte(csvBuf.String()), 0o644); err != nil {
		return err
	}
	md := markdownTable(cols, rows)
	page := fmt.Sprintf("# %s\n\n`%s`, %d rows. CSV: [%s.csv](%s.csv).\n\n%s", title, name, len(rows), name, name, md)
	if err := os.WriteFile(filepath.Join(b.dir, "tables", name+".md"), []byte(page), 0o644); err != nil {
		return err
	}
	info := tableInfo{name: name, title: title, rows: len(rows)}
	if name == "decisions" {
		info.head = md
	}
	b.tables = append(b.tables, info)
	return nil
}

func (b *builder) query(q string, args ...any) ([]string, [][]any, error) {
	return duck.Rows(b.ctx, b.db, q, args...)
}

func full(v any) string {
	if v == nil {
		return ""
	}
	return sqlfmt.Format(v)
}

// short renders a value for Markdown: floats to 4 significant digits.
func short(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return sqlfmt.Format(x)
		}
		return strconv.FormatFloat(x, 'g', 4, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', 4, 32)
	}
	s := sqlfmt.Format(v)
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	if len([]rune(s)) > 120 {
		s = string([]rune(s)[:119]) + "…"
	}
	return s
}

func markdownTable(cols []string, rows [][]any) string {
	if len(rows) == 0 {
		return "(no rows: not enough data)\n"
	}
	var b strings.Builder
	b.WriteString("| " + strings.Join(cols, " | ") + " |\n|")
	for range cols {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		cells := make([]string, len(r))
		for i, v := range r {
			cells[i] = short(v)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	return b.String()
}

func (b *builder) index() error {
	var s strings.Builder
	// A dataset rescore placed in a study is a study report; any other
	// folder of logs is an exploration (no manifest).
	if b.have["log_assignments"] {
		s.WriteString("# Empty responses: study report\n\n")
	} else {
		s.WriteString("# Empty responses: exploration report\n\n")
	}
	s.WriteString("Regenerated by `empties report` from the dataset's tables; every number here is in a table below.\n\n")
	s.WriteString("## Decisions\n\n")
	found := false
	for _, t := range b.tables {
		if t.name == "decisions" {
			s.WriteString(t.head + "\n")
			found = true
		}
	}
	if !found {
		s.WriteString("No decisions table yet: D1-D4 need the study manifest (`empties run LOGS --out DIR --manifest data/study.yaml`, or `empties analyze` and `empties decide` with `--manifest`). The exploration below needs none.\n\n")
	}
	if b.have["log_assignments"] {
		_, rows, err := b.query(`SELECT path, task, model FROM log_assignments WHERE eval IS NULL ORDER BY path`)
		if err != nil {
			return err
		}
		s.WriteString("## Logs that match no eval profile\n\n")
		if len(rows) == 0 {
			s.WriteString("None: every log maps to an eval profile of the manifest.\n\n")
		} else {
			fmt.Fprintf(&s, "%d logs keep their replies and classes but are not re-scored (add a profile or a mapping rule):\n\n", len(rows))
			for _, r := range rows {
				fmt.Fprintf(&s, "- `%s` (task %s, model %s)\n", full(r[0]), full(r[1]), full(r[2]))
			}
			s.WriteString("\n")
		}
	}
	if err := b.exploration(&s); err != nil {
		return err
	}
	s.WriteString("## Plots\n\n")
	for _, p := range b.plotted {
		fmt.Fprintf(&s, "### %s\n\n![%s](plots/%s.png)\n\n[SVG](plots/%s.svg)\n\n", p.title, p.title, p.name, p.name)
	}
	for _, p := range b.skipped {
		fmt.Fprintf(&s, "- %s\n", p)
	}
	if len(b.skipped) > 0 {
		s.WriteString("\n")
	}
	s.WriteString("## Tables\n\n| table | rows |\n|---|---|\n")
	for _, t := range b.tables {
		fmt.Fprintf(&s, "| [%s](tables/%s.md) ([csv](tables/%s.csv)) | %d |\n", t.title, t.name, t.name, t.rows)
	}
	if len(b.missing) > 0 {
		fmt.Fprintf(&s, "\nNot in this dataset (their stage has not run, or had no input): %s.\n", strings.Join(b.missing, ", "))
	}
	if err := os.WriteFile(filepath.Join(b.dir, "index.md"), []byte(s.String()), 0o644); err != nil {
		return err
	}
	return b.writeHTML(s.String())
}
