-- output: summaries_accounted
-- kind: check
-- invariant: every sample a log's summaries list is a reply or an ingest_errors row
-- grain: one row per log whose summaries list more samples than its replies and ingest_errors rows
-- needs: logs, ingest_errors
--
-- A sample the summaries list without a member is an ingest_errors row (ingest's writer.missing);
-- a log written with log_samples off lists summaries and holds no samples on purpose.
SELECT l.path, l.summary_count, l.sample_count
FROM logs l
WHERE l.summary_count > l.sample_count + (SELECT count(*) FROM ingest_errors e WHERE e.path = l.path)
  AND coalesce(json_extract_string(l.eval_config, '$.log_samples'), 'true') <> 'false'
