-- output: report_reply_sources
-- kind: query
-- grain: one row per eval × route × arm × reply source, most replies first
-- measure: How the reply of the model under test was chosen (pre-registration §3 "Exploration first"; design.md "the reply is the model under test's first model call"), as the report's "How the replies were chosen" shows it
-- needs: reply_sources
-- columns: *
--
-- Every column of reply_sources but profiled is shown, so counts added to it (attempts and
-- placeholders the choice skipped) appear on the page with no change here.
SELECT * EXCLUDE (profiled)
FROM reply_sources
ORDER BY n_replies DESC, eval, route, arm, reply_source
