-- output: overview
-- kind: output
-- grain: one row per arm × route, and one per arm for every route together (scope all, route NULL)
-- measure: The report's headline (pre-registration §4 "Exploration first: rough rates"; §5 "Class rates", pooled; §6 Wilson intervals with the sample as the unit): of all samples, the share whose reply is a non-answer, the share with no reply at all (error, no_choices), and the share answered
-- needs: scoped_replies, rates
--
-- Needs no manifest. Every reply counts as exactly one of no_reply (error, no_choices), non_answer
-- or answer (scoped_replies.counts_as), so the three rates of a row sum to 1. A sample is a sample
-- of one eval × route × arm cell (study_replies' unit): a scope's n_samples is the number of its
-- cells' samples, and x sums its replies' sample weights. With a manifest the
-- re-run arms are rows of their own; the default arm is the study's population.
WITH totals AS (
  SELECT
    arm, scope, route,
    count(DISTINCT eval) AS n_evals,
    count(DISTINCT cell_route) AS n_routes,
    count(DISTINCT (eval, profiled, cell_route)) AS n_cells,
    count(DISTINCT log_id) AS n_logs,
    count(DISTINCT (eval, profiled, cell_route, sample_id)) AS n_samples,
    count(*) AS n_replies,
    count(*) FILTER (WHERE counts_as = 'non_answer') AS n_non_answer_replies,
    sample_share(sample_weight, counts_as = 'non_answer') AS x_non_answer,
    count(*) FILTER (WHERE counts_as = 'no_reply') AS n_no_reply_replies,
    sample_share(sample_weight, counts_as = 'no_reply') AS x_no_reply,
    count(*) FILTER (WHERE counts_as = 'answer') AS n_answer_replies,
    sample_share(sample_weight, counts_as = 'answer') AS x_answer
  FROM scoped_replies
  GROUP BY arm, scope, route
)
SELECT
  arm, scope, route, n_evals, n_routes, n_cells, n_logs, n_samples, n_replies,
  n_non_answer_replies, x_non_answer,
  rate(x_non_answer, n_samples) AS non_answer_rate,
  wilson_low(x_non_answer, n_samples) AS non_answer_ci_low,
  wilson_high(x_non_answer, n_samples) AS non_answer_ci_high,
  n_no_reply_replies, x_no_reply,
  rate(x_no_reply, n_samples) AS no_reply_rate,
  wilson_low(x_no_reply, n_samples) AS no_reply_ci_low,
  wilson_high(x_no_reply, n_samples) AS no_reply_ci_high,
  n_answer_replies, x_answer,
  rate(x_answer, n_samples) AS answer_rate,
  wilson_low(x_answer, n_samples) AS answer_ci_low,
  wilson_high(x_answer, n_samples) AS answer_ci_high,
  getvariable('interval_level') AS level
FROM totals
ORDER BY arm, scope, route
