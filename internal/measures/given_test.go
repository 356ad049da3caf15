package measures

// The given rows of analyze_test.go's small study (studyGiven): the same
// rows several cases of testdata/measures/ give as CSV.

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
