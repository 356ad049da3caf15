-- output: report_unmatched_logs
-- kind: query
-- grain: one row per log that matches no eval profile of the manifest
-- measure: Every log accounted for (pre-registration §5 "Sample errors are counted as class error, never dropped silently"; §3 Design, the evals each log belongs to): the logs whose replies are classified but not re-scored, because no eval profile of the manifest maps them
-- needs: log_assignments
-- columns: path, task, model
SELECT path, task, model FROM log_assignments WHERE eval IS NULL ORDER BY path
