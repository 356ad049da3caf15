-- output: reply_sources
-- kind: output
-- grain: one row per eval × route × arm × reply_source (without a manifest: per task × model)
-- measure: How the reply of the model under test was chosen (design.md "the reply is the model under test's first model call, not sample.output"; pre-registration §4 "Exploration first"): replies from a model event, from sample.output (no model events logged), or none
-- needs: study_replies
--
-- Needs no manifest. The counts of how ingest chose each reply, so a reader sees how many rates
-- rest on sample.output rather than a model event, and what the choice skipped: failed attempts
-- that were retried (replies.failed_attempts) and placeholder events that never completed
-- (replies.placeholders_skipped), as replies with any and as totals.
SELECT
  eval, profiled, route, arm, reply_source,
  count(*) AS n_replies,
  count(DISTINCT sample_id) AS n_samples,
  count(*) FILTER (WHERE non_answer) AS n_non_answer_replies,
  count(*) FILTER (WHERE failed_attempts > 0) AS n_replies_after_failed_attempts,
  coalesce(sum(failed_attempts), 0)::BIGINT AS failed_attempts,
  count(*) FILTER (WHERE placeholders_skipped > 0) AS n_replies_after_placeholders,
  coalesce(sum(placeholders_skipped), 0)::BIGINT AS placeholders_skipped
FROM study_replies
GROUP BY ALL
ORDER BY eval, profiled, route, arm, reply_source
