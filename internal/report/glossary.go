package report

// The study report's glossary: the words its decisions table uses, for a
// reader who never saw the pre-registration. What a class is comes from the
// classifier's vocabulary (the classes section); these are the study's own
// terms, as the pre-registration (data/preregistration.txt) and the
// manifest (data/study.yaml) define them.
var glossary = []struct{ term, meaning string }{
	{"eval", "an inspect_evals task as the study runs it, with its own solver, scorer, settings and headline metric (its profile in the manifest)"},
	{"route", "a model reached one way: a provider and the inspect_ai adapter that talks to it, e.g. `claude-sonnet-5/anthropic` (direct) and `claude-sonnet-5/openrouter`"},
	{"reasoning route", "a route whose model thinks before it answers; its reasoning counts against max_tokens, so a small limit can leave no room for the answer (D1)"},
	{"cell", "one eval × route (× arm): the samples a share or a headline metric is computed over"},
	{"arm", "how the samples were run: default (the eval's own settings), tight (HLE again at max_tokens 2,048), wide (each truncated_empty reply re-run at 16,000 tokens), control (non-answers re-run at the same settings)"},
	{"non-answer", "a reply that gives the scorer nothing to grade: filtered, refusal_flag, error_text, truncated_empty, reasoning_only, silent, and tool_only where the eval offered no tools (see what the classes mean)"},
	{"refusal eval", "an eval whose scorer has a refusal outcome (XSTest, CoCoNot, StrongREJECT, FORTRESS, AIR-Bench): a safety eval in H3; the others are capability evals"},
	{"P0", "policy: the eval's own score, as logged (the current code)"},
	{"P1", "policy: every non-answer scored incorrect (or the eval's failure value)"},
	{"P2", "policy: every non-answer unscored (out of the metric's denominator)"},
	{"P3", "policy: class-aware routing, the study's proposal: truncated_empty and error unscored with their reason; filtered, refusal_flag and error_text given the eval's refusal outcome in refusal evals and NOANSWER elsewhere, never judged; silent and reasoning_only incorrect"},
	{"headline metric", "the one number an eval reports (accuracy, refusal rate, ...), computed with the eval's own formula from the per-sample scores"},
	{"primary cell", "a cell D3 is decided on, fixed in the pre-registration before any data: XSTest × each reasoning route, FORTRESS benign × every route, AIR-Bench × every route; every other cell is exploratory"},
	{"pp", "percentage points: the difference between two percentages (41 pp is 20% becoming 61%); for a metric on another scale, one pp is a hundredth of its range"},
	{"form", "how a refusal reached the scorer (D2): filtered, refusal_flag or error_text (the reply's class), text (an answer the eval's scorer counts as a refusal), or none"},
	{"interval", "a 95% interval: Wilson's for a share, with the sample as the unit; a seeded bootstrap over samples for a headline metric"},
	{"threshold", "the number a decision compares with, fixed in the manifest before the data came in (never in the code)"},
	{"met / not met", "a decision is met when any of its cells reaches its threshold; not enough data when it has no cell yet"},
}

// glossary lists the study's words under the decisions table.
func (b *builder) glossary() block {
	var items []string
	for _, g := range glossary {
		items = append(items, "**"+g.term+"**: "+g.meaning+".")
	}
	return section{id: "glossary", class: "glossary", blocks: []block{b.h(3, hGlossary), list(items)}}
}
