-- output: judge_calls
-- kind: macro
-- measure: Judges (pre-registration §3 "AIR-Bench: judge runs inside the solver"; §4 Part B "Judge verdicts are reused from the logs"; §5 "Judge behaviour on non-answers (D4)" and "judge calls saved by bypassing"; design.md rule 1): the one definition of a call that graded a sample's reply, read by rescore (the judge verdicts and each reply's judge calls), its Part C judge tests, the judge calls on non-answers and the judge prices
-- needs:
--
-- is_judge_call(kind, is_reply, judge_where) is true for a model call (model_calls.kind: whose call
-- ingest found it to be, a judge's when a scorer span or step encloses it or its role names a
-- grader; model_calls.is_reply: it is the sample's reply) of a log whose eval's judge runs at
-- judge_where (study_evals.judge_where, an eval profile's judge.where):
--   scorer: a judge's call;
--   solver: a call of the model under test other than the reply (AIR-Bench's annotate solver calls
--           the model under test again to grade its own reply, air_bench.py:137-174);
--   none:   no call;
--   NULL (no eval profile places the log, or no manifest): a judge's call, as ingest found it.
CREATE OR REPLACE MACRO is_judge_call(kind, is_reply, judge_where) AS
  CASE coalesce(judge_where, 'scorer')
    WHEN 'scorer' THEN kind IS NOT DISTINCT FROM 'judge'
    WHEN 'solver' THEN kind IS NOT DISTINCT FROM 'model_under_test' AND NOT coalesce(is_reply, false)
    ELSE false
  END;
