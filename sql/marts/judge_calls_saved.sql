-- output: judge_calls_saved
-- kind: output
-- grain: one row per eval × route × arm (re-scored cells)
-- measure: Judge calls saved by bypassing (pre-registration §5 "Cost ... and judge calls saved by bypassing"; §8 "Judge cost"; design.md ruling: judge calls on replies that P3 re-routes)
-- needs: policy_scores, judge_verdicts, rates
-- optional: priced_calls
--
-- A judge call is a judge_verdicts row (a judge call that produced a score); the calls on replies
-- P3 re-routes are the calls P3 saves, since P3 never judges a reply it re-routes. Costs come from
-- priced_calls (NULL when the calls could not be priced, or without model_calls and prices).
WITH p3 AS (
  SELECT log_id, eval, route, arm, sample_id, epoch, rerouted
  FROM policy_scores
  WHERE policy = 'P3'
),
judged AS (
  SELECT v.log_id, v.sample_id, v.epoch, count(*) AS judge_calls, exact_sum(pc.cost_usd) AS judge_cost_usd
  FROM judge_verdicts v
  LEFT JOIN priced_calls pc USING (log_id, sample_id, epoch, call_index)
  GROUP BY ALL
),
per_reply AS (
  SELECT p.eval, p.route, p.arm, p.rerouted, coalesce(j.judge_calls, 0) AS judge_calls, j.judge_cost_usd
  FROM p3 p
  LEFT JOIN judged j USING (log_id, sample_id, epoch)
)
SELECT
  eval, route, arm,
  count(*) AS n_replies,
  count(*) FILTER (WHERE rerouted) AS n_rerouted,
  count(*) FILTER (WHERE rerouted AND judge_calls > 0) AS n_rerouted_judged,
  sum(judge_calls)::BIGINT AS judge_calls,
  coalesce(sum(judge_calls) FILTER (WHERE rerouted), 0)::BIGINT AS judge_calls_saved,
  rate(coalesce(sum(judge_calls) FILTER (WHERE rerouted), 0), sum(judge_calls)) AS share_calls_saved,
  exact_sum(judge_cost_usd) AS judge_cost_usd,
  exact_sum(CASE WHEN rerouted THEN judge_cost_usd END) AS judge_cost_saved_usd
FROM per_reply
GROUP BY ALL
ORDER BY eval, route, arm
