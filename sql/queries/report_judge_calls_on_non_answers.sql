-- output: report_judge_calls_on_non_answers
-- kind: query
-- grain: one row per eval × route × arm × reply class × judge model × judge class × call status, most calls first
-- measure: Judges that received a non-answer (pre-registration §3 "Exploration first"; the exploratory side of §5 "Judge behaviour on non-answers (D4)"), as the report's "Judges that received a non-answer" shows it
-- needs: judge_calls_on_non_answers
-- columns: eval, route, arm, reply_class, judge_model, judge_class, call_status, n_calls, n_replies
SELECT eval, route, arm, reply_class, judge_model, judge_class, call_status, n_calls, n_replies
FROM judge_calls_on_non_answers
ORDER BY n_calls DESC, eval, route, arm, reply_class, judge_model, judge_class, call_status
