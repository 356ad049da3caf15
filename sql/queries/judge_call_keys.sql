-- output: judge_call_keys
-- kind: query
-- grain: one row per judge call (model_calls row) of a log placed in the study
-- measure: Judges (pre-registration §4 Part B "Judge verdicts are reused from the logs"; §5 "judge calls saved by bypassing"): the calls rescore reads as judge calls, whose verdicts it reuses and counts per reply
-- needs: model_calls, judge_calls
-- given: log_judges
-- columns: log_id, sample_id, epoch, call_index
--
-- Rescore creates log_judges (log_id, judge_where: where the judge of the log's eval runs, from its
-- profile) for the logs it places in an eval before committing log_assignments and study_evals, and
-- reads the judge calls of those logs by is_judge_call, the one definition.
SELECT m.log_id, m.sample_id, m.epoch, m.call_index
FROM model_calls m
JOIN log_judges j USING (log_id)
WHERE is_judge_call(m.kind, m.is_reply, j.judge_where)
ORDER BY 1, 2, 3, 4
