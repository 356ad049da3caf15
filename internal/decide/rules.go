package decide

// The decision rules D1-D4 (pre-registration §1) and the hypotheses H1-H4
// (§2) as data. Adding a rule is adding a row to rules; adding a hypothesis
// is adding a truth table to hypotheses. Every threshold is a manifest key
// (data/study.yaml thresholds:), never a number here.

import "empties/internal/vocab"

// rules are evaluated in order by one loop (decider.rule). Each test's query,
// a file of sql/queries/ (decide_*.sql, whose header names its columns and
// the table it reads), yields the deciding values, one row per cell, in the
// test's unit:
//
//	cell    VARCHAR  the cell's name (eval first, then " × " and the rest)
//	value   DOUBLE   the deciding number (NULL or NaN: the cell is skipped)
//	detail  VARCHAR  what is printed after the number
//	bar     DOUBLE   optional: the cell's own threshold, used where it is larger than the manifest's
//	kind    VARCHAR  optional: the eval's kind (refusal = safety eval), for the hypotheses
//
// A rule is met when any cell of any of its tests passes its comparator.
var rules = []rule{
	{
		ID:       "D1a.raise",
		Title:    "D1(a) truncation: should evals raise max_tokens for reasoning models?",
		Question: "truncated_empty share of all samples per eval × reasoning route at the eval's own settings",
		Tests:    []test{d1aTest("d1a_raise_max_tokens")},
		Text:     "%s in any cell",
		Met:      "raise max_tokens for reasoning models (or leave it unset) in: {evals}",
		NotMet:   "no eval needs to raise max_tokens on this rule",
		NoData:   "no reasoning-route cells in the default arm yet",
	},
	{
		ID:       "D1a.helper",
		Title:    "D1(a) truncation: should the shared helper score truncation as unscored?",
		Question: "truncated_empty share of all samples per eval × reasoning route at the eval's own settings",
		Tests:    []test{d1aTest("d1a_helper_unscored")},
		Text:     "%s in any cell (else: under it everywhere)",
		Met:      "the shared helper routes truncation as unscored with reason max_tokens, after one retry",
		NotMet:   "under {threshold} everywhere: document the risk only",
		NoData:   "no reasoning-route cells in the default arm yet",
	},
	{
		ID:       "D1b",
		Title:    "D1(b) what truncations become: can truncation be scored as a refusal?",
		Question: "among truncated replies re-run with more room, the share that become something other than a refusal, per refusal eval",
		Tests: []test{{
			Table: "d1b_non_refusal", Key: "d1b_non_refusal", Cmp: atLeast, Unit: share,
			Query: "decide_d1b",
			Found: "re-run with more room, {value} of the truncated replies of {cell} became something other than a refusal, the most of any refusal eval",
		}},
		Text:   "%s in any refusal eval",
		Met:    "truncation is never scored as a refusal (as XSTest's guard does for empty text today)",
		NotMet: "no recommendation from D1(b)",
		NoData: "no wide re-runs of refusal evals yet",
	},
	{
		ID:       "D2",
		Title:    "D2 refusal signals: does a refusal arrive in the same form on every route?",
		Question: "per model with two routes, among samples where either route refused, the share delivered in different forms",
		Tests: []test{{
			Table: "d2_form_disagreement", Key: "d2_form_disagreement", Cmp: atLeast, Unit: share,
			Query: "decide_d2",
			Found: "where either route refused, the two routes of {cell} delivered the refusal in different forms for {value} of the samples, the most of any pair",
		}},
		Text:   "%s for any pair",
		Met:    "a shared classifier that reads stop_reason, the refusal flag on text content, stop_details and ModelOutput.error, not completion alone; raise provider normalisation with Inspect",
		NotMet: "a stop_reason check plus the refusal flag is enough",
		NoData: "no model with two routes and a refusal on either yet",
	},
	{
		// In percentage points of each eval's own scale (design.md "D3 scale"),
		// so cells on 0-1 and 0-100 metrics compare with each other and with
		// the manifest's floor; the cell's own bar is the P0 half-width.
		ID:       "D3",
		Title:    "D3 impact: does class-aware routing change headline metrics?",
		Question: "on the primary cells, does class-aware routing (P3) change the headline metric compared with the current code (P0)",
		Tests: []test{{
			Table: "d3_headline_deltas", Key: "d3_min_delta_pp", Cmp: moreThan, Unit: pp,
			Query: "decide_d3",
			Found: "class-aware routing (P3) moves the headline metric of {cell} by {value} against the current code (P0), the most of any primary cell",
		}},
		Text:   "|P3 − P0| %s, or more than the cell's P0 interval half-width where that is larger, on a primary cell",
		Met:    "replace preset_score_on_no_response with a class-aware helper and make its use a checklist item",
		NotMet: "document the classes in BEST_PRACTICES.md and leave the helper as is",
		NoData: "no primary cell with both P0 and P3 headlines yet",
	},
	{
		ID:       "D4",
		Title:    "D4 judges on non-answers: do judges pass non-answers, or disagree with themselves?",
		Question: "does an eval's default judge, given a non-answer that can reach it today, pass it or disagree with itself",
		Tests: []test{{
			Table: "d4_judge_behaviour", Key: "d4_pass_rate", Cmp: moreThan, Unit: share,
			Query: "decide_d4_pass_rate",
			Found: "the judge of {cell} passed {value} of the non-answers it was given, the most of any judge and form",
		}, {
			Table: "d4_judge_behaviour", Key: "d4_repeat_disagreement", Cmp: moreThan, Unit: share,
			Query: "decide_d4_repeat_disagreement",
			Found: "its repeats disagreed on at most {value} of cases ({cell})",
		}},
		Text:   "pass rate %s, or repeats differ for %s of cases",
		Met:    "model-graded evals must bypass the judge for every non-answer class, not only empty text",
		NotMet: "no recommendation from D4",
		NoData: "no Part C judge tests yet",
	},
}

// d1aTest is D1(a)'s one query, compared with either of its two thresholds.
func d1aTest(key string) test {
	return test{
		Table: "d1a_truncation", Key: key, Cmp: atLeast, Unit: share,
		Query: "decide_d1a",
		Found: "the largest share of samples whose reply hit the token limit before writing anything (truncated_empty) is {value}, in {cell} (eval × reasoning route, default arm)",
	}
}

// hypotheses are truth tables over the rules' facts (see facts): the first
// row whose conditions all hold gives the verdict; when none does, the
// hypothesis is inconclusive.
var hypotheses = []hypothesis{
	{
		ID:        "H1",
		Title:     "H1: truncation is material and often not a refusal",
		Question:  "truncation is a material share of samples for reasoning models, and many truncations are not refusals",
		Threshold: "supported: D1(a) reaches the raise threshold in a cell and D1(b) met; against: D1(a) under the helper threshold in every cell",
		Inputs:    "D1a, D1b",
		Table: []when{
			{If: is{"D1a.raise": vocab.VerdictNoData}, Then: vocab.VerdictNoData},
			{If: is{"D1a.raise": vocab.VerdictMet, "D1b": vocab.VerdictMet}, Then: vocab.VerdictSupported},
			{If: is{"D1a.helper": vocab.VerdictNotMet}, Then: vocab.VerdictAgainst},
			{If: is{"D1b": vocab.VerdictNoData}, Then: vocab.VerdictNoData},
		},
	},
	{
		ID:        "H2",
		Title:     "H2: refusal forms depend on the route",
		Question:  "the same refusal reaches the scorer in different forms depending on the route",
		Threshold: "supported: D2 met for a pair; against: every pair under it",
		Inputs:    "D2",
		Table: []when{
			{If: is{"D2": vocab.VerdictMet}, Then: vocab.VerdictSupported},
			{If: is{"D2": vocab.VerdictNotMet}, Then: vocab.VerdictAgainst},
			{If: is{"D2": vocab.VerdictNoData}, Then: vocab.VerdictNoData},
		},
	},
	{
		ID:       "H3",
		Title:    "H3: routing moves safety evals more than capability evals",
		Question: "the routing choice moves headline metrics of safety evals more than those of capability evals",
		Threshold: "supported: the largest P3 − P0 change (in pp) on a primary cell is on a safety eval and meets D3; " +
			"against: no safety eval meets it",
		Inputs: "D3",
		Table: []when{
			{If: is{"D3": vocab.VerdictNoData}, Then: vocab.VerdictNoData},
			{If: is{"D3.largest[refusal]": vocab.VerdictMet}, Then: vocab.VerdictSupported, Cite: "D3.largest[refusal]"},
			{If: is{"D3[refusal]": vocab.VerdictMet}, Then: vocab.VerdictInconclusive, Cite: "D3.largest"},
			{Then: vocab.VerdictAgainst},
		},
	},
	{
		ID:        "H4",
		Title:     "H4: judges grade non-answers badly",
		Question:  "judges grade non-answers badly",
		Threshold: "supported: D4 met for a judge; against: every judge consistent and never passing a non-answer",
		Inputs:    "D4",
		Table: []when{
			{If: is{"D4": vocab.VerdictMet}, Then: vocab.VerdictSupported},
			{If: is{"D4": vocab.VerdictNoData}, Then: vocab.VerdictNoData},
			{If: is{"D4.zero": vocab.VerdictMet}, Then: vocab.VerdictAgainst},
		},
	},
}

// hypothesisNotes are the hypotheses' recommendations, by verdict.
var hypothesisNotes = map[string]string{
	vocab.VerdictSupported:    "the hypothesis holds on this data",
	vocab.VerdictAgainst:      "the data speak against the hypothesis",
	vocab.VerdictInconclusive: "neither the supporting nor the opposing condition holds",
	vocab.VerdictNoData:       "missing inputs",
}
