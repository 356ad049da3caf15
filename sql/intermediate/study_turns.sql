-- output: study_turns
-- kind: table
-- grain: one row per Part A reply (sample × epoch of a log), as study_replies
-- measure: The first and the final reply of every sample (pre-registration §3 "the first assistant message after generation" beside what the scorer grades; §6 the sample as the unit): each reply's generations and non-answer generations, and whether its first and its final reply are non-answers
-- needs: study_replies, replies, study_generations
-- optional: study_evals
--
-- turns and non_answer_turns count the reply's generations in study_generations (0 for a reply
-- with none: taken from sample.output, or none at all). The final reply is ingest's
-- (replies.final_class, final_non_answer: the last generation, vocab.ReplyFinal), except in an eval
-- whose judge runs in the solver (study_evals.judge_where solver), where the last generation is
-- that judge's and the final reply is the first (the rule's own exception, internal/vocab). class
-- and non_answer are the first reply's, as study_replies has them; sample_weight is study_replies'.
WITH counted AS (
  SELECT log_id, sample_id, epoch, count(*) AS turns, count(*) FILTER (WHERE non_answer) AS non_answer_turns
  FROM study_generations
  GROUP BY ALL
)
SELECT
  s.eval, s.profiled, s.route, s.arm, s.log_id, s.sample_id, s.epoch, s.sample_weight,
  s.class, s.non_answer,
  CASE WHEN e.judge_where = 'solver' THEN s.class ELSE r.final_class END AS final_class,
  CASE WHEN e.judge_where = 'solver' THEN s.non_answer ELSE r.final_non_answer END AS final_non_answer,
  coalesce(c.turns, 0) AS turns,
  coalesce(c.non_answer_turns, 0) AS non_answer_turns
FROM study_replies s
JOIN replies r USING (log_id, sample_id, epoch)
LEFT JOIN study_evals e ON s.profiled AND e.eval = s.eval
LEFT JOIN counted c USING (log_id, sample_id, epoch)
