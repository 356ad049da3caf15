-- output: report_non_answer_rates
-- kind: query
-- grain: one row per eval × route × arm, most non-answers first
-- measure: Non-answer rates (pre-registration §5 "Class rates", pooled over the non-answer classes; §6 Wilson intervals with the sample as the unit), as the report's "Non-answer rates per eval × route" shows them: the rows of non_answer_rates, the columns a reader needs, most non-answers first
-- needs: non_answer_rates
-- columns: eval, route, arm, n_samples, n_replies, non_answer_rate, non_answer_ci_low, non_answer_ci_high, no_reply_rate, no_reply_ci_low, no_reply_ci_high, reasoning_only_rate, reasoning_only_ci_low, reasoning_only_ci_high, tool_only_rate, tool_only_ci_low, tool_only_ci_high, level
SELECT eval, route, arm, n_samples, n_replies, non_answer_rate, non_answer_ci_low, non_answer_ci_high,
  no_reply_rate, no_reply_ci_low, no_reply_ci_high, reasoning_only_rate, reasoning_only_ci_low, reasoning_only_ci_high,
  tool_only_rate, tool_only_ci_low, tool_only_ci_high, level
FROM non_answer_rates
ORDER BY non_answer_rate DESC, no_reply_rate DESC, n_samples DESC, eval, route, arm
