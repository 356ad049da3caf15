-- output: final_reply_is_last_generation
-- kind: check
-- invariant: every reply's final reply is its last generation, and generations and non_answer_generations count its generations (model_calls rows with a class)
-- grain: one row per reply whose final_call_index, generations or non_answer_generations differ from its model_calls rows
-- needs: replies, model_calls
WITH g AS (
  SELECT log_id, sample_id, epoch, count(class) AS n, count(*) FILTER (WHERE non_answer) AS na,
    max(call_index) FILTER (WHERE class IS NOT NULL) AS last
  FROM model_calls
  GROUP BY ALL
)
SELECT r.log_id, r.sample_id, r.epoch, r.final_call_index, g.last, r.generations, g.n, r.non_answer_generations, g.na
FROM replies r
LEFT JOIN g USING (log_id, sample_id, epoch)
WHERE r.final_call_index IS DISTINCT FROM g.last OR r.generations <> coalesce(g.n, 0) OR r.non_answer_generations <> coalesce(g.na, 0)
