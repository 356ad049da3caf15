-- output: report_turn_rates
-- kind: query
-- grain: one row per eval × route × arm with a multi-turn sample, most non-answer turns first
-- measure: Every turn of an agent (exploratory, beside pre-registration §5 "Class rates"; §6 Wilson intervals), as the report's multi-turn section shows it: the rows of turn_rates whose cell has a sample of more than one generation, the columns a reader needs
-- needs: turn_rates
-- columns: eval, route, arm, n_samples, n_multi_turn_samples, n_generations, generation_non_answer_rate, generation_non_answer_ci_low, generation_non_answer_ci_high, any_non_answer_rate, any_non_answer_ci_low, any_non_answer_ci_high, final_only_rate, final_only_ci_low, final_only_ci_high, first_only_rate, first_only_ci_low, first_only_ci_high, level
SELECT eval, route, arm, n_samples, n_multi_turn_samples, n_generations,
  generation_non_answer_rate, generation_non_answer_ci_low, generation_non_answer_ci_high,
  any_non_answer_rate, any_non_answer_ci_low, any_non_answer_ci_high,
  final_only_rate, final_only_ci_low, final_only_ci_high,
  first_only_rate, first_only_ci_low, first_only_ci_high, level
FROM turn_rates
WHERE n_multi_turn_samples > 0
ORDER BY generation_non_answer_rate DESC, final_only_rate DESC, n_samples DESC, eval, route, arm
