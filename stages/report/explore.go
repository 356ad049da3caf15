package report

import (
	"fmt"
	"sort"
	"strings"
)

// The exploration sections: what any folder of logs shows without a
// manifest (and, with one, after the decisions). Each reads one table the
// analyze stage wrote (sql/<table>.sql); the report selects and orders
// columns, it computes nothing.
var explorationSections = []struct {
	table, title, intro, query string
	sortBy                     string
}{
	{"non_answer_rates", "Non-answer rates per {eval} × {route}",
		"Every {eval} × {route} cell, most non-answers first: the share of its samples whose reply is a non-answer, the share with no reply at all (error, no_choices), and the reasoning_only and tool_only shares (tool_only is a non-answer only where the eval offered no tools).",
		`SELECT eval, route, arm, n_samples, n_replies, non_answer_rate, non_answer_ci_low, non_answer_ci_high,
		   no_reply_rate, no_reply_ci_low, no_reply_ci_high, reasoning_only_rate, reasoning_only_ci_low, reasoning_only_ci_high,
		   tool_only_rate, tool_only_ci_low, tool_only_ci_high, level
		 FROM non_answer_rates ORDER BY non_answer_rate DESC, no_reply_rate DESC, n_samples DESC, eval, route, arm`, ""},
	{"log_accounting", "Logs read",
		"The log files behind these numbers, by status; superseded logs, whose samples a newer attempt, a recovered copy or a merged log holds (`logs.superseded_by`, `superseded_reason`; counted by no measure; `ingest --all-attempts` counts every file); and the files that could not be read at all (their samples are in no table; `ingest_errors` names file and member).",
		`SELECT status, n_logs, n_samples AS n_sample_records, n_invalidated, n_errors FROM log_accounting ORDER BY status`, "-"},
	{"reply_sources", "How the replies were chosen",
		"The reply is the first completed generation of the model under test (model_event; failed, retried attempts and placeholder events skipped, counted here); sample.output when the model under test made no completed call through the model API; none when there is neither.",
		// Every column of reply_sources is shown, so counts added to it (attempts
		// and placeholders the choice skipped) appear here with no change.
		`SELECT * EXCLUDE (profiled) FROM reply_sources ORDER BY n_replies DESC, eval, route, arm, reply_source`, "-"},
	{"truncation_by_max_tokens", "Truncation against the effective max_tokens",
		"Replies that stopped at the token limit, per effective max_tokens and where it came from (call: the call's config; eval: the eval's generate config; unset: the provider's default), most stops first.",
		`SELECT eval, route, arm, max_tokens_source, max_tokens, n_samples, n_replies, max_tokens_rate, max_tokens_ci_low, max_tokens_ci_high,
		   truncated_empty_rate, truncated_empty_ci_low, truncated_empty_ci_high, truncated_text_rate, truncated_text_ci_low, truncated_text_ci_high, level
		 FROM truncation_by_max_tokens ORDER BY max_tokens_rate DESC, eval, route, arm, max_tokens_source, max_tokens NULLS FIRST`, ""},
	{"judge_calls_on_non_answers", "Judges that received a non-answer",
		"Judge calls made in samples whose reply is a non-answer, and how the judge's own reply reads.",
		`SELECT eval, route, arm, reply_class, judge_model, judge_class, call_status, n_calls, n_replies FROM judge_calls_on_non_answers
		   ORDER BY n_calls DESC, eval, route, arm, reply_class, judge_model, judge_class, call_status`, "-"},
	{"rates_by_stop_reason", "Rates by stop reason",
		"Per cell, the share of samples whose reply stopped for each reason, and the share that stopped so and is a non-answer (pre-registration §6, exploratory).",
		`SELECT eval, route, arm, stop_reason, n_samples, n_replies, rate, ci_low, ci_high, non_answer_rate, non_answer_ci_low, non_answer_ci_high, level
		 FROM rates_by_stop_reason ORDER BY non_answer_rate DESC, rate DESC, eval, route, arm, stop_reason`, "-"},
	{"rates_by_stop_category", "Rates by stop_details category",
		"The same by `stop_details.category` (the provider's reason for a stop, where the adapter records one).",
		`SELECT * EXCLUDE (profiled) FROM rates_by_stop_category ORDER BY non_answer_rate DESC, rate DESC, eval, route, arm`, "-"},
}

// exploration writes the per-cell tables.
func (b *builder) exploration() (block, error) {
	eval, _, route, _ := b.words()
	blocks := []block{b.h(2, b.ratesTitle())}
	if b.study {
		blocks = append(blocks, para{text: "Eval and route come from the manifest (logs that match no profile keep their task as the eval). The sample is the unit; intervals are Wilson intervals."})
	} else {
		blocks = append(blocks, para{text: "Without a manifest each log's task is the eval and its model the route; the arm is default. The sample is the unit; intervals are Wilson intervals. Click a column to sort."})
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
		cols, types, rows, err := b.query(sec.query)
		if err != nil {
			return nil, fmt.Errorf("report: %s: %w", sec.table, err)
		}
		if len(rows) == 0 {
			blocks = append(blocks, para{text: fmt.Sprintf("No rows: %s.", b.unavailable(sec.table))})
			continue
		}
		o := viewOptions{keepOrder: true, labels: map[string]string{"eval": eval, "route": route}}
		v := autoView(b.id("x-"+sec.table), cols, types, rows, o)
		v.csv = sec.table
		blocks = append(blocks, para{text: words.Replace(sec.intro)}, v)
	}
	return section{id: "rates-section", blocks: blocks}, nil
}

// decisionsSection opens the study report: the decisions, and the logs the
// manifest does not place.
func (b *builder) decisionsSection() ([]block, error) {
	blocks := []block{b.h(2, hDecisions)}
	if !b.have["decisions"] {
		blocks = append(blocks, para{text: "No decisions table yet: run `empties decide --manifest ...` (or `empties run LOGS --out DIR --manifest data/study.yaml`)."})
	} else {
		cols, types, rows, err := b.query(`SELECT rule, verdict, value, question, threshold, recommendation, cells, inputs FROM decisions`)
		if err != nil {
			return nil, fmt.Errorf("report: decisions: %w", err)
		}
		v := autoView("decisions-table", cols, types, rows, viewOptions{keepOrder: true, keepConstant: true})
		v.csv = "decisions"
		blocks = append(blocks, para{text: "D1–D4 and H1–H4 applied to the tables below, with every threshold read from the manifest (`empties decide`)."}, v)
	}
	if b.have["log_assignments"] {
		_, _, rows, err := b.query(`SELECT path, task, model FROM log_assignments WHERE eval IS NULL ORDER BY path`)
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
	eval, _, route, _ := b.words()
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
	if err := add(c, "class_rates", err); err != nil {
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
	_, _, rows, err := b.query(`SELECT eval, route, non_answer_rate, non_answer_ci_low, non_answer_ci_high, no_reply_rate, n_samples, n_non_answer_replies
	  FROM non_answer_rates WHERE arm = 'default' ORDER BY eval, route`)
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
	return heatMapChart("non_answer_heatmap", fmt.Sprintf("Non-answer share of samples per %s × %s (default arm)", eval, route), tasks, models, cells), nil
}

// classShares: each class's share of each cell's samples, default arm,
// cells most non-answers first.
func (b *builder) classShares(eval, route string) (*chart, error) {
	if !b.have["class_rates"] {
		return nil, nil
	}
	order := ""
	if b.have["non_answer_rates"] {
		order = `LEFT JOIN (SELECT eval, profiled, route, arm, non_answer_rate, no_reply_rate FROM non_answer_rates) n USING (eval, profiled, route, arm)`
	} else {
		order = `LEFT JOIN (SELECT NULL::VARCHAR AS eval, NULL::BOOLEAN AS profiled, NULL::VARCHAR AS route, NULL::VARCHAR AS arm, 0.0 AS non_answer_rate, 0.0 AS no_reply_rate) n USING (eval, profiled, route, arm)`
	}
	_, _, rows, err := b.query(`SELECT c.eval || ' · ' || c.route AS cell, c.class, c.rate, c.n_samples, c.ci_low, c.ci_high
	  FROM class_rates c ` + order + `
	  WHERE c.arm = 'default'
	  ORDER BY n.non_answer_rate DESC NULLS LAST, n.no_reply_rate DESC NULLS LAST, c.n_samples DESC, cell`)
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
	return classSharesChart("class_shares", fmt.Sprintf("Class shares of the samples per %s × %s (default arm), most non-answers first", eval, route), cells, shares), nil
}

func (b *builder) intervalRows(q string) ([]intervalRow, error) {
	_, _, rows, err := b.query(q)
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
	rows, err := b.intervalRows(`SELECT eval || ' · ' || route, share, ci_low, ci_high, n_samples FROM d1a_truncation ORDER BY share DESC, eval, route`)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return intervalChart("truncation_share", "D1(a): truncated_empty share of samples per eval × reasoning route", "share of samples", true, rows), nil
}

func (b *builder) d3() (*chart, error) {
	if !b.have["d3_headline_deltas"] {
		return nil, nil
	}
	rows, err := b.intervalRows(`SELECT eval || ' · ' || route || CASE WHEN is_primary THEN ' (primary)' ELSE '' END,
	    delta_pp, delta_pp - coalesce(p0_half_width_pp, 0), delta_pp + coalesce(p0_half_width_pp, 0), n_samples
	  FROM d3_headline_deltas WHERE arm = 'default' AND delta_pp IS NOT NULL AND NOT isnan(delta_pp) ORDER BY NOT is_primary, abs(delta_pp) DESC, eval, route`)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return intervalChart("d3_deltas", "D3: P3 − P0 headline delta, default arm (± the P0 interval's half-width)", "P3 − P0, percentage points of the metric", false, rows, -1, 1), nil
}

func (b *builder) d4() (*chart, error) {
	if !b.have["d4_judge_behaviour"] {
		return nil, nil
	}
	rows, err := b.intervalRows(`SELECT eval || ' · ' || judge_model || ' · ' || form, pass_rate, pass_ci_low, pass_ci_high, n_cases
	  FROM d4_judge_behaviour WHERE NOT pooled AND pass_rate IS NOT NULL ORDER BY pass_rate DESC, eval, judge_model, form`)
	if err != nil || len(rows) == 0 {
		return nil, err
	}
	return intervalChart("d4_pass_rates", "D4: judge pass rate on non-answers by form", "share of verdicts that pass the non-answer", true, rows), nil
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
