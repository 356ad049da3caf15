-- output: scoped_replies
-- kind: view
-- grain: one row per Part A reply × scope: once for every route together (scope all, route NULL) and once for its route (scope route)
-- measure: The headline's pooling (pre-registration §5 "Class rates", pooled over cells; §6 the sample as the unit): each reply counted as a non-answer, no reply or answer, in the scopes overview and overview_classes report
-- needs: study_replies, reply_classes
--
-- counts_as: no_reply for a class that is no reply at all (reply_classes.is_reply false: error and
-- no_choices), non_answer where replies.non_answer, else answer (tool_only with tools offered
-- included). A sample is a sample of one eval × route × arm cell (study_replies' unit), named by
-- cell_key; sample_weight is study_replies' (the weights of a cell's sample sum to 1).
WITH counted AS (
  SELECT
    s.eval, s.profiled, s.route AS cell_route, s.arm, s.sample_id, s.log_id, s.class, k.ordinal, s.sample_weight,
    CASE WHEN NOT k.is_reply THEN 'no_reply' WHEN s.non_answer THEN 'non_answer' ELSE 'answer' END AS counts_as
  FROM study_replies s
  JOIN reply_classes k USING (class)
)
SELECT 'all' AS scope, NULL::VARCHAR AS route, * FROM counted
UNION ALL
SELECT 'route' AS scope, cell_route AS route, * FROM counted
