-- output: report_overview
-- kind: query
-- grain: one row per dataset: all samples of the default arm (overview's scope all)
-- measure: The report's headline (pre-registration §5 "Class rates", pooled; §6 Wilson intervals with the sample as the unit): the first screen's three cards, of all samples the share whose reply is a non-answer, the share with no reply at all, and the share answered, with the dataset's size
-- needs: overview
-- columns: n_evals, n_logs, n_samples, n_replies, n_non_answer_replies, non_answer_rate, non_answer_ci_low, non_answer_ci_high, n_no_reply_replies, no_reply_rate, no_reply_ci_low, no_reply_ci_high, n_answer_replies, answer_rate, answer_ci_low, answer_ci_high, level, n_routes, n_cells
SELECT n_evals, n_logs, n_samples, n_replies,
  n_non_answer_replies, non_answer_rate, non_answer_ci_low, non_answer_ci_high,
  n_no_reply_replies, no_reply_rate, no_reply_ci_low, no_reply_ci_high,
  n_answer_replies, answer_rate, answer_ci_low, answer_ci_high, level, n_routes, n_cells
FROM overview
WHERE arm = 'default' AND scope = 'all'
