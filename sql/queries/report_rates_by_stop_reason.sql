-- output: report_rates_by_stop_reason
-- kind: query
-- grain: one row per eval × route × arm × stop reason, most non-answers first
-- measure: Exploratory rates by stop reason (pre-registration §6 "Exploratory: rates by stop reason and stop_details category"), as the report's "Rates by stop reason" shows them
-- needs: rates_by_stop_reason
-- columns: eval, route, arm, stop_reason, n_samples, n_replies, rate, ci_low, ci_high, non_answer_rate, non_answer_ci_low, non_answer_ci_high, level
SELECT eval, route, arm, stop_reason, n_samples, n_replies, rate, ci_low, ci_high,
  non_answer_rate, non_answer_ci_low, non_answer_ci_high, level
FROM rates_by_stop_reason
ORDER BY non_answer_rate DESC, rate DESC, eval, route, arm, stop_reason
