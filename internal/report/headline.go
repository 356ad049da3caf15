package report

import (
	"database/sql"
	"fmt"
	"html"
	"strconv"
	"strings"

	"empties/internal/vocab"
)

// The first screen answers the question the report exists for: of all the
// samples, how many replies came back as non-answers, in which classes, and
// how many samples had no reply at all, each share with its interval; then
// per model (route) and the task × model cells where non-answers are most
// frequent. The numbers are the rows of overview, overview_classes,
// non_answer_rates and log_accounting, as the SQL wrote them.

// part is one of the three parts every sample's reply counts as.
type part struct {
	key, title, what string
	n                int64   // replies
	rate, low, high  float64 // share of samples
	classes          []classShare
}

type classShare struct {
	class           string
	n               int64
	rate, low, high float64
}

func (b *builder) headline() ([]block, error) {
	var blocks []block
	if b.study {
		blocks = append(blocks, b.h(2, "Non-answers, no replies and answers (default arm)"))
	} else {
		blocks = append(blocks, b.h(2, "How often replies come back empty"))
	}
	if !b.have["overview"] {
		blocks = append(blocks, para{text: "No overview table: run `empties analyze` (or `empties run LOGS --out DIR`) to compute the rates."})
		return []block{section{id: "headline", class: "headline", blocks: blocks}}, nil
	}
	_, rows, err := b.query("report_overview", nil)
	if err != nil {
		return nil, fmt.Errorf("report: overview: %w", err)
	}
	if len(rows) == 0 {
		blocks = append(blocks, para{text: "No samples to count: the logs hold no sample of the model under test (`log_accounting` below says what was read)."})
		return []block{section{id: "headline", class: "headline", blocks: blocks}}, nil
	}
	r := rows[0]
	f := func(i int) float64 { x, _ := asFloat(r[i]); return x }
	n := func(i int) int64 { x, _ := asInt(r[i]); return x }
	level := f(16)
	b.cells = n(18)
	logs, err := b.logsLine()
	if err != nil {
		return nil, err
	}
	eval, evals, route, routes := b.modeWords()
	lead := fmt.Sprintf("%s · **%s samples**, %s replies · %s · %s.", logs, count(n(2)), count(n(3)),
		plural(n(0), eval, evals), plural(n(17), route, routes))
	def := b.partDefinitions()
	parts := []*part{
		{key: vocab.CountsNonAnswer, title: "Non-answers", what: def[vocab.CountsNonAnswer],
			n: n(4), rate: f(5), low: f(6), high: f(7)},
		{key: vocab.CountsNoReply, title: "No reply at all", what: def[vocab.CountsNoReply],
			n: n(8), rate: f(9), low: f(10), high: f(11)},
		{key: vocab.CountsAnswer, title: "Answers", what: def[vocab.CountsAnswer],
			n: n(12), rate: f(13), low: f(14), high: f(15)},
	}
	_, crows, err := b.query("report_overview_classes", nil)
	if err != nil {
		return nil, fmt.Errorf("report: overview_classes: %w", err)
	}
	for _, c := range crows {
		for _, pt := range parts {
			if text(c[0]) == pt.key {
				cs := classShare{class: text(c[1])}
				cs.n, _ = asInt(c[2])
				cs.rate, _ = asFloat(c[3])
				cs.low, _ = asFloat(c[4])
				cs.high, _ = asFloat(c[5])
				pt.classes = append(pt.classes, cs)
			}
		}
	}
	blocks = append(blocks, para{text: lead, class: "lead"})
	if b.multi != nil {
		blocks = append(blocks, para{text: b.multi.line(), class: "lead turns-line"})
	}
	blocks = append(blocks, cards(parts, n(2), level), para{text: fmt.Sprintf(
		"Shares of all %s samples, each counted once (a sample with several epochs counts the share of its replies), with %s Wilson intervals. The reply is the first completed generation of the model under test. A sample with no reply is not a non-answer: it is counted beside them, never folded in. %s.",
		count(n(2)), levelText(level), link("What each class means", hClasses)), class: "rule"})
	byModel, err := b.byRoute(headlineRows)
	if err != nil {
		return nil, err
	}
	blocks = append(blocks, byModel...)
	worst, err := b.worstCells()
	if err != nil {
		return nil, err
	}
	blocks = append(blocks, worst...)
	blocks = append(blocks, b.contents())
	return []block{section{id: "headline", class: "headline", blocks: blocks}}, nil
}

// logsLine says what was read: log files by status, and those that could
// not be read, from log_accounting's rows.
func (b *builder) logsLine() (string, error) {
	if !b.have["log_accounting"] {
		return "Logs: no log_accounting table", nil
	}
	_, rows, err := b.query("report_log_accounting", nil)
	if err != nil {
		return "", fmt.Errorf("report: log_accounting: %w", err)
	}
	var read []string
	unreadable, superseded := "every file could be read", ""
	for _, r := range rows {
		st, nl := text(r[0]), r[1]
		k, _ := asInt(nl)
		switch st {
		case "unreadable":
			unreadable = fmt.Sprintf("**%s could not be read**", count(k))
		case "superseded":
			superseded = fmt.Sprintf("; %s superseded by a newer attempt (not counted)", count(k))
		default:
			read = append(read, fmt.Sprintf("%s %s", count(k), st))
		}
	}
	return fmt.Sprintf("Log files: %s%s; %s", strings.Join(read, ", "), superseded, unreadable), nil
}

// cards renders the three parts: big numbers in HTML, a table in Markdown.
func cards(parts []*part, samples int64, level float64) block {
	var md, h strings.Builder
	fmt.Fprintf(&md, "| of %s samples | share | %s interval | replies | what | by class |\n|---|--:|--:|--:|---|---|\n", count(samples), levelText(level))
	h.WriteString("<div class=\"cards\">\n")
	for _, pt := range parts {
		var cls, clsHTML []string
		for _, c := range pt.classes {
			cls = append(cls, fmt.Sprintf("%s %s %s", code(c.class), pct(c.rate), interval(pct(c.low), pct(c.high))))
			clsHTML = append(clsHTML, fmt.Sprintf("<li><span class=\"swatch\" style=\"background:%s\"></span><code>%s</code> %s <span class=\"ci\">%s</span> <span class=\"n\">%s</span></li>",
				classColors[c.class], html.EscapeString(c.class), pct(c.rate), interval(pct(c.low), pct(c.high)), count(c.n)))
		}
		by := strings.Join(cls, "; ")
		if by == "" {
			by = "none"
		}
		fmt.Fprintf(&md, "| **%s** | **%s** | %s | %s | %s | %s |\n", pt.title, pct(pt.rate), interval(pct(pt.low), pct(pt.high)), count(pt.n), pt.what, by)
		fmt.Fprintf(&h, "<div class=\"card card-%s\">\n<div class=\"card-title\">%s</div>\n<div class=\"big\">%s</div>\n<div class=\"ci\">%s interval %s · %s replies</div>\n<div class=\"what\">%s</div>\n",
			pt.key, pt.title, pct(pt.rate), levelText(level), interval(pct(pt.low), pct(pt.high)), count(pt.n), inline(pt.what))
		if len(clsHTML) > 0 {
			fmt.Fprintf(&h, "<ul class=\"classes\">%s</ul>\n", strings.Join(clsHTML, ""))
		}
		h.WriteString("</div>\n")
	}
	h.WriteString("</div>\n")
	md.WriteString("\n")
	return rawHTML{markdown: md.String(), markup: h.String()}
}

// levelText renders an interval level: 95%.
func levelText(level float64) string {
	return trimZeros(strconv.FormatFloat(level*100, 'f', 2, 64)) + "%"
}

// partDefinitions says what each part is, from the vocabulary the
// classifier exports (`empties schema --format json`).
func (b *builder) partDefinitions() map[string]string {
	var always, unless, none, answer []string
	for _, d := range b.vocab.Definitions {
		switch d.CountsAs {
		case vocab.CountsNonAnswer:
			always = append(always, code(d.Class))
		case vocab.CountsNonAnswerUnlessOffered:
			unless = append(unless, code(d.Class))
		case vocab.CountsNoReply:
			none = append(none, code(d.Class))
		default:
			answer = append(answer, code(d.Class))
		}
	}
	non := "A reply in class " + orList(always)
	ans := "Every other reply: " + orList(answer)
	if len(unless) > 0 {
		non += ", or " + orList(unless) + " where the eval offered no tools"
		ans += ", and " + orList(unless) + " where tools were offered"
	}
	return map[string]string{
		vocab.CountsNonAnswer: non + ".",
		vocab.CountsNoReply:   "Class " + orList(none) + ": the sample raised an error, or nothing came back.",
		vocab.CountsAnswer:    ans + ".",
	}
}

func orList(items []string) string {
	switch len(items) {
	case 0:
		return "(none)"
	case 1:
		return items[0]
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

// headlineRows is how many models and cells the first screen lists.
const headlineRows = 10

// byRoute is one row per model (route), most non-answers first: its samples
// and the shares; the first limit rows (0: all).
func (b *builder) byRoute(limit int) ([]block, error) {
	_, _, route, routes := b.modeWords()
	cols, rows, err := b.query("report_by_route", nil)
	if err != nil {
		return nil, fmt.Errorf("report: overview: %w", err)
	}
	all := len(rows)
	if limit > 0 && len(rows) > limit {
		rows = rows[:limit]
	}
	v, err := b.viewOf(b.id("t-by-"+route), "report_by_route", "", cols, rows, viewOptions{keepOrder: true, keepConstant: true})
	if err != nil {
		return nil, err
	}
	if limit == 0 {
		v.csv = "overview"
		return []block{b.h(3, "Every "+route), v}, nil
	}
	note := fmt.Sprintf("One row per %s, most non-answers first.", route)
	if all > len(rows) {
		note = fmt.Sprintf("The %d %s with the most non-answers of %d; %s.", len(rows), routes, all, link("every "+route, "Every "+route))
	}
	return []block{b.h(3, "By "+route), v, para{text: note}}, nil
}

// worstCells lists the task × model cells with the highest non-answer
// shares, each with its samples and interval.
func (b *builder) worstCells() ([]block, error) {
	eval, _, route, _ := b.modeWords()
	if !b.have["non_answer_rates"] {
		return nil, nil
	}
	cols, rows, err := b.query("report_worst_cells", nil, sql.Named("classes", b.nonAnswerish()))
	if err != nil {
		return nil, fmt.Errorf("report: non_answer_rates: %w", err)
	}
	h := b.h(3, fmt.Sprintf("Where non-answers are most frequent (%s × %s)", eval, route))
	if len(rows) == 0 {
		return []block{h, para{text: fmt.Sprintf("No %s × %s cell has a non-answer.", eval, route)}}, nil
	}
	v, err := b.viewOf(b.id("t-worst-cells"), "report_worst_cells", "", cols, rows, viewOptions{keepOrder: true, keepConstant: true})
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf("The %s with the highest non-answer share, of %s; read each share with its interval and its samples (a cell of one sample is 0%% or 100%%). Every cell: %s.",
		plural(int64(len(rows)), "cell", "cells"), plural(b.cells, "cell", "cells"), link(fmt.Sprintf("non-answer rates per %s × %s", eval, route), fmt.Sprintf("Non-answer rates per %s × %s", eval, route)))
	return []block{h, v, para{text: note}}, nil
}

// nonAnswerish are the classes that are a non-answer always or where no
// tools were offered.
func (b *builder) nonAnswerish() []string {
	var out []string
	for _, d := range b.vocab.Definitions {
		if d.CountsAs == vocab.CountsNonAnswer || d.CountsAs == vocab.CountsNonAnswerUnlessOffered {
			out = append(out, d.Class)
		}
	}
	return out
}

// contents links the page's sections.
func (b *builder) contents() block {
	links := []string{link("classes", hClasses), link("charts", hCharts), link("examples", hExamples)}
	if b.multi != nil {
		links = append(links, link("multi-turn samples", hTurns))
	}
	links = append(links, link("rates per cell", b.ratesTitle()), link("all tables", hTables))
	if b.study {
		links = append([]string{link("decisions", hDecisions)}, links...)
	}
	return para{text: "On this page: " + strings.Join(links, " · ") + ".", class: "contents"}
}

// definitions lists every class: what it means, how it counts, the rules
// that give it, from the vocabulary.
func (b *builder) definitions() block {
	rules := map[string][]string{}
	for _, r := range b.vocab.Rules {
		rules[r.Class] = append(rules[r.Class], code(r.ID)+": "+r.Seed)
	}
	counts := map[string]string{
		vocab.CountsNonAnswer:              "non-answer",
		vocab.CountsNonAnswerUnlessOffered: "non-answer if the eval offered no tools, else answer",
		vocab.CountsNoReply:                "no reply",
		vocab.CountsAnswer:                 "answer",
	}
	var md, h strings.Builder
	md.WriteString("| class | counts as | meaning | rule (first match wins) |\n|---|---|---|---|\n")
	h.WriteString("<div class=\"scroll\"><table class=\"defs\">\n<thead><tr><th>class</th><th>counts as</th><th>meaning</th><th>rule (first match wins)</th></tr></thead>\n<tbody>\n")
	for _, d := range b.vocab.Definitions {
		fmt.Fprintf(&md, "| %s | %s | %s | %s |\n", code(d.Class), counts[d.CountsAs], mdCell(d.Meaning, 0), mdCell(strings.Join(rules[d.Class], "; "), 0))
		var rs []string
		for _, r := range rules[d.Class] {
			rs = append(rs, inline(r))
		}
		fmt.Fprintf(&h, "<tr id=\"class-%s\"><td><span class=\"swatch\" style=\"background:%s\"></span><code>%s</code></td><td>%s</td><td class=\"text\">%s</td><td class=\"text\">%s</td></tr>\n",
			d.Class, classColors[d.Class], d.Class, identifierHTML(counts[d.CountsAs]), html.EscapeString(d.Meaning), strings.Join(rs, "<br>"))
	}
	h.WriteString("</tbody>\n</table></div>\n")
	md.WriteString("\n")
	return section{id: "classes-section", blocks: []block{
		b.h(2, hClasses),
		para{text: fmt.Sprintf("Every reply of the model under test gets one class, by the first rule that matches (classifier %s; `empties schema --format json` exports these definitions, `internal/classify` holds the rules).", code(b.vocab.ClassifierVersion))},
		rawHTML{markdown: md.String(), markup: h.String()},
	}}
}
