package report

import (
	"fmt"
	"sort"
	"strings"
)

// The exploration sections: what any folder of logs shows without a
// manifest (and, with one, after the decisions). Each reads one table the
// analyze stage wrote (sql/marts/<table>.sql) through its query file
// (sql/queries/report_<table>.sql), which selects and orders columns; the
// report computes nothing.
var explorationSections = []struct {
	table, title, intro string
}{
	{"non_answer_rates", "Non-answer rates per {eval} × {route}",
		"Every {eval} × {route} cell, most non-answers first: the share of its samples whose reply is a non-answer, the share with no reply at all (error, no_choices), and the reasoning_only and tool_only shares (tool_only is a non-answer only where the eval offered no tools)."},
	{"log_accounting", "Logs read",
		"The log files behind these numbers, by status; superseded logs, whose samples a newer attempt, a recovered copy or a merged log holds (`logs.superseded_by`, `superseded_reason`; counted by no measure; `ingest --all-attempts` counts every file); and the files that could not be read at all (their samples are in no table; `ingest_errors` names file and member)."},
	{"reply_sources", "How the replies were chosen",
		"The reply is the first completed generation of the model under test (model_event; failed, retried attempts and placeholder events skipped, counted here); sample.output when the model under test made no completed call through the model API; none when there is neither."},
	{"truncation_by_max_tokens", "Truncation against the effective max_tokens",
		"Replies that stopped at the token limit, per effective max_tokens and where it came from (call: the call's config; eval: the eval's generate config; unset: the provider's default), most stops first."},
	{"judge_calls_on_non_answers", "Judges that received a non-answer",
		"Judge calls made in samples whose reply is a non-answer, and how the judge's own reply reads."},
	{"rates_by_stop_reason", "Rates by stop reason",
		"Per cell, the share of samples whose reply stopped for each reason, and the share that stopped so and is a non-answer (pre-registration §6, exploratory)."},
	{"rates_by_stop_category", "Rates by stop_details category",
		"The same by `stop_details.category` (the provider's reason for a stop, where the adapter records one)."},
}

// exploration writes the per-cell tables.
func (b *builder) exploration() (block, error) {
	eval, _, route, _ := b.modeWords()
	blocks := []block{b.h(2, b.ratesTitle())}
	if b.study {
		blocks = append(blocks, para{text: "Eval and route come from the manifest (logs that match no profile keep their task as the eval). The sample is the unit; intervals are Wilson intervals."})
	} else {
		blocks = append(blocks, para{text: "One row per log task × model under test. The sample is the unit; intervals are Wilson intervals. Click a column to sort."})
	}
	if b.have["overview"] {
		all, err := b.byRoute(0)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, all...)
	}
	for _, sec := range explorationSections {
		words := strings.NewReplacer("{eval}", eval, "{route}", route)
		title := words.Replace(sec.title)
		blocks = append(blocks, b.h(3, title))
		if !b.have[sec.table] {
			blocks = append(blocks, para{text: fmt.Sprintf("No %s table: %s.", code(sec.table), b.unavailable(sec.table))})
			continue
		}
		cols, rows, err := b.query("report_"+sec.table, nil)
		if err != nil {
			return nil, fmt.Errorf("report: %s: %w", sec.table, err)
		}
		if len(rows) == 0 {
			blocks = append(blocks, para{text: fmt.Sprintf("No rows: %s.", b.unavailable(sec.table))})
			continue
		}
		v, err := b.viewOf(b.id("x-"+sec.table), "report_"+sec.table, "", cols, rows, viewOptions{keepOrder: true})
		if err != nil {
			return nil, err
		}
		v.csv = sec.table
		blocks = append(blocks, para{text: words.Replace(sec.intro)}, v)
	}
	return section{id: "rates-section", blocks: blocks}, nil
}

// verdictWords is a verdict as a sentence begins it.
func verdictWords(v string) string {
	return "— " + v
}

// decisionsSection opens the study report: the decisions, and the logs the
// manifest does not place.
func (b *builder) decisionsSection() ([]block, error) {
	blocks := []block{b.h(2, hDecisions)}
	if !b.have["decisions"] {
		blocks = append(blocks, para{text: "No decisions table yet: run `empties decide --manifest ...` (or `empties run LOGS --out DIR --manifest data/study.yaml`)."})
	} else {
		cols, rows, err := b.query("report_decisions", nil)
		if err != nil {
			return nil, fmt.Errorf("report: decisions: %w", err)
		}
		// One sentence per decision first (decide wrote them: the deciding
		// cell and its number, the threshold, the recommendation), then the
		// table they come from, then what its words mean.
		var found []string
		ti, vi, fi := indexOf(cols, "title"), indexOf(cols, "verdict"), indexOf(cols, "finding")
		for _, r := range rows {
			found = append(found, fmt.Sprintf("**%s** %s. %s", text(r[ti]), verdictWords(text(r[vi])), text(r[fi])))
		}
		// The finding is the bullets above; what decided the verdict fits
		// the page's width without the measure's wording, every cell behind
		// the verdict and the tables read, which the table's files and its
		// copy under All tables keep.
		v, err := b.viewOf("decisions-table", "report_decisions", "", cols, rows, viewOptions{keepOrder: true, keepConstant: true,
			omit: map[string]bool{"finding": true, "question": true, "cells": true, "inputs": true}})
		if err != nil {
			return nil, err
		}
		v.csv = "decisions"
		blocks = append(blocks,
			para{text: "What the study found, decision by decision: the pre-registered rules D1–D4, then the hypotheses H1–H4, each with the cell that decides it and its number, applied with the thresholds of the manifest (`empties decide`). The study's words (P0–P3, route, primary cell, pp, ...) are explained " + link("below the table", hGlossary) + ".", class: "lead"},
			list(found), v, para{text: "Terms used in this table: " + link("the words of the study", hGlossary) + ". Shares are percentages of samples (or of cases, for judges); changes of a headline metric are in percentage points (pp) of the metric's own scale. Each rule's question, every cell behind its verdict and the tables it read are in the table's files ([CSV](tables/decisions.csv), [Parquet](tables/decisions.parquet)) and under " + link("All tables", hTables) + ".", class: "note"},
			b.glossary())
	}
	if b.have["log_assignments"] {
		_, rows, err := b.query("report_unmatched_logs", nil)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, b.h(3, "Logs that match no eval profile"))
		if len(rows) == 0 {
			blocks = append(blocks, para{text: "None: every log maps to an eval profile of the manifest."})
		} else {
			var items []string
			for _, r := range rows {
				items = append(items, fmt.Sprintf("%s (task %s, model %s)", code(text(r[0])), code(text(r[1])), code(text(r[2]))))
			}
			blocks = append(blocks, para{text: fmt.Sprintf("%d logs keep their replies and classes but are not re-scored (add a profile or a mapping rule):", len(rows))}, list(items))
		}
	}
	return []block{section{id: "decisions-section", blocks: blocks}}, nil
}

// chartsSection draws the charts whose tables are present.
func (b *builder) chartsSection() (block, error) {
	eval, _, route, _ := b.modeWords()
	blocks := []block{b.h(2, hCharts)}
	var skipped []string
	add := func(c *chart, table string, err error) error {
		if err != nil {
			return err
		}
		if c == nil {
			skipped = append(skipped, fmt.Sprintf("%s: %s", code(table), b.unavailable(table)))
			return nil
		}
		b.charts = append(b.charts, c)
		blocks = append(blocks, c)
		return nil
	}
	c, err := b.heatMap(eval, route)
	if err := add(c, "non_answer_rates", err); err != nil {
		return nil, err
	}
	c, err = b.classShares(eval, route)
	shares := "class_rates" // the chart orders its cells by non_answer_rates
	if b.have[shares] && !b.have["non_answer_rates"] {
		shares = "non_answer_rates"
	}
	if err := add(c, shares, err); err != nil {
		return nil, err
	}
	if b.study {
		for _, f := range []struct {
			table string
			draw  func() (*chart, error)
		}{{"d1a_truncation", b.truncation}, {"d3_headline_deltas", b.d3}, {"d4_judge_behaviour", b.d4}} {
			c, err := f.draw()
			if err := add(c, f.table, err); err != nil {
				return nil, err
			}
		}
	}
	if len(b.charts) > 0 {
		blocks = append(blocks[:1], append([]block{&b.imagesNote}, blocks[1:]...)...)
	}
	if len(skipped) > 0 {
		blocks = append(blocks, para{text: "Not drawn, no rows: " + strings.Join(skipped, "; ") + "."})
	}
	return section{id: "charts-section", blocks: blocks}, nil
}

// heatMap: the non-answer share of each task × model cell, default arm.
func (b *builder) heatMap(eval, route string) (*chart, error) {
	if !b.have["non_answer_rates"] {
		return nil, nil
	}
	_, rows, err := b.query("report_heatmap", nil)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	var cells []heatCell
	evalMax, routeMax := map[string]float64{}, map[string]float64{}
	for _, r := range rows {
		c := heatCell{task: text(r[0]), model: text(r[1])}
		c.rate, _ = asFloat(r[2])
		c.low, _ = asFloat(r[3])
		c.high, _ = asFloat(r[4])
		c.noReply, _ = asFloat(r[5])
		c.nSamples, _ = asInt(r[6])
		c.nNonAnswer, _ = asInt(r[7])
		evalMax[c.task] = max(evalMax[c.task], c.rate)
		routeMax[c.model] = max(routeMax[c.model], c.rate)
		cells = append(cells, c)
	}
	// Tasks and models whose highest cell is highest first: an order for
	// reading, not a number shown.
	tasks, models := orderedByMax(evalMax), orderedByMax(routeMax)
	return heatMapChart("non_answer_heatmap", fmt.Sprintf("Non-answer share of samples per %s × %s%s", eval, route, b.armNote()), eval, route, tasks, models, cells), nil
}

// classShares: each class's share of each cell's samples, default arm,
// cells most non-answers first (class_rates, ordered by non_answer_rates).
func (b *builder) classShares(eval, route string) (*chart, error) {
	if !b.have["class_rates"] || !b.have["non_answer_rates"] {
		return nil, nil
	}
	_, rows, err := b.query("report_class_shares", nil)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	var cells []string
	seen := map[string]bool{}
	var shares []classShareRow
	for _, r := range rows {
		cell := text(r[0])
		if !seen[cell] {
			seen[cell] = true
			cells = append(cells, cell)
		}
		s := classShareRow{cell: cell, class: text(r[1])}
		s.rate, _ = asFloat(r[2])
		s.nSamples, _ = asInt(r[3])
		s.low, _ = asFloat(r[4])
		s.high, _ = asFloat(r[5])
		shares = append(shares, s)
	}
	return classSharesChart("class_shares", fmt.Sprintf("Class shares of the samples per %s × %s%s: most non-answers first, then most with no reply", eval, route, b.armNote()), eval, route, cells, shares), nil
}

// intervalRows reads the points of an interval chart: a query file whose
// columns are label, value, low, high, n.
func (b *builder) intervalRows(name string) ([]intervalRow, error) {
	_, rows, err := b.query(name, nil)
	if err != nil {
		return nil, err
	}
	var out []intervalRow
	for _, r := range rows {
		ir := intervalRow{label: text(r[0])}
		ir.value, _ = asFloat(r[1])
		ir.low, _ = asFloat(r[2])
		ir.high, _ = asFloat(r[3])
		ir.n, _ = asInt(r[4])
		out = append(out, ir)
	}
	return out, nil
}

func (b *builder) truncation() (*chart, error) {
	if !b.have["d1a_truncation"] {
		return nil, nil
	}
	rows, err := b.intervalRows("report_d1a_chart")
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return intervalChart("truncation_share", "D1(a): truncated_empty share of samples per eval × reasoning route", "share of samples", true, rows), nil
}

func (b *builder) d3() (*chart, error) {
	if !b.have["d3_headline_deltas"] {
		return nil, nil
	}
	rows, err := b.intervalRows("report_d3_chart")
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return intervalChart("d3_deltas", "D3: P3 − P0 headline delta, default arm (± the P0 interval's half-width)", "P3 − P0, percentage points of the metric", false, rows, -1, 1), nil
}

func (b *builder) d4() (*chart, error) {
	if !b.have["d4_judge_behaviour"] {
		return nil, nil
	}
	rows, err := b.intervalRows("report_d4_chart")
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return intervalChart("d4_pass_rates", "D4: judge pass rate on non-answers by form", "share of verdicts that pass the non-answer", true, rows), nil
}

// armNote names the arm a chart draws, in a study (without a manifest every
// reply is the default arm's, and the page says nothing of arms).
func (b *builder) armNote() string {
	if b.study {
		return " (default arm)"
	}
	return ""
}

// orderedByMax orders names by their value, highest first, then by name.
func orderedByMax(m map[string]float64) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		if m[out[i]] != m[out[j]] {
			return m[out[i]] > m[out[j]]
		}
		return out[i] < out[j]
	})
	return out
}
