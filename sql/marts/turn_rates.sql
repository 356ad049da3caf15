-- output: turn_rates
-- kind: output
-- grain: one row per eval × route × arm (without a manifest: per task × model)
-- measure: Every turn of an agent (exploratory, beside pre-registration §5 "Class rates", which read the first reply): the share of the model under test's generations that are non-answers (the generation the unit, the sample the cluster of its interval), the share of samples with at least one non-answer generation, the shares whose final reply is a non-answer, and whose final reply is one while the first is not (and the reverse), §6 Wilson intervals
-- needs: study_turns, rates
--
-- Needs no manifest. generation_non_answer_rate is the cell's non-answer generations over its
-- generations; its interval is the one interval here that needs the sample as a cluster
-- (cluster_wilson_low/high, sql/macros/rates.sql: k is the cell's samples with a generation, ss
-- the spread of their non-answer counts about the cell's share). The other shares are of the cell's
-- samples, the sample the unit as in every rate (a sample with several epochs carries the share of
-- its replies), Wilson over n_samples: a sample with a non-answer generation (any_non_answer), whose
-- final reply is a non-answer (final_non_answer), whose final reply is one and its first is not
-- (final_only), whose first is one and its final is not (first_only). A sample is multi-turn when a
-- reply of it has more than one generation; on the others first and final are one call, so
-- final_only and first_only count multi-turn samples only.
WITH per_sample AS (
  SELECT eval, profiled, route, arm, sample_id,
    sum(turns) AS n, sum(non_answer_turns) AS x
  FROM study_turns
  GROUP BY ALL
),
cells AS (
  SELECT
    eval, profiled, route, arm,
    count(DISTINCT sample_id) AS n_samples,
    count(*) AS n_replies,
    count(DISTINCT sample_id) FILTER (WHERE turns > 1) AS n_multi_turn_samples,
    count(*) FILTER (WHERE turns > 1) AS n_multi_turn_replies,
    sum(turns)::BIGINT AS n_generations,
    sum(non_answer_turns)::BIGINT AS n_non_answer_generations,
    count(*) FILTER (WHERE non_answer_turns > 0) AS n_any_non_answer_replies,
    sample_share(sample_weight, non_answer_turns > 0) AS x_any_non_answer,
    count(*) FILTER (WHERE final_non_answer) AS n_final_non_answer_replies,
    sample_share(sample_weight, final_non_answer) AS x_final_non_answer,
    count(*) FILTER (WHERE turns > 1 AND final_non_answer) AS n_multi_turn_final_non_answer_replies,
    count(*) FILTER (WHERE final_non_answer AND NOT non_answer) AS n_final_only_replies,
    sample_share(sample_weight, final_non_answer AND NOT non_answer) AS x_final_only,
    count(*) FILTER (WHERE non_answer AND NOT final_non_answer) AS n_first_only_replies,
    sample_share(sample_weight, non_answer AND NOT final_non_answer) AS x_first_only
  FROM study_turns
  GROUP BY ALL
),
spread AS (
  SELECT
    c.eval, c.profiled, c.route, c.arm,
    count(*) FILTER (WHERE p.n > 0) AS n_clusters,
    exact_sum((p.x - p.n * rate(c.n_non_answer_generations, c.n_generations)) ^ 2) AS ss
  FROM cells c
  JOIN per_sample p USING (eval, profiled, route, arm)
  GROUP BY ALL
)
SELECT
  eval, profiled, route, arm, n_samples, n_replies, n_multi_turn_samples, n_multi_turn_replies,
  n_generations, n_non_answer_generations, n_clusters,
  rate(n_non_answer_generations, n_generations) AS generation_non_answer_rate,
  cluster_wilson_low(n_non_answer_generations, n_generations, n_clusters, ss) AS generation_non_answer_ci_low,
  cluster_wilson_high(n_non_answer_generations, n_generations, n_clusters, ss) AS generation_non_answer_ci_high,
  cluster_n(n_non_answer_generations, n_generations, n_clusters, ss) AS generation_effective_n,
  n_any_non_answer_replies, x_any_non_answer,
  rate(x_any_non_answer, n_samples) AS any_non_answer_rate,
  wilson_low(x_any_non_answer, n_samples) AS any_non_answer_ci_low,
  wilson_high(x_any_non_answer, n_samples) AS any_non_answer_ci_high,
  n_final_non_answer_replies, x_final_non_answer,
  rate(x_final_non_answer, n_samples) AS final_non_answer_rate,
  wilson_low(x_final_non_answer, n_samples) AS final_non_answer_ci_low,
  wilson_high(x_final_non_answer, n_samples) AS final_non_answer_ci_high,
  n_multi_turn_final_non_answer_replies,
  n_final_only_replies, x_final_only,
  rate(x_final_only, n_samples) AS final_only_rate,
  wilson_low(x_final_only, n_samples) AS final_only_ci_low,
  wilson_high(x_final_only, n_samples) AS final_only_ci_high,
  n_first_only_replies, x_first_only,
  rate(x_first_only, n_samples) AS first_only_rate,
  wilson_low(x_first_only, n_samples) AS first_only_ci_low,
  wilson_high(x_first_only, n_samples) AS first_only_ci_high,
  getvariable('interval_level') AS level
FROM cells
JOIN spread USING (eval, profiled, route, arm)
ORDER BY eval, profiled, route, arm
