-- output: study_replies
-- kind: table
-- grain: one row per Part A reply (sample × epoch of a log), every class, errors included
-- measure: the sample as the unit (design.md, "Rulings: epochs and re-runs"): each reply carries the weight 1 / (replies of its sample in its eval × route × arm cell), so a sample's weights sum to 1 and a rate's x is the sum of its replies' weights
-- needs: replies, rates
-- optional: log_assignments
--
-- Without log_assignments (rescore not run) every log still counts: eval is the log's task, route the
-- log's model, arm default, and profiled is false. Part C logs (judge tests) are not replies of a
-- model under test and are left out.
WITH placed AS (
  SELECT
    coalesce(a.eval, r.task) AS eval,
    a.eval IS NOT NULL AS profiled,
    coalesce(a.route, r.model) AS route,
    coalesce(a.arm, 'default') AS arm,
    coalesce(a.part, 'A') AS part,
    r.sample_id, r.epoch, r.class, r.non_answer, r.stop_reason, r.stop_details_category,
    r.log_id, r.reply_source, r.max_tokens, r.max_tokens_source, r.failed_attempts, r.placeholders_skipped
  FROM replies r
  LEFT JOIN log_assignments a USING (log_id)
),
part_a AS (
  SELECT * EXCLUDE (part) FROM placed WHERE part = 'A'
),
weighted AS (
  SELECT *, sample_weight((eval, profiled, route, arm, sample_id)) AS sample_weight
  FROM part_a
)
SELECT eval, profiled, route, arm, sample_id, epoch, class, non_answer, stop_reason, stop_details_category, sample_weight,
  log_id, reply_source, max_tokens, max_tokens_source, failed_attempts, placeholders_skipped
FROM weighted
