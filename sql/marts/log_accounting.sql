-- output: log_accounting
-- kind: output
-- grain: one row per log status (success, error, cancelled, started) plus superseded and unreadable
-- measure: Every log accounted for (pre-registration §5 "Sample errors are counted as class error, never dropped silently"; §4 "Exploration first"): the logs the replies come from, by status, and the files that could not be read
-- needs: logs
-- optional: ingest_errors
--
-- Needs no manifest. unreadable counts the files of ingest_errors that are not in logs (a file that
-- cannot be read is left out whole); errors within a readable file are counted in n_errors of its
-- status. A superseded log (ingest's log set: a newer attempt of the same task, a recovered copy,
-- or the merged log of its shards holds its samples) is counted under superseded whatever its
-- status, since no measure counts its rows.
WITH read_logs AS (
  SELECT
    CASE WHEN l.set_status = 'superseded' THEN 'superseded' ELSE l.status END AS status,
    count(*) AS n_logs,
    sum(l.sample_count)::BIGINT AS n_samples,
    count(*) FILTER (WHERE l.invalidated) AS n_invalidated,
    coalesce(sum(e.n_errors), 0)::BIGINT AS n_errors
  FROM logs l
  LEFT JOIN (SELECT path, count(*) AS n_errors FROM ingest_errors GROUP BY path) e USING (path)
  GROUP BY ALL
),
unreadable AS (
  SELECT 'unreadable' AS status, count(DISTINCT path) AS n_logs, 0::BIGINT AS n_samples, 0::BIGINT AS n_invalidated,
    count(*) AS n_errors
  FROM ingest_errors
  WHERE path NOT IN (SELECT path FROM logs)
)
SELECT status, n_logs, n_samples, n_invalidated, n_errors FROM read_logs
UNION ALL
SELECT status, n_logs, n_samples, n_invalidated, n_errors FROM unreadable WHERE n_logs > 0
ORDER BY status
