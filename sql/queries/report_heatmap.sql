-- output: report_heatmap
-- kind: query
-- grain: one row per eval × route of the default arm
-- measure: Non-answer rates (pre-registration §5 "Class rates", pooled over the non-answer classes; §6 Wilson intervals with the sample as the unit): the cells of the report's heat map of the non-answer share per eval × route
-- needs: non_answer_rates
-- columns: eval, route, non_answer_rate, non_answer_ci_low, non_answer_ci_high, no_reply_rate, n_samples, n_non_answer_replies
SELECT eval, route, non_answer_rate, non_answer_ci_low, non_answer_ci_high, no_reply_rate, n_samples, n_non_answer_replies
FROM non_answer_rates
WHERE arm = 'default'
ORDER BY eval, route
