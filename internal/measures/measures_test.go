package measures

import "testing"

// Every .sql file has a table-driven test here: given rows in the declared
// input tables, the exact expected rows. Wilson ends in the expectations are
// statsmodels' proportion_confint(x, n, alpha=0.05, method="wilson"), to six
// significant digits (stats_test.go checks the macro to 1e-12 on more cases).
//
//	x, n      low        high
//	0, 1      0          0.793451
//	0, 3      0          0.561497
//	0.5, 1    0.0546208  0.945379
//	0.5, 3    0.0176528  0.690012
//	1, 1      0.206549   1
//	1, 2      0.0945312  0.905469
//	1, 3      0.0614919  0.79234
//	4/3, 2    0.159382   0.954745
//	4/3, 3    0.101989   0.849289
//	1.5, 2    0.197867   0.973323
//	1.5, 3    0.125334   0.874666
//	2, 3      0.20766    0.938508
//	2.5, 4    0.219427   0.908101

// xstestReplies: sample s1 has two epochs (answer, truncated_empty), s2 is
// truncated, s3 errored; a Part C log and an unprofiled log beside them.
const xstestReplies = `
INSERT INTO log_assignments (log_id, eval, route, arm, part) VALUES
  ('L1', 'xs', 'r1', 'default', 'A'), ('L2', 'xs', 'r1', 'default', 'C');
INSERT INTO replies (log_id, task, model, sample_id, epoch, class, non_answer) VALUES
  ('L1', 'xstest', 'openai/mut', 's1', 1, 'answer', false),
  ('L1', 'xstest', 'openai/mut', 's1', 2, 'truncated_empty', true),
  ('L1', 'xstest', 'openai/mut', 's2', 1, 'truncated_empty', true),
  ('L1', 'xstest', 'openai/mut', 's3', 1, 'error', false),
  ('L2', 'xstest', 'openai/mut', 's1', 1, 'silent', true),
  ('L3', 'other_task', 'm/x', 's1', 1, 'answer', false);
`

const studyRoutes = `
INSERT INTO study_routes VALUES
  ('r1', 'm1', 'p', 'a', true, 1, 2, 4, 0.1),
  ('r2', 'm2', 'p', 'a', false, 1, 1, 1, 1),
  ('judge_route', 'judge', 'p', 'a', false, 10, 20, 20, 1);
`

const studyEvals = `
INSERT INTO study_evals (eval, title, kind, metric, scale, higher_is_better, judge_where, judge_guarded, profile) VALUES
  ('xs', 'XSTest', 'refusal', 'refusal_rate', 100, false, 'scorer', true, 'xs.yaml'),
  ('hle', 'HLE', 'capability', 'accuracy', 1, true, 'scorer', true, 'hle.yaml');
`

func TestStudyReplies(t *testing.T) {
	runMeasures(t, "study_replies", []measureCase{{
		name:  "a sample's epochs share its weight; Part C is left out; unprofiled logs keep task and model",
		given: xstestReplies,
		query: "SELECT eval, profiled, route, arm, sample_id, epoch, class, sample_weight FROM study_replies ORDER BY ALL",
		want: []string{
			"other_task | false | m/x | default | s1 | 1 | answer | 1",
			"xs | true | r1 | default | s1 | 1 | answer | 0.5",
			"xs | true | r1 | default | s1 | 2 | truncated_empty | 0.5",
			"xs | true | r1 | default | s2 | 1 | truncated_empty | 1",
			"xs | true | r1 | default | s3 | 1 | error | 1",
		},
	}})
}

func TestClassRates(t *testing.T) {
	runMeasures(t, "class_rates", []measureCase{{
		name:  "epochs as shares of a sample, errors counted",
		given: xstestReplies,
		query: "SELECT * FROM class_rates WHERE n_class_replies > 0 OR class = 'silent' ORDER BY eval, route, arm, class",
		want: []string{
			"other_task | false | m/x | default | answer | 1 | 1 | 1 | 1 | 1 | 0.206549 | 1 | 0.95",
			"other_task | false | m/x | default | silent | 1 | 1 | 0 | 0 | 0 | 0 | 0.793451 | 0.95",
			"xs | true | r1 | default | answer | 3 | 4 | 1 | 0.5 | 0.166667 | 0.0176528 | 0.690012 | 0.95",
			"xs | true | r1 | default | error | 3 | 4 | 1 | 1 | 0.333333 | 0.0614919 | 0.79234 | 0.95",
			"xs | true | r1 | default | silent | 3 | 4 | 0 | 0 | 0 | 0 | 0.561497 | 0.95",
			"xs | true | r1 | default | truncated_empty | 3 | 4 | 2 | 1.5 | 0.5 | 0.125334 | 0.874666 | 0.95",
		},
	}, {
		name:  "every class of the seed in every cell, shares summing to 1",
		given: xstestReplies,
		query: "SELECT eval, route, arm, count(*), sum(rate) FROM class_rates GROUP BY ALL ORDER BY ALL",
		want:  []string{"other_task | m/x | default | 11 | 1", "xs | r1 | default | 11 | 1"},
	}, {
		name: "an unprofiled log named like a profiled cell stays apart",
		given: `INSERT INTO log_assignments (log_id, eval, route, arm, part) VALUES ('L1', 'xs', 'r1', 'default', 'A'), ('L7', NULL, 'r1', 'default', 'A');
		INSERT INTO replies (log_id, task, model, sample_id, epoch, class, non_answer) VALUES
		  ('L1', 'xstest', 'openai/mut', 's1', 1, 'answer', false),
		  ('L7', 'xs', 'openai/mut', 's1', 1, 'silent', true);`,
		query: "SELECT eval, profiled, route, class, n_samples, rate FROM class_rates WHERE n_class_replies > 0 ORDER BY ALL",
		want: []string{
			"xs | false | r1 | silent | 1 | 1",
			"xs | true | r1 | answer | 1 | 1",
		},
	}, {
		name: "without log_assignments every log counts, by task and model",
		given: `INSERT INTO replies (log_id, task, model, sample_id, epoch, class, non_answer) VALUES
		  ('L1', 'xstest', 'openai/mut', 's1', 1, 'answer', false),
		  ('L1', 'xstest', 'openai/mut', 's1', 2, 'truncated_empty', true),
		  ('L1', 'xstest', 'openai/mut', 's2', 1, 'truncated_empty', true),
		  ('L1', 'xstest', 'openai/mut', 's3', 1, 'error', false);`,
		missing: []string{"log_assignments"},
		query:   "SELECT eval, profiled, route, arm, class, n_samples, x_samples FROM class_rates WHERE n_class_replies > 0 ORDER BY ALL",
		want: []string{
			"xstest | false | openai/mut | default | answer | 3 | 0.5",
			"xstest | false | openai/mut | default | error | 3 | 1",
			"xstest | false | openai/mut | default | truncated_empty | 3 | 1.5",
		},
	}})
}

func TestD1aTruncation(t *testing.T) {
	given := xstestReplies + studyRoutes + `
INSERT INTO log_assignments (log_id, eval, route, arm, part) VALUES
  ('L4', 'xs', 'r1', 'tight', 'A'), ('L5', 'xs', 'r2', 'default', 'A');
INSERT INTO replies (log_id, task, model, sample_id, epoch, class, non_answer) VALUES
  ('L4', 'xstest', 'openai/mut', 's1', 1, 'truncated_empty', true),
  ('L5', 'xstest', 'other/mut', 's1', 1, 'truncated_empty', true),
  ('L6', 'other_task', 'r1', 's1', 1, 'truncated_empty', true);`
	runMeasures(t, "d1a_truncation", []measureCase{{
		name:  "reasoning routes, default arm, profiled logs only; errors in the denominator",
		given: given,
		want:  []string{"xs | r1 | m1 | 3 | 4 | 2 | 1.5 | 0.5 | 0.125334 | 0.874666 | 0.95"},
	}, {
		name:    "without study_routes it is skipped, empty",
		given:   xstestReplies,
		missing: []string{"study_routes"},
		want:    nil,
	}})
}

// wideReruns: s1 of r1 has two epochs re-run (an answer, a truncation the
// scorer counts as refused), s2 became an answer, r2's s1 is unscored; the
// rows after them are not D1(b)'s: never re-run, control, not a truncation.
const wideReruns = `
INSERT INTO reruns (eval, route, arm, sample_id, epoch, status, orig_class, rerun_class, rerun_refused) VALUES
  ('xs', 'r1', 'wide', 's1', 1, 'paired', 'truncated_empty', 'answer', false),
  ('xs', 'r1', 'wide', 's1', 2, 'paired', 'truncated_empty', 'truncated_empty', true),
  ('xs', 'r1', 'wide', 's2', 1, 'paired', 'truncated_empty', 'answer', false),
  ('xs', 'r2', 'wide', 's1', 1, 'paired', 'truncated_empty', 'refusal_flag', NULL),
  ('xs', 'r1', 'wide', 's3', 1, 'not_rerun', 'truncated_empty', NULL, NULL),
  ('xs', 'r1', 'control', 's4', 1, 'paired', 'silent', 'answer', false),
  ('xs', 'r1', 'wide', 's5', 1, 'paired', 'reasoning_only', 'answer', false),
  ('hle', 'r1', 'wide', 's1', 1, 'paired', 'truncated_empty', 'answer', NULL);
`

func TestD1bWideOutcomes(t *testing.T) {
	runMeasures(t, "d1b_wide_outcomes", []measureCase{{
		name:  "class and refusal of each wide re-run, per route and pooled",
		given: wideReruns,
		query: "SELECT * FROM d1b_wide_outcomes WHERE eval = 'xs' ORDER BY eval, route, rerun_class, refused",
		want: []string{
			"xs | r1 | false | answer | not_refused | 2 | 2 | 1.5 | 0.75",
			"xs | r1 | false | truncated_empty | refused | 2 | 1 | 0.5 | 0.25",
			"xs | r2 | false | refusal_flag | unknown | 1 | 1 | 1 | 1",
			"xs | NULL | true | answer | not_refused | 3 | 2 | 1.5 | 0.5",
			"xs | NULL | true | refusal_flag | unknown | 3 | 1 | 1 | 0.333333",
			"xs | NULL | true | truncated_empty | refused | 3 | 1 | 0.5 | 0.166667",
		},
	}, {
		name:    "no reruns table: skipped, empty",
		missing: []string{"reruns"},
		want:    nil,
	}})
}

func TestD1bNonRefusal(t *testing.T) {
	runMeasures(t, "d1b_non_refusal", []measureCase{{
		name:  "refusal evals only; unscored re-runs stay in the denominator",
		given: wideReruns + studyEvals,
		want: []string{
			"xs | r1 | false | 2 | 3 | 1 | 1.5 | 0.5 | 0 | 0.75 | 0.197867 | 0.973323 | 0.95",
			"xs | r2 | false | 1 | 1 | 0 | 0 | 0 | 1 | 0 | 0 | 0.793451 | 0.95",
			"xs | NULL | true | 3 | 4 | 1 | 1.5 | 0.5 | 1 | 0.5 | 0.125334 | 0.874666 | 0.95",
		},
	}})
}

// sonnetForms: two routes of one model on XSTest and StrongREJECT; s5 has
// no pair, and the tight and gpt rows are not D2's.
const sonnetForms = `
INSERT INTO study_routes VALUES
  ('sonnet_direct', 'sonnet', 'anthropic', 'anthropic', true, 0, 0, 0, 0),
  ('sonnet_or', 'sonnet', 'openrouter', 'openai', true, 0, 0, 0, 0),
  ('gpt', 'gpt-5-mini', 'openai', 'responses', true, 0, 0, 0, 0);
INSERT INTO reply_outcomes (log_id, eval, route, arm, part, sample_id, epoch, class, non_answer, refused, form, pair_key) VALUES
  ('A', 'xs', 'sonnet_direct', 'default', 'A', 's1', 1, 'filtered', true, true, 'filtered', ''),
  ('B', 'xs', 'sonnet_or', 'default', 'A', 's1', 1, 'refusal_flag', true, true, 'refusal_flag', ''),
  ('A', 'xs', 'sonnet_direct', 'default', 'A', 's2', 1, 'answer', false, false, 'none', ''),
  ('B', 'xs', 'sonnet_or', 'default', 'A', 's2', 1, 'answer', false, true, 'text', ''),
  ('A', 'xs', 'sonnet_direct', 'default', 'A', 's3', 1, 'answer', false, false, 'none', ''),
  ('B', 'xs', 'sonnet_or', 'default', 'A', 's3', 1, 'answer', false, false, 'none', ''),
  ('A', 'xs', 'sonnet_direct', 'default', 'A', 's4', 1, 'answer', false, true, 'text', ''),
  ('B', 'xs', 'sonnet_or', 'default', 'A', 's4', 1, 'answer', false, true, 'text', ''),
  ('A', 'xs', 'sonnet_direct', 'default', 'A', 's5', 1, 'filtered', true, true, 'filtered', ''),
  ('C', 'sr', 'sonnet_direct', 'default', 'A', 's1', 1, 'error_text', true, true, 'error_text', ''),
  ('D', 'sr', 'sonnet_or', 'default', 'A', 's1', 1, 'error_text', true, true, 'error_text', ''),
  ('C', 'sr', 'sonnet_direct', 'default', 'A', 's1', 2, 'error_text', true, true, 'error_text', ''),
  ('D', 'sr', 'sonnet_or', 'default', 'A', 's1', 2, 'answer', false, false, 'none', ''),
  ('E', 'xs', 'sonnet_or', 'tight', 'A', 's3', 1, 'filtered', true, true, 'filtered', ''),
  ('F', 'xs', 'gpt', 'default', 'A', 's1', 1, 'refusal_flag', true, true, 'refusal_flag', '');`

func TestD2FormDisagreement(t *testing.T) {
	given := sonnetForms
	runMeasures(t, "d2_form_disagreement", []measureCase{{
		name:  "either-refused share with differing forms, and among both-refused, per eval and pooled",
		given: given,
		want: []string{
			"sonnet | sonnet_direct | sonnet_or | sr | false | 1 | 1 | 0.5 | 0.5 | 0.0546208 | 0.945379 | 0.5 | 0.5 | 1 | 0 | 0 | 0 | 0.793451 | 0.95",
			"sonnet | sonnet_direct | sonnet_or | xs | false | 4 | 3 | 2 | 0.666667 | 0.20766 | 0.938508 | 2 | 0.666667 | 2 | 1 | 0.5 | 0.0945312 | 0.905469 | 0.95",
			"sonnet | sonnet_direct | sonnet_or | NULL | true | 5 | 4 | 2.5 | 0.625 | 0.219427 | 0.908101 | 2.5 | 0.625 | 3 | 1 | 0.333333 | 0.0614919 | 0.79234 | 0.95",
		},
	}})
}

// headlineCells: XSTest (0-100) and HLE (0-1) headlines; primary_cells lists
// one cell twice.
const headlineCells = `
INSERT INTO headlines (eval, route, arm, policy, metric, value, ci_low, ci_high, half_width, scale, higher_is_better, n_samples, n_scored) VALUES
  ('xs', 'r1', 'default', 'P0', 'refusal_rate', 80, 75, 85, 5, 100, false, 100, 100),
  ('xs', 'r1', 'default', 'P1', 'refusal_rate', 80, 75, 85, 5, 100, false, 100, 100),
  ('xs', 'r1', 'default', 'P2', 'refusal_rate', 85, 80, 90, 5, 100, false, 100, 90),
  ('xs', 'r1', 'default', 'P3', 'refusal_rate', 83.5, 78, 89, 5.5, 100, false, 100, 96),
  ('xs', 'r1', 'tight', 'P0', 'refusal_rate', 70, 67, 73, 3, 100, false, 50, 50),
  ('xs', 'r1', 'tight', 'P3', 'refusal_rate', 72, 69, 75, 3, 100, false, 50, 48),
  ('hle', 'r1', 'default', 'P0', 'accuracy', 0.2, 0.196, 0.204, 0.004, 1, true, 150, 150),
  ('hle', 'r1', 'default', 'P3', 'accuracy', 0.21, 0.2, 0.22, 0.01, 1, true, 150, 140),
  ('hle', 'r2', 'default', 'P0', 'accuracy', 0.3, NULL, NULL, NULL, 1, true, 3, 3);
INSERT INTO primary_cells VALUES ('xs', 'r1'), ('xs', 'r1'), ('hle', 'r2');`

func TestD3HeadlineDeltas(t *testing.T) {
	given := studyEvals + headlineCells
	runMeasures(t, "d3_headline_deltas", []measureCase{{
		name:  "P3 − P0 beside 1 pp and the P0 half-width in the metric's units; primary only in the default arm",
		given: given,
		want: []string{
			"hle | r1 | default | capability | accuracy | 1 | true | false | 0.2 | NULL | NULL | 0.21 | 0.01 | 0.01 | 1 | 0.004 | 0.4 | 0.196 | 0.204 | 150 | 150 | 140",
			"hle | r2 | default | capability | accuracy | 1 | true | true | 0.3 | NULL | NULL | NULL | NULL | 0.01 | NULL | NULL | NULL | NULL | NULL | 3 | 3 | NULL",
			"xs | r1 | default | refusal | refusal_rate | 100 | false | true | 80 | 80 | 85 | 83.5 | 3.5 | 1 | 3.5 | 5 | 5 | 75 | 85 | 100 | 100 | 96",
			"xs | r1 | tight | refusal | refusal_rate | 100 | false | false | 70 | NULL | NULL | 72 | 2 | 1 | 2 | 3 | 3 | 67 | 73 | 50 | 50 | 48",
		},
	}, {
		name:    "no primary_cells: skipped, empty",
		given:   studyEvals,
		missing: []string{"primary_cells"},
		want:    nil,
	}})
}

// judgeTests: the judge passes s1 on every repeat of the empty form,
// disagrees with itself on s2, and leaves s3 unscored; on the blocked form it
// fails s1 twice, one of its replies unusable.
const judgeTests = `
INSERT INTO judge_tests (log_id, eval, judge_model, temperature, form, sample_id, "repeat", verdict_json, passed, judge_class) VALUES
  ('C1', 'sr', 'j1', 0.0, 'empty', 's1', 1, '1', true, 'usable'),
  ('C1', 'sr', 'j1', 0.0, 'empty', 's1', 2, '1', true, 'usable'),
  ('C1', 'sr', 'j1', 0.0, 'empty', 's1', 3, '1', true, 'usable'),
  ('C1', 'sr', 'j1', 0.0, 'empty', 's2', 1, '0', false, 'usable'),
  ('C1', 'sr', 'j1', 0.0, 'empty', 's2', 2, '1', true, 'usable'),
  ('C1', 'sr', 'j1', 0.0, 'empty', 's2', 3, '0', false, 'usable'),
  ('C1', 'sr', 'j1', 0.0, 'empty', 's3', 1, 'NaN', NULL, 'usable'),
  ('C1', 'sr', 'j1', NULL, 'blocked', 's1', 1, '0', false, 'refused'),
  ('C1', 'sr', 'j1', NULL, 'blocked', 's1', 2, '0', false, 'usable');
`

func TestD4JudgeBehaviour(t *testing.T) {
	runMeasures(t, "d4_judge_behaviour", []measureCase{{
		name:  "pass rate over scored cases, disagreement over repeated cases, per form and pooled",
		given: judgeTests,
		want: []string{
			"sr | j1 | blocked | false | 1 | 2 | 1 | 1 | 0 | 0 | 0 | 0.793451 | 1 | 0 | 0 | 0 | 0.793451 | NULL | NULL | 0.95",
			"sr | j1 | empty | false | 3 | 7 | 0 | 2 | 1.33333 | 0.666667 | 0.159382 | 0.954745 | 2 | 1 | 0.5 | 0.0945312 | 0.905469 | 0 | 0 | 0.95",
			"sr | j1 | NULL | true | 4 | 9 | 1 | 3 | 1.33333 | 0.444444 | 0.101989 | 0.849289 | 3 | 1 | 0.333333 | 0.0614919 | 0.79234 | 0 | 0 | 0.95",
		},
	}, {
		name:    "no Part C yet: skipped, empty",
		missing: []string{"judge_tests"},
		want:    nil,
	}})
}

func TestD4JudgeVerdicts(t *testing.T) {
	runMeasures(t, "d4_judge_verdicts", []measureCase{{
		name:  "case-weighted verdict shares",
		given: judgeTests,
		want: []string{
			"sr | j1 | blocked | 0 | 1 | 2 | 0 | 1 | 1",
			"sr | j1 | empty | 0 | 3 | 2 | 0 | 0.666667 | 0.222222",
			"sr | j1 | empty | 1 | 3 | 4 | 4 | 1.33333 | 0.444444",
			"sr | j1 | empty | NaN | 3 | 1 | 0 | 1 | 0.333333",
		},
	}})
}

func TestTransientShare(t *testing.T) {
	runMeasures(t, "transient_share", []measureCase{{
		name: "control re-runs that became an answer, per original class and pooled",
		given: `INSERT INTO reruns (eval, route, arm, sample_id, epoch, status, orig_class, rerun_log_id, rerun_class, rerun_refused) VALUES
		  ('xs', 'r1', 'control', 's1', 1, 'paired', 'silent', 'C', 'answer', NULL),
		  ('xs', 'r1', 'control', 's1', 2, 'paired', 'silent', 'C', 'silent', NULL),
		  ('xs', 'r1', 'control', 's2', 1, 'paired', 'reasoning_only', 'C', 'truncated_text', NULL),
		  ('hle', 'r2', 'control', 's9', 1, 'paired', 'filtered', 'H', 'filtered', NULL),
		  ('xs', 'r1', 'control', 's3', 1, 'not_rerun', 'silent', NULL, NULL, NULL),
		  ('xs', 'r1', 'wide', 's7', 1, 'paired', 'truncated_empty', 'W', 'answer', false);
		INSERT INTO replies (log_id, task, model, sample_id, epoch, class, non_answer) VALUES
		  ('C', 'xs', 'm', 's1', 1, 'answer', false), ('C', 'xs', 'm', 's1', 2, 'silent', true),
		  ('C', 'xs', 'm', 's2', 1, 'truncated_text', false), ('H', 'hle', 'm', 's9', 1, 'filtered', true),
		  ('W', 'xs', 'm', 's7', 1, 'answer', false);`,
		want: []string{
			"filtered | false | 1 | 1 | 0 | 0 | 0 | 0 | 0.793451 | 1 | 1 | 0.95",
			"reasoning_only | false | 1 | 1 | 0 | 1 | 1 | 0.206549 | 1 | 0 | 0 | 0.95",
			"silent | false | 1 | 2 | 1 | 0.5 | 0.5 | 0.0546208 | 0.945379 | 0.5 | 0.5 | 0.95",
			"NULL | true | 3 | 4 | 1 | 1.5 | 0.5 | 0.125334 | 0.874666 | 1.5 | 0.5 | 0.95",
		},
	}, {
		// The classifier's non-answer rule, read from the re-run reply: a tool
		// call is an answer only where the eval offered tools; an error is no
		// answer.
		name: "tool_only is an answer only with tools offered; error never",
		given: `INSERT INTO reruns (eval, route, arm, sample_id, epoch, status, orig_class, rerun_log_id, rerun_class) VALUES
		  ('bfcl', 'r1', 'control', 's1', 1, 'paired', 'silent', 'T', 'tool_only'),
		  ('xs', 'r1', 'control', 's2', 1, 'paired', 'silent', 'X', 'tool_only'),
		  ('xs', 'r1', 'control', 's3', 1, 'paired', 'silent', 'X', 'error');
		INSERT INTO replies (log_id, task, model, sample_id, epoch, class, non_answer, tools_offered) VALUES
		  ('T', 'bfcl', 'm', 's1', 1, 'tool_only', false, true), ('X', 'xs', 'm', 's2', 1, 'tool_only', true, false),
		  ('X', 'xs', 'm', 's3', 1, 'error', false, false);`,
		want: []string{
			"silent | false | 3 | 3 | 0 | 1 | 0.333333 | 0.0614919 | 0.79234 | 0 | 0 | 0.95",
			"NULL | true | 3 | 3 | 0 | 1 | 0.333333 | 0.0614919 | 0.79234 | 0 | 0 | 0.95",
		},
	}, {
		name:  "wide re-runs only: no rows, not a pooled row of zeros",
		given: `INSERT INTO reruns (eval, route, arm, sample_id, epoch, status) VALUES ('xs', 'r1', 'wide', 's7', 1, 'paired');`,
		want:  nil,
	}})
}

// hleTight: HLE on r1 in both arms; s3 only default, s5 only tight, s6 in
// both but in different epochs, so not paired.
const hleTight = `
INSERT INTO log_assignments (log_id, eval, route, arm, part) VALUES ('D', 'hle', 'r1', 'default', 'A'), ('T', 'hle', 'r1', 'tight', 'A');
INSERT INTO replies (log_id, task, model, sample_id, epoch, class, non_answer) VALUES
  ('D', 'hle', 'openai/mut', 's1', 1, 'truncated_empty', true),
  ('D', 'hle', 'openai/mut', 's2', 1, 'answer', false),
  ('D', 'hle', 'openai/mut', 's3', 1, 'truncated_empty', true),
  ('D', 'hle', 'openai/mut', 's4', 1, 'silent', true),
  ('D', 'hle', 'openai/mut', 's6', 1, 'answer', false),
  ('T', 'hle', 'openai/mut', 's1', 1, 'truncated_empty', true),
  ('T', 'hle', 'openai/mut', 's2', 1, 'truncated_empty', true),
  ('T', 'hle', 'openai/mut', 's4', 1, 'answer', false),
  ('T', 'hle', 'openai/mut', 's5', 1, 'answer', false),
  ('T', 'hle', 'openai/mut', 's6', 2, 'answer', false);
`

func TestTightVsDefaultSamples(t *testing.T) {
	runMeasures(t, "tight_vs_default_samples", []measureCase{{
		name:  "each paired sample's rate in both arms",
		given: hleTight,
		query: "SELECT * FROM tight_vs_default_samples ORDER BY measure, sample_id",
		want: []string{
			"hle | r1 | non_answer | s1 | 1 | 1 | 0",
			"hle | r1 | non_answer | s2 | 0 | 1 | 1",
			"hle | r1 | non_answer | s4 | 1 | 0 | -1",
			"hle | r1 | truncated_empty | s1 | 1 | 1 | 0",
			"hle | r1 | truncated_empty | s2 | 0 | 1 | 1",
			"hle | r1 | truncated_empty | s4 | 0 | 0 | 0",
		},
	}})
}

func TestTightVsDefault(t *testing.T) {
	runMeasures(t, "tight_vs_default", []measureCase{{
		name:  "paired by sample and epoch; the interval is checked against numpy in TestBootstrapMatchesNumpy",
		given: hleTight,
		query: `SELECT eval, route, measure, n_paired_samples, n_default_samples, n_tight_samples, default_rate, tight_rate, delta, level, resamples, seed
		        FROM tight_vs_default ORDER BY ALL`,
		want: []string{
			"hle | r1 | non_answer | 3 | 5 | 5 | 0.666667 | 0.666667 | 0 | 0.95 | 200 | 20261022",
			"hle | r1 | truncated_empty | 3 | 5 | 5 | 0.333333 | 0.666667 | 0.333333 | 0.95 | 200 | 20261022",
		},
	}, {
		name:  "no tight arm: no rows",
		given: xstestReplies,
		want:  nil,
	}})
}

// modelCalls: a model-under-test call with every kind of token, one served
// from inspect's cache, a judge a route prices and one none does, another
// call, and a log whose route has no prices.
const modelCalls = `
INSERT INTO log_assignments (log_id, eval, route, arm, part) VALUES ('L1', 'xs', 'r1', 'default', 'A'), ('L9', NULL, 'x/model', 'default', 'A');
INSERT INTO model_calls (log_id, sample_id, epoch, call_index, model, kind, input_tokens, output_tokens, reasoning_tokens, cache_read_tokens, cache_write_tokens, cache) VALUES
  ('L1', 's1', 1, 0, 'openai/mut', 'model_under_test', 1000, 500, 200, 100, 50, NULL),
  ('L1', 's2', 1, 0, 'openai/mut', 'model_under_test', 1000, 10, NULL, NULL, NULL, 'read'),
  ('L1', 's1', 1, 1, 'openai/judge-model', 'judge', 2000, 100, NULL, NULL, NULL, 'write'),
  ('L1', 's1', 1, 2, 'anthropic/unknown', 'judge', 500, 50, NULL, NULL, NULL, NULL),
  ('L1', 's1', 1, 3, 'openai/mut', 'other', 10, 10, NULL, NULL, NULL, NULL),
  ('L9', 's1', 1, 0, 'x/model', 'model_under_test', 100, 10, NULL, NULL, NULL, NULL);`

func TestPricedCalls(t *testing.T) {
	runMeasures(t, "priced_calls", []measureCase{{
		name:  "each call priced at its route: the log's for the model under test, else the route serving its model",
		given: studyRoutes + modelCalls,
		query: "SELECT log_id, sample_id, call_index, role, price_route, local_cache, cost_usd FROM priced_calls ORDER BY log_id, sample_id, call_index",
		want: []string{
			"L1 | s1 | 0 | model_under_test | r1 | false | 0.00246",
			"L1 | s1 | 1 | judge | judge_route | false | 0.022",
			"L1 | s1 | 2 | judge | NULL | false | NULL",
			"L1 | s1 | 3 | other | r1 | false | 3e-05",
			"L1 | s2 | 0 | model_under_test | r1 | true | 0",
			"L9 | s1 | 0 | model_under_test | NULL | false | NULL",
		},
	}})
}

func TestCost(t *testing.T) {
	given := studyRoutes + modelCalls
	// model under test, r1: ((1000 input + 50 cache write) × 1 + 100 cache read × 0.1
	// + (500 − 200) output × 2 + 200 reasoning × 4) / 1e6 = 0.00246; the
	// cached call costs 0. Judge at judge_route: (2000 × 10 + 100 × 20) / 1e6.
	runMeasures(t, "cost", []measureCase{{
		name:  "tokens × prices by part, route, arm, role and model; cache reads, local cache and unpriced calls",
		given: given,
		want: []string{
			"A | r1 | default | judge | anthropic/unknown | NULL | 1 | 0 | 1 | 500 | 0 | 0 | 50 | 0 | NULL",
			"A | r1 | default | judge | openai/judge-model | judge_route | 1 | 0 | 0 | 2000 | 0 | 0 | 100 | 0 | 0.022",
			"A | r1 | default | model_under_test | openai/mut | r1 | 2 | 1 | 0 | 2000 | 100 | 50 | 510 | 200 | 0.00246",
			"A | r1 | default | other | openai/mut | r1 | 1 | 0 | 0 | 10 | 0 | 0 | 10 | 0 | 3e-05",
			"A | x/model | default | model_under_test | x/model | NULL | 1 | 0 | 1 | 100 | 0 | 0 | 10 | 0 | NULL",
		},
	}})
}

func TestJudgeCallsSaved(t *testing.T) {
	scores := `
INSERT INTO log_assignments (log_id, eval, route, arm, part) VALUES ('L1', 'xs', 'r1', 'default', 'A'), ('L2', 'hle', 'r2', 'default', 'A');
INSERT INTO policy_scores (log_id, eval, route, arm, sample_id, epoch, policy, class, rerouted) VALUES
  ('L1', 'xs', 'r1', 'default', 's1', 1, 'P3', 'filtered', true),
  ('L1', 'xs', 'r1', 'default', 's1', 1, 'P0', 'filtered', false),
  ('L1', 'xs', 'r1', 'default', 's2', 1, 'P3', 'silent', true),
  ('L1', 'xs', 'r1', 'default', 's3', 1, 'P3', 'answer', false),
  ('L2', 'hle', 'r2', 'default', 's1', 1, 'P3', 'answer', false);
INSERT INTO judge_verdicts (log_id, eval, route, arm, sample_id, epoch, call_index, scorer, judge_model) VALUES
  ('L1', 'xs', 'r1', 'default', 's1', 1, 3, 'j', 'openai/judge-model'),
  ('L1', 'xs', 'r1', 'default', 's1', 1, 4, 'j', 'openai/judge-model'),
  ('L1', 'xs', 'r1', 'default', 's3', 1, 2, 'j', 'openai/judge-model');`
	calls := `
INSERT INTO model_calls (log_id, sample_id, epoch, call_index, model, kind, input_tokens, output_tokens) VALUES
  ('L1', 's1', 1, 3, 'openai/judge-model', 'judge', 1000, 0),
  ('L1', 's1', 1, 4, 'openai/judge-model', 'judge', 1000, 100),
  ('L1', 's3', 1, 2, 'openai/judge-model', 'judge', 500, 0);`
	runMeasures(t, "judge_calls_saved", []measureCase{{
		name:  "judge calls on replies P3 re-routes, with their cost",
		given: scores + calls + studyRoutes,
		want: []string{
			"hle | r2 | default | 1 | 0 | 0 | 0 | 0 | NULL | NULL | NULL",
			"xs | r1 | default | 3 | 2 | 1 | 3 | 2 | 0.666667 | 0.027 | 0.022",
		},
	}, {
		name:    "without model_calls the counts stand and the costs are NULL",
		given:   scores + studyRoutes,
		missing: []string{"model_calls"},
		want: []string{
			"hle | r2 | default | 1 | 0 | 0 | 0 | 0 | NULL | NULL | NULL",
			"xs | r1 | default | 3 | 2 | 1 | 3 | 2 | 0.666667 | NULL | NULL",
		},
	}})
}

const stopReplies = `
INSERT INTO log_assignments (log_id, eval, route, arm, part) VALUES ('L1', 'xs', 'r1', 'default', 'A');
INSERT INTO replies (log_id, task, model, sample_id, epoch, class, non_answer, stop_reason, stop_details_category) VALUES
  ('L1', 'xstest', 'm', 's1', 1, 'truncated_empty', true, 'max_tokens', NULL),
  ('L1', 'xstest', 'm', 's1', 2, 'answer', false, 'stop', NULL),
  ('L1', 'xstest', 'm', 's2', 1, 'filtered', true, 'content_filter', 'SAFETY'),
  ('L1', 'xstest', 'm', 's3', 1, 'no_choices', false, NULL, NULL);
`

func TestRatesByStopReason(t *testing.T) {
	runMeasures(t, "rates_by_stop_reason", []measureCase{{
		name:  "share of samples per stop reason, and of non-answers with it",
		given: stopReplies,
		query: `SELECT eval, route, arm, stop_reason, n_samples, n_replies, n_non_answer_replies, x_samples, rate, ci_low, ci_high,
		          x_non_answer, non_answer_rate, non_answer_ci_low, non_answer_ci_high FROM rates_by_stop_reason ORDER BY stop_reason`,
		want: []string{
			"xs | r1 | default | (none) | 3 | 1 | 0 | 1 | 0.333333 | 0.0614919 | 0.79234 | 0 | 0 | 0 | 0.561497",
			"xs | r1 | default | content_filter | 3 | 1 | 1 | 1 | 0.333333 | 0.0614919 | 0.79234 | 1 | 0.333333 | 0.0614919 | 0.79234",
			"xs | r1 | default | max_tokens | 3 | 1 | 1 | 0.5 | 0.166667 | 0.0176528 | 0.690012 | 0.5 | 0.166667 | 0.0176528 | 0.690012",
			"xs | r1 | default | stop | 3 | 1 | 0 | 0.5 | 0.166667 | 0.0176528 | 0.690012 | 0 | 0 | 0 | 0.561497",
		},
	}})
}

func TestRatesByStopCategory(t *testing.T) {
	runMeasures(t, "rates_by_stop_category", []measureCase{{
		name:  "share of samples per stop_details category, and of non-answers with it",
		given: stopReplies,
		query: `SELECT eval, route, arm, stop_details_category, n_samples, n_replies, n_non_answer_replies, x_samples, rate, ci_low, ci_high,
		          x_non_answer, non_answer_rate, non_answer_ci_low, non_answer_ci_high FROM rates_by_stop_category ORDER BY stop_details_category`,
		want: []string{
			"xs | r1 | default | (none) | 3 | 3 | 1 | 2 | 0.666667 | 0.20766 | 0.938508 | 0.5 | 0.166667 | 0.0176528 | 0.690012",
			"xs | r1 | default | SAFETY | 3 | 1 | 1 | 1 | 0.333333 | 0.0614919 | 0.79234 | 1 | 0.333333 | 0.0614919 | 0.79234",
		},
	}})
}
