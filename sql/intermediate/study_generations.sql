-- output: study_generations
-- kind: table
-- grain: one row per generation of the model under test in a Part A reply (a model_calls row with a class), judges inside the solver left out
-- measure: Every turn of an agent (the exploratory side of pre-registration §5 "Class rates", per generation; §3 "Reply classes" applied to each generation): each generation's class, its turn among the sample's, and the cell its reply belongs to
-- needs: study_replies, model_calls, judge_calls
-- optional: study_evals
--
-- A generation is a call ingest gave a class (model_calls.class: kind model_under_test, call_status
-- completed or failed; vocab.IsGeneration). A call is_judge_call finds a judge's (the one definition,
-- sql/macros/judge_calls.sql) is no turn of the model under test: in an eval whose judge runs in
-- the solver (study_evals.judge_where solver, AIR-Bench's annotate), every generation but the reply
-- is that judge's. turn numbers the rest from 1 in call order, turns counts them.
WITH turns AS (
  SELECT
    s.eval, s.profiled, s.route, s.arm, s.log_id, s.sample_id, s.epoch,
    m.call_index, m.class, m.class_rule, m.non_answer
  FROM study_replies s
  JOIN model_calls m USING (log_id, sample_id, epoch)
  LEFT JOIN study_evals e ON s.profiled AND e.eval = s.eval
  WHERE m.class IS NOT NULL AND NOT is_judge_call(m.kind, m.is_reply, e.judge_where)
)
SELECT
  eval, profiled, route, arm, log_id, sample_id, epoch, call_index,
  row_number() OVER (PARTITION BY log_id, sample_id, epoch ORDER BY call_index) AS turn,
  count(*) OVER (PARTITION BY log_id, sample_id, epoch) AS turns,
  class, class_rule, non_answer
FROM turns
