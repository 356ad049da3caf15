-- output: transient_share
-- kind: output
-- grain: one row per original class, and one pooled row (orig_class NULL)
-- measure: Transient share (pre-registration §5 "Transient share": among control re-runs, the share that became an answer; §8 the control gives the rate of change without more room)
-- needs: reruns, replies, reply_classes, rates
--
-- Control re-runs are non-answer replies re-run once at the same settings. "Became an answer": the
-- re-run reply is a reply (reply_classes.is_reply: not error, not no_choices) and not a non-answer
-- (its replies.non_answer, the classifier's one rule, so tool_only counts as an answer only where
-- the eval offered tools). share_same_class is the share that came back in their original
-- class. A sample (eval × route × sample id × original class) is the unit.
WITH planned AS (
  SELECT x.eval, x.route, x.sample_id, x.orig_class, x.status, x.rerun_class,
    coalesce(k.is_reply AND NOT r.non_answer, false) AS became_answer
  FROM reruns x
  LEFT JOIN replies r ON r.log_id = x.rerun_log_id AND r.sample_id = x.sample_id AND r.epoch = x.epoch
  LEFT JOIN reply_classes k ON k.class = x.rerun_class
  WHERE x.arm = 'control' AND x.status IN ('paired', 'not_rerun')
),
per_sample AS (
  SELECT
    eval, route, sample_id, orig_class,
    count(*) FILTER (WHERE status = 'paired') AS k,
    count(*) FILTER (WHERE status = 'not_rerun') AS k_not_rerun,
    count(*) FILTER (WHERE status = 'paired' AND became_answer) AS k_answer,
    count(*) FILTER (WHERE status = 'paired' AND rerun_class = orig_class) AS k_same
  FROM planned
  GROUP BY ALL
),
shares AS (
  SELECT *,
    rate(k_answer, k) AS s_answer,
    rate(k_same, k) AS s_same
  FROM per_sample
),
groups AS (
  SELECT
    orig_class, grouping(orig_class) = 1 AS pooled,
    count(*) FILTER (WHERE k > 0) AS n_samples,
    sum(k)::BIGINT AS n_reruns,
    sum(k_not_rerun)::BIGINT AS n_not_rerun,
    coalesce(exact_sum(s_answer), 0) AS x_answer,
    coalesce(exact_sum(s_same), 0) AS x_same_class
  FROM shares
  GROUP BY GROUPING SETS ((orig_class), ())
  HAVING count(*) > 0
)
SELECT
  orig_class, pooled,
  n_samples, n_reruns, n_not_rerun,
  x_answer,
  rate(x_answer, n_samples) AS share_answer,
  wilson_low(x_answer, n_samples) AS ci_low,
  wilson_high(x_answer, n_samples) AS ci_high,
  x_same_class,
  rate(x_same_class, n_samples) AS share_same_class,
  getvariable('interval_level') AS level
FROM groups
ORDER BY pooled, orig_class
