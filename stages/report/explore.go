package report

import (
	"fmt"
	"strings"
)

// The exploration sections: what any folder of logs shows without a
// manifest (and, with one, beside the decisions). Each reads one table the
// analyze stage wrote (sql/<table>.sql); the report selects and orders
// columns, it computes nothing.
var explorationSections = []struct {
	table, title, intro, query string
}{
	{"log_accounting", "Logs read",
		"The log files behind these numbers, by status; superseded logs, whose samples a newer attempt, a recovered copy or a merged log holds (`logs.superseded_by`, `superseded_reason`; counted by no measure; `ingest --all-attempts` counts every file); and the files that could not be read at all (their samples are in no table; `ingest_errors` names file and member).",
		`SELECT status, n_logs, n_samples, n_invalidated, n_errors FROM log_accounting ORDER BY status`},
	{"non_answer_rates", "Non-answer rates per eval × route",
		"Eval and route come from the manifest; without one, eval is each log's task and route its model. The sample is the unit; [low, high] is the Wilson interval.",
		`SELECT eval, route, arm, n_samples, n_replies, non_answer_rate, non_answer_ci_low AS low, non_answer_ci_high AS high,
		   reasoning_only_rate, tool_only_rate FROM non_answer_rates ORDER BY eval, route, arm`},
	{"reply_sources", "How the replies were chosen",
		"The reply is the first completed generation of the model under test (model_event; failed, retried attempts and placeholder events skipped, counted here); sample.output when the model under test made no completed call through the model API; none when there is neither.",
		// Every column of reply_sources is shown, so counts added to it (attempts
		// and placeholders the choice skipped) appear here with no change.
		`SELECT * EXCLUDE (profiled) FROM reply_sources ORDER BY eval, route, arm, reply_source`},
	{"truncation_by_max_tokens", "Truncation against the effective max_tokens",
		"Replies that stopped at the token limit, per effective max_tokens and where it came from (call: the call's config; eval: the eval's generate config; unset: the provider's default).",
		`SELECT eval, route, arm, max_tokens_source, max_tokens, n_samples, max_tokens_rate, max_tokens_ci_low AS low, max_tokens_ci_high AS high,
		   truncated_empty_rate, truncated_text_rate FROM truncation_by_max_tokens ORDER BY eval, route, arm, max_tokens_source, max_tokens NULLS FIRST`},
	{"judge_calls_on_non_answers", "Judges that received a non-answer",
		"Judge calls made in samples whose reply is a non-answer, and how the judge's own reply reads.",
		`SELECT eval, route, arm, reply_class, judge_model, judge_class, call_status, n_calls, n_replies FROM judge_calls_on_non_answers
		   ORDER BY eval, route, arm, reply_class, judge_model, judge_class, call_status`},
}

// exploration writes the exploration sections of the index.
func (b *builder) exploration(s *strings.Builder) error {
	s.WriteString("## Exploration: rates and examples for any logs\n\n")
	s.WriteString("Rates by stop reason and stop_details category: [rates_by_stop_reason](tables/rates_by_stop_reason.md), [rates_by_stop_category](tables/rates_by_stop_category.md); class shares: [class_rates](tables/class_rates.md).\n\n")
	for _, sec := range explorationSections {
		fmt.Fprintf(s, "### %s\n\n", sec.title)
		if !b.have[sec.table] {
			fmt.Fprintf(s, "No %s table: run `empties analyze`.\n\n", sec.table)
			continue
		}
		cols, rows, err := b.query(sec.query)
		if err != nil {
			return fmt.Errorf("report: %s: %w", sec.table, err)
		}
		fmt.Fprintf(s, "%s\n\n%s\n", sec.intro, markdownTable(cols, rows))
	}
	return b.examples(s)
}

// examples writes the drawn replies of each class, each with the command
// and address that open its sample in inspect view.
func (b *builder) examples(s *strings.Builder) error {
	s.WriteString("### Examples per class\n\n")
	if !b.have["class_examples"] {
		s.WriteString("No class_examples table: run `empties analyze`.\n\n")
		return nil
	}
	cols, rows, err := b.query(`SELECT class, draw, n_in_class, eval, route, path, member, sample_id, epoch, view_command, view_url,
	    class_rule, reply_source, stop_reason, stop_details_category, output_error, call_error, sample_error, n_choices,
	    text_chars, text, reasoning_chars, reasoning_redacted, tool_call_count, tool_call_functions, max_tokens, max_tokens_source, output_tokens
	  FROM class_examples ORDER BY class, draw`)
	if err != nil {
		return fmt.Errorf("report: class_examples: %w", err)
	}
	if len(rows) == 0 {
		s.WriteString("(no rows: not enough data)\n\n")
		return nil
	}
	s.WriteString("A few real replies of each class, drawn with a seed (`empties analyze --examples-seed`). To open one, run its `inspect view` command, then its link.\n\n")
	prev := ""
	for _, r := range rows {
		f := map[string]any{}
		for i, c := range cols {
			f[c] = r[i]
		}
		if class := full(f["class"]); class != prev {
			if prev != "" {
				s.WriteString("\n")
			}
			fmt.Fprintf(s, "#### %s (%s replies)\n\n", class, full(f["n_in_class"]))
			prev = class
		}
		fmt.Fprintf(s, "- %s · %s: sample `%s` epoch %s of `%s` (`%s`). [Open in inspect view](%s) after `%s`.\n",
			short(f["eval"]), short(f["route"]), short(f["sample_id"]), full(f["epoch"]), short(f["path"]), short(f["member"]),
			full(f["view_url"]), full(f["view_command"]))
		var raw []string
		for _, c := range cols[11:] {
			if v := f[c]; v != nil {
				raw = append(raw, fmt.Sprintf("%s=`%s`", c, inlineCode(short(v))))
			}
		}
		fmt.Fprintf(s, "  %s\n", strings.Join(raw, ", "))
	}
	s.WriteString("\n")
	return nil
}

// inlineCode keeps a value inside one Markdown code span.
func inlineCode(s string) string {
	s = strings.ReplaceAll(s, "`", "'")
	if strings.TrimSpace(s) == "" {
		return `""`
	}
	return s
}
