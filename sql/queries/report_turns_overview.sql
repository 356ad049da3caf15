-- output: report_turns_overview
-- kind: query
-- grain: one row per dataset: the default arm's cells together
-- measure: Every turn of an agent (exploratory, beside pre-registration §5 "Class rates"): the first screen's line, how many samples are multi-turn and how many of their final replies are non-answers, counts summed over the default arm's cells of turn_rates
-- needs: turn_rates
-- columns: n_samples, n_multi_turn_samples, n_multi_turn_replies, n_multi_turn_final_non_answer_replies
SELECT
  sum(n_samples)::BIGINT AS n_samples,
  sum(n_multi_turn_samples)::BIGINT AS n_multi_turn_samples,
  sum(n_multi_turn_replies)::BIGINT AS n_multi_turn_replies,
  sum(n_multi_turn_final_non_answer_replies)::BIGINT AS n_multi_turn_final_non_answer_replies
FROM turn_rates
WHERE arm = 'default'
