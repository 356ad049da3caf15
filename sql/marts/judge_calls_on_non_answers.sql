-- output: judge_calls_on_non_answers
-- kind: output
-- grain: one row per eval × route × arm × reply class × judge model × judge_class × call_status, non-answer replies only (without a manifest: per task × model)
-- measure: Judges that received a non-answer (pre-registration §4 "Exploration first"; the exploratory side of §5 "Judge behaviour on non-answers (D4)"): the judge calls of samples whose reply is a non-answer, and what the judge sent back
-- needs: study_replies, model_calls, judge_calls
-- optional: study_evals, judge_verdicts
--
-- Needs no manifest. A judge call is a model_calls row is_judge_call (the one definition,
-- sql/macros/judge_calls.sql) finds a judge's call, given where the judge of the reply's eval runs
-- (study_evals.judge_where; a log no profile places, or a dataset without a manifest, has the calls
-- ingest found a judge's); it belongs to the reply of its sample × epoch. judge_class is how the
-- judge's own reply reads (empty, refused, overflow, truncated, usable): model_calls.judge_class,
-- which classify gives the calls ingest found a judge's; for a judge inside the solver (a call of the
-- model under test, which classify leaves unclassified), the class rescore gave it in judge_verdicts;
-- '(none)' when neither did. call_status is whether the call completed, was a placeholder, or
-- errored (retried or failed).
WITH judged AS (
  SELECT
    s.eval, s.profiled, s.route, s.arm, s.class AS reply_class,
    m.model AS judge_model, coalesce(m.judge_class, v.judge_class, '(none)') AS judge_class, m.call_status,
    s.log_id, s.sample_id, s.epoch
  FROM study_replies s
  JOIN model_calls m USING (log_id, sample_id, epoch)
  LEFT JOIN study_evals e ON s.profiled AND e.eval = s.eval
  LEFT JOIN (
    SELECT log_id, sample_id, epoch, call_index, min(judge_class) AS judge_class
    FROM judge_verdicts
    GROUP BY ALL
  ) v USING (log_id, sample_id, epoch, call_index)
  WHERE s.non_answer AND is_judge_call(m.kind, m.is_reply, e.judge_where)
)
SELECT
  eval, profiled, route, arm, reply_class, judge_model, judge_class, call_status,
  count(*) AS n_calls,
  count(DISTINCT (log_id, sample_id, epoch)) AS n_replies,
  count(DISTINCT sample_id) AS n_samples
FROM judged
GROUP BY ALL
ORDER BY eval, profiled, route, arm, reply_class, judge_model, judge_class, call_status
