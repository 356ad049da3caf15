-- output: report_log_accounting
-- kind: query
-- grain: one row per log status (counted, superseded, unreadable ...)
-- measure: Every log accounted for (pre-registration §5 "Sample errors are counted as class error, never dropped silently"; §3 "Exploration first"): the report's "Logs read" table and the first screen's line of log files, from the rows of log_accounting
-- needs: log_accounting
-- columns: status, n_logs, n_sample_records, n_invalidated, n_errors
-- derived: n_sample_records: count, sample records
SELECT status, n_logs, n_samples AS n_sample_records, n_invalidated, n_errors
FROM log_accounting
ORDER BY status
