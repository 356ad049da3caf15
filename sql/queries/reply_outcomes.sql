-- output: reply_outcomes
-- kind: query
-- grain: one row per re-scored reply of one eval (its P0 policy row), the rows of reply_outcomes
-- measure: D1(b) and D2 inputs (pre-registration §1): whether the eval's own scorer counted a reply as a refusal, by the profile's refused predicate over the logged score, beside the reply's class, from which rescore derives its D2 refusal form
-- needs: policy_scores, replies, log_assignments, score_values
-- holes: components, refused
-- columns: log_id, eval, route, arm, part, sample_id, epoch, class, non_answer, refused
--
-- Rescore runs it once per eval ($eval), the holes filled from the eval's profile: components
-- evaluates each score component on a score row (as for headline_cells), refused is the profile's
-- refused predicate over them (NULL when the profile has none). The predicate is evaluated where
-- only the components (and keys) are visible, so component names cannot clash with other columns;
-- the columns after it carry a __ prefix no component takes.
WITH comps AS (
  SELECT log_id, eval, route, arm, sample_id, epoch, unscored, {{components}} FROM policy_scores WHERE eval = $eval AND policy = 'P0'
), judged AS (
  SELECT log_id AS __log_id, sample_id AS __sample_id, epoch AS __epoch, eval AS __eval, route AS __route, arm AS __arm,
    CASE WHEN unscored THEN NULL ELSE {{refused}} END AS __refused
  FROM comps
)
SELECT __log_id AS log_id, __eval AS eval, __route AS route, __arm AS arm, __a.part AS part, __sample_id AS sample_id,
  __epoch AS epoch, __r.class AS class, __r.non_answer AS non_answer, __refused AS refused
FROM judged JOIN replies __r ON __r.log_id = __log_id AND __r.sample_id = __sample_id AND __r.epoch = __epoch
JOIN log_assignments __a ON __a.log_id = __log_id
ORDER BY __route, __arm, __sample_id, __epoch, __log_id
