package report

import (
	"database/sql"
	"fmt"
	"html"
	"strconv"
	"strings"

	"empties/internal/errtext"
	"empties/internal/numfmt"
	"empties/internal/vocab"
)

// The examples show the evidence: for a few real replies of each class (the
// seeded draw of class_examples), the reply as the model gave it (text,
// reasoning, tool calls, refusal flag, stop reason and details, errors), the
// prompt it answered, where it is (task, model, log, member, sample, epoch)
// and why the classifier put it in its class; every raw field behind a
// toggle. Non-answers come first. The page holds the evidence, so no viewer
// is needed; the inspect view command and address stay for those who run one.

// exampleOrder is the classes in the order the examples show them:
// non-answers, then no reply, then tool_only, then answers.
func (b *builder) exampleOrder() []string {
	var out []string
	for _, group := range []string{vocab.CountsNonAnswer, vocab.CountsNoReply, vocab.CountsNonAnswerUnlessOffered, vocab.CountsAnswer} {
		for _, d := range b.vocab.Definitions {
			if d.CountsAs == group {
				out = append(out, d.Class)
			}
		}
	}
	return out
}

// example is one drawn reply, its fields by column name.
type example map[string]any

func (e example) s(k string) string { return text(e[k]) }

func (e example) has(k string) bool {
	v, ok := e[k]
	return ok && v != nil && text(v) != ""
}

func (e example) n(k string) int64 {
	x, _ := asInt(e[k])
	return x
}

func (e example) yes(k string) bool {
	x, _ := e[k].(bool)
	return x
}

func (b *builder) examples() (block, error) {
	blocks := []block{b.h(2, hExamples)}
	if !b.have["class_examples"] {
		blocks = append(blocks, para{text: "No class_examples table: run `empties analyze`."})
		return section{id: "examples-section", blocks: blocks}, nil
	}
	cols, rows, err := b.query("report_class_examples", nil, sql.Named("classes", b.exampleOrder()))
	if err != nil {
		return nil, fmt.Errorf("report: class_examples: %w", err)
	}
	if len(rows) == 0 {
		blocks = append(blocks, para{text: "No replies to show."})
		return section{id: "examples-section", blocks: blocks}, nil
	}
	meaning, counts := map[string]string{}, map[string]string{}
	for _, d := range b.vocab.Definitions {
		meaning[d.Class], counts[d.Class] = d.Meaning, d.CountsAs
	}
	seeds := map[string]string{}
	for _, r := range b.vocab.Rules {
		seeds[r.ID] = r.Seed
	}
	blocks = append(blocks, para{text: "A few real replies of each class that occurs, drawn with a seed (`empties analyze --examples-seed`, `--examples-per-class`); non-answers first. Each shows the reply as the model gave it, the prompt it answered, where it is, and the rule that gave its class; the raw fields are behind a toggle. To open a sample in Inspect's viewer, run its `inspect view` command, then its link."})
	prev := ""
	var group []block
	flush := func() {
		if len(group) > 0 {
			blocks = append(blocks, section{id: b.id("examples-" + prev), class: "examples", blocks: group})
		}
		group = nil
	}
	for _, r := range rows {
		e := example{}
		for i, c := range cols {
			e[c] = r[i]
		}
		class := e.s("class")
		if class != prev {
			flush()
			prev = class
			label := map[string]string{vocab.CountsNonAnswer: "non-answer", vocab.CountsNoReply: "no reply",
				vocab.CountsNonAnswerUnlessOffered: "non-answer only without tools", vocab.CountsAnswer: "answer"}[counts[class]]
			group = append(group, b.h(3, fmt.Sprintf("%s (%s): %s of %s", code(class), label, count(int64(countDraws(rows, cols, class))), plural(e.n("n_in_class"), "reply", "replies"))),
				para{text: meaning[class] + "."})
		}
		group = append(group, b.exampleBlock(e, cols, seeds))
	}
	flush()
	return section{id: "examples-section", blocks: blocks}, nil
}

func countDraws(rows [][]any, cols []string, class string) int {
	i := indexOf(cols, "class")
	n := 0
	for _, r := range rows {
		if text(r[i]) == class {
			n++
		}
	}
	return n
}

// field is one labelled piece of evidence.
type field struct {
	label string
	value string // as stored
	pre   bool   // shown as preformatted text
	note  string // plain text after the value
}

// exampleBlock renders one drawn reply.
func (b *builder) exampleBlock(e example, cols []string, seeds map[string]string) block {
	eval, _, route, _ := b.modeWords()
	rule := strings.SplitN(e.s("class_rule"), "@", 2)[0]
	why := fmt.Sprintf("Rule %s: %s.", code(e.s("class_rule")), seeds[rule])
	if e.s("class") == "tool_only" {
		switch {
		case e["tools_offered"] == nil:
			why += " The log does not show whether tools were offered; a tool call means they were, so it counts as an answer."
		case e.yes("tools_offered"):
			why += " The eval offered tools, so it counts as an answer."
		default:
			why += " The eval offered no tools, so it counts as a non-answer."
		}
	}
	var fs, facts []field
	if e.n("text_chars") > 0 || e.has("text") {
		fs = append(fs, field{label: "text", value: e.s("text"), pre: true, note: fmt.Sprintf("%s characters", count(e.n("text_chars")))})
	} else {
		fs = append(fs, field{label: "text", note: "(no text)"})
	}
	switch {
	case e.has("reasoning_text"):
		note := fmt.Sprintf("%s characters readable", count(e.n("reasoning_chars")))
		if e.yes("reasoning_redacted") {
			note += "; some reasoning is redacted"
		}
		fs = append(fs, field{label: "reasoning", value: e.s("reasoning_text"), pre: true, note: note})
	case e.yes("reasoning_redacted"):
		facts = append(facts, field{label: "reasoning", note: "redacted, none readable"})
	default:
		facts = append(facts, field{label: "reasoning", note: "none"})
	}
	nReply := len(fs)
	stop := orDash(e.s("stop_reason"))
	var details []string
	for _, k := range []string{"stop_details_type", "stop_details_category", "stop_details_explanation"} {
		if e.has(k) {
			details = append(details, strings.TrimPrefix(k, "stop_details_")+" "+e.s(k))
		}
	}
	if len(details) > 0 {
		stop += " (details: " + strings.Join(details, ", ") + ")"
	}
	facts = append(facts, field{label: "stop reason", note: stop})
	tools := numfmt.ToolCalls(e.n("tool_call_count"), e.s("tool_call_functions"))
	switch {
	case e["tools_offered"] == nil:
		tools += " (tools offered: not in the log)"
	case e.yes("tools_offered"):
		tools += " (tools offered)"
	default:
		tools += " (no tools offered)"
	}
	facts = append(facts, field{label: "tool calls", note: tools})
	refusal := "no"
	if e.yes("refusal") {
		refusal = "yes (a text item has refusal=true)"
	}
	facts = append(facts, field{label: "refusal flag", note: refusal})
	limit := "unset (provider default)"
	if e.has("max_tokens") {
		limit = fmt.Sprintf("%s (%s)", count(e.n("max_tokens")), map[string]string{"call": "the call's config", "eval": "the eval's config"}[e.s("max_tokens_source")])
	}
	facts = append(facts, field{label: "max_tokens", note: limit})
	if e.has("output_tokens") {
		tok := count(e.n("output_tokens"))
		if e.has("reasoning_tokens") {
			tok += fmt.Sprintf(", of which reasoning %s", count(e.n("reasoning_tokens")))
		}
		facts = append(facts, field{label: "output tokens", note: tok})
	}
	source := e.s("reply_source")
	if e.n("failed_attempts") > 0 {
		source += fmt.Sprintf(", after %d failed attempts", e.n("failed_attempts"))
	}
	facts = append(facts, field{label: "reply from", note: source})
	if e.has("sample_limit") {
		facts = append(facts, field{label: "sample limit", note: e.s("sample_limit")})
	}
	for _, k := range []struct{ col, label string }{{"output_error", "output error"}, {"call_error", "call error"}, {"sample_error", "sample error"}, {"first_attempt_error", "first failed attempt"}} {
		if e.has(k.col) {
			// its first lines in view, escapes as line breaks (foldedPre folds the rest)
			fs = append(fs, field{label: k.label, value: errtext.Text(e.s(k.col)), pre: true})
		}
	}
	if e.has("prompt_text") {
		fs = append(fs, field{label: "prompt (last user turn)", value: e.s("prompt_text"), pre: true})
	} else {
		fs = append(fs, field{label: "prompt (last user turn)", note: "not in the tables (the reply is not a model call's output)"})
	}
	where := fmt.Sprintf("%s %s · %s %s · sample %s, epoch %s", eval, code(e.s("eval")), route, code(e.s("route")), code(e.s("sample_id")), e.s("epoch"))
	if e.s("arm") != vocab.ArmDefault {
		where += " · arm " + e.s("arm")
	}
	id := b.id(fmt.Sprintf("ex-%s-%s", e.s("class"), e.s("draw")))
	return exampleView{id: id, class: e.s("class"), where: where, why: why, fields: fs, facts: facts, nReply: nReply, e: e, cols: cols}
}

type exampleView struct {
	id, class, where, why string
	fields                []field
	facts                 []field // short ones, shown on one line
	nReply                int     // fields before the facts: the text and reasoning
	e                     example
	cols                  []string // class_examples' columns, in order
}

// foldLines is how many lines of a long text show before the rest folds.
const foldLines, foldChars = 12, 1200

func (x exampleView) md(b *strings.Builder) {
	fmt.Fprintf(b, "- **%s**: %s. %s\n", code(x.class), x.where, x.why)
	var facts []string
	for _, f := range x.facts {
		facts = append(facts, f.label+" "+f.note)
	}
	for i, f := range x.fields {
		if i == x.nReply {
			fmt.Fprintf(b, "  - %s\n", strings.Join(facts, " · "))
		}
		switch {
		case f.pre:
			v := f.value
			cut := ""
			if r := []rune(v); len(r) > 600 {
				v, cut = string(r[:600]), fmt.Sprintf(" (first 600 of %s characters)", count(int64(len(r))))
			}
			note := ""
			if f.note != "" {
				note = ", " + f.note
			}
			fmt.Fprintf(b, "  - %s%s%s:\n\n    ```text\n%s\n    ```\n\n", f.label, note, cut, indent(strings.ReplaceAll(v, "```", "'''"), "    "))
		default:
			fmt.Fprintf(b, "  - %s: %s\n", f.label, f.note)
		}
	}
	fmt.Fprintf(b, "  - log: %s, member %s\n", code(x.e.s("path")), code(x.e.s("member")))
	fmt.Fprintf(b, "  - open: `%s`, then [%s](%s)\n\n", x.e.s("view_command"), "inspect view", x.e.s("view_url"))
}

func indent(s, pre string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = pre + l
	}
	return strings.Join(lines, "\n")
}

func (x exampleView) html(b *strings.Builder) {
	fmt.Fprintf(b, "<article class=\"example\" id=\"%s\">\n<header><span class=\"swatch\" style=\"background:%s\"></span><code>%s</code> %s</header>\n<dl>\n<dt>why this class</dt><dd>%s</dd>\n",
		x.id, classColors[x.class], html.EscapeString(x.class), inline(x.where), inline(x.why))
	for i, f := range x.fields {
		if i == x.nReply {
			b.WriteString("<dt>details</dt><dd class=\"facts\">")
			for i, f := range x.facts {
				if i > 0 {
					b.WriteString(" · ")
				}
				fmt.Fprintf(b, "<span><span class=\"meta\">%s</span> %s</span>", html.EscapeString(f.label), html.EscapeString(f.note))
			}
			b.WriteString("</dd>\n")
		}
		fmt.Fprintf(b, "<dt>%s</dt><dd>", html.EscapeString(f.label))
		if f.pre {
			if f.note != "" {
				fmt.Fprintf(b, "<span class=\"meta\">%s</span>", html.EscapeString(f.note))
			}
			b.WriteString(foldedPre(f.value))
		} else {
			cls := "plain"
			if f.label == "text" {
				cls = "plain none"
			}
			fmt.Fprintf(b, "<span class=\"%s\">%s</span>", cls, html.EscapeString(f.note))
		}
		b.WriteString("</dd>\n")
	}
	fmt.Fprintf(b, "<dt>log</dt><dd><code class=\"path\">%s</code> <span class=\"meta\">member</span> <code>%s</code></dd>\n",
		html.EscapeString(x.e.s("path")), html.EscapeString(x.e.s("member")))
	fmt.Fprintf(b, "<dt>open in inspect view</dt><dd><code class=\"path\">%s</code> <span class=\"meta\">then</span> <a href=\"%s\">%s</a></dd>\n",
		html.EscapeString(x.e.s("view_command")), html.EscapeString(x.e.s("view_url")), html.EscapeString(x.e.s("view_url")))
	b.WriteString("</dl>\n<details class=\"raw\"><summary>raw fields</summary>\n<table class=\"raw\">\n")
	for _, k := range x.cols {
		v := x.e[k]
		s := "NULL"
		if v != nil {
			s = text(v)
		}
		fmt.Fprintf(b, "<tr><th>%s</th><td>%s</td></tr>\n", html.EscapeString(k), html.EscapeString(s))
	}
	b.WriteString("</table>\n</details>\n</article>\n")
}

// foldedPre shows a text as it is stored: whole when short, else its first
// lines with the rest behind a toggle.
func foldedPre(s string) string {
	if s == "" {
		return "<pre class=\"empty\">(empty)</pre>"
	}
	if strings.TrimSpace(s) == "" { // the characters themselves, quoted, so they can be seen
		return fmt.Sprintf("<pre class=\"empty\">(whitespace only: %s)</pre>", html.EscapeString(strconv.Quote(s)))
	}
	lines := strings.Split(s, "\n")
	if len(lines) <= foldLines && len(s) <= foldChars {
		return "<pre>" + html.EscapeString(s) + "</pre>"
	}
	head := strings.Join(lines[:min(len(lines), foldLines)], "\n")
	if r := []rune(head); len(r) > foldChars/2 {
		head = string(r[:foldChars/2])
	}
	return fmt.Sprintf("<details class=\"long\"><summary><pre>%s</pre><span class=\"more\">show all %s characters, %s lines</span></summary><pre>%s</pre></details>",
		html.EscapeString(head), count(int64(len([]rune(s)))), count(int64(len(lines))), html.EscapeString(s))
}
