package report

import (
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"empties/internal/numfmt"
)

// Every turn of an agent: a sample whose model under test generated more
// than once (a tool loop, an agent) has a first reply, the study's, and a
// final one, what the scorer grades, and turns between them that can come
// back empty. The first screen says in one line how many samples are
// multi-turn and how many of their final replies are non-answers; a section
// shows turn_rates' cells that have such samples and turn_examples' empty
// turns with the turns around them. Neither appears when no sample is
// multi-turn. The numbers are the rows of turn_rates and turn_examples, as
// the SQL wrote them.

const hTurns = "Every turn: multi-turn samples"

// turnsOverview is the default arm's multi-turn counts (report_turns_overview).
type turnsOverview struct {
	samples, multiTurn, multiReplies, finalNonAnswers int64
}

// turns reads the counts; nil when there is no turn_rates table or no
// multi-turn sample.
func (b *builder) turns() (*turnsOverview, error) {
	if !b.have["turn_rates"] {
		return nil, nil
	}
	_, rows, err := b.query("report_turns_overview", nil)
	if err != nil {
		return nil, fmt.Errorf("report: turn_rates: %w", err)
	}
	if len(rows) == 0 {
		return nil, nil
	}
	r := rows[0]
	n := func(i int) int64 { x, _ := asInt(r[i]); return x }
	t := &turnsOverview{samples: n(0), multiTurn: n(1), multiReplies: n(2), finalNonAnswers: n(3)}
	if t.multiTurn == 0 {
		return nil, nil
	}
	return t, nil
}

// line is the first screen's line: one line at 1400 px.
func (t *turnsOverview) line() string {
	return fmt.Sprintf("**Multi-turn** (more than one generation): %s of %s samples; non-answers among their final replies: %s of %s. %s.",
		count(t.multiTurn), count(t.samples), count(t.finalNonAnswers), count(t.multiReplies), link("Every turn", hTurns))
}

// turnsSection shows the multi-turn cells and the empty turns.
func (b *builder) turnsSection() (block, error) {
	eval, _, route, _ := b.modeWords()
	blocks := []block{b.h(2, hTurns), para{text: "The reply the study classifies is the model under test's first completed generation; on a tool loop or an agent, the scorer grades its last, and the turns between can come back empty too. Every generation has a class by the same rules, with its own call's tools offered (`model_calls.class`); the final reply's is `replies.final_class`. A sample is multi-turn when it has more than one generation. Where the manifest places an eval whose judge runs in the solver (AIR-Bench), that judge's generation is none of its turns, and its final reply is its first; without a manifest nothing tells such a judge from a turn."}}
	cols, rows, err := b.query("report_turn_rates", nil)
	if err != nil {
		return nil, fmt.Errorf("report: turn_rates: %w", err)
	}
	v, err := b.viewOf(b.id("t-turn-rates"), "report_turn_rates", "", cols, rows, viewOptions{keepOrder: true})
	if err != nil {
		return nil, err
	}
	v.csv = "turn_rates"
	blocks = append(blocks, b.h(3, fmt.Sprintf("Non-answer turns per %s × %s", eval, route)),
		para{text: fmt.Sprintf("Every %s × %s cell with a multi-turn sample, most non-answer generations first. The share of generations has the generation as its unit and a Wilson interval at an effective size that takes each sample's generations as one cluster (`generation_effective_n` in the table's files: the generations over the design effect); the other shares are of the cell's samples, the sample the unit, with Wilson intervals over them, as every rate of the page.", eval, route)}, v)
	blocks = append(blocks, b.h(3, "Empty turns, with the turns around them"))
	if !b.have["turn_examples"] {
		blocks = append(blocks, para{text: fmt.Sprintf("No turn_examples table: %s.", b.unavailable("turn_examples"))})
		return section{id: "turns-section", blocks: blocks}, nil
	}
	cols, rows, err = b.query("report_turn_examples", nil, sql.Named("classes", b.vocab.Classes))
	if err != nil {
		return nil, fmt.Errorf("report: turn_examples: %w", err)
	}
	if len(rows) == 0 {
		blocks = append(blocks, para{text: "No generation of a multi-turn sample is a non-answer."})
		return section{id: "turns-section", blocks: blocks}, nil
	}
	ex, err := b.viewOf(b.id("t-turn-examples"), "report_turn_examples", "", cols, rows, viewOptions{keepOrder: true, omit: map[string]bool{"view_command": true}})
	if err != nil {
		return nil, err
	}
	ex.csv = "turn_examples"
	blocks = append(blocks, para{text: "A few non-answer generations of each class in multi-turn samples, drawn with the examples seed (`turn_examples`): the turn, the turns on either side, and the sample's first and final class."}, ex,
		para{text: openInView(cols, rows)})
	return section{id: "turns-section", blocks: blocks}, nil
}

// openInView says how to open the examples in inspect view, below their
// table: the commands that serve their logs' folders (view_command, a
// column the table leaves out so that it fits the page), the first three
// of them in the rows' order, and where each sample's address is.
func openInView(cols []string, rows [][]any) string {
	at := slices.Index(cols, "view_command")
	var cmds []string
	for _, r := range rows {
		if c, ok := r[at].(string); ok && c != "" && !slices.Contains(cmds, "`"+c+"`") {
			cmds = append(cmds, "`"+c+"`")
		}
	}
	serve := strings.Join(cmds, ", ")
	if len(cmds) > 3 {
		serve = strings.Join(cmds[:3], ", ") + fmt.Sprintf(" and %s more", numfmt.Plural(int64(len(cmds)-3), "folder", "folders"))
	}
	return fmt.Sprintf("To open a turn in inspect view, serve its log's folder (%s) and go to the sample; `view_command` and `view_url` in the table's files give each one's command and address.", serve)
}
