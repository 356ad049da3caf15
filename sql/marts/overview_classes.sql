-- output: overview_classes
-- kind: output
-- grain: one row per arm × route (and every route together: scope all, route NULL) × class × counts_as, classes that occur only
-- measure: The headline split by class (pre-registration §5 "Class rates", pooled over cells; §6 Wilson intervals with the sample as the unit): each class's share of the samples of overview's rows, as non-answer, no reply or answer
-- needs: scoped_replies, overview, rates
--
-- Needs no manifest. counts_as is scoped_replies': no_reply (error, no_choices), non_answer
-- (replies.non_answer) or answer; tool_only can be both a non_answer (the eval offered no tools) and
-- an answer, one row each. n_samples is the scope's (overview.n_samples), x the sum of the class's
-- sample weights, so the rates of a scope sum to 1 and those of a counts_as to overview's rate.
WITH in_class AS (
  SELECT arm, scope, route, class, ordinal, counts_as, count(*) AS n_replies, sample_share(sample_weight, true) AS x_samples
  FROM scoped_replies
  GROUP BY arm, scope, route, class, ordinal, counts_as
)
SELECT
  i.arm, i.scope, i.route, i.class, i.counts_as, i.ordinal,
  s.n_samples, i.n_replies, i.x_samples,
  rate(i.x_samples, s.n_samples) AS rate,
  wilson_low(i.x_samples, s.n_samples) AS ci_low,
  wilson_high(i.x_samples, s.n_samples) AS ci_high,
  getvariable('interval_level') AS level
FROM in_class i
JOIN overview s ON s.arm = i.arm AND s.scope = i.scope AND s.route IS NOT DISTINCT FROM i.route
ORDER BY i.arm, i.scope, i.route, i.ordinal, i.counts_as
