-- output: report_simulated
-- kind: query
-- grain: one row per dataset: the counted logs, and those whose model under test is inspect_ai's mockllm
-- measure: What the replies are (pre-registration §4 "Mapping to practice": every call records route, settings and date): the report's banner when the logs' replies are simulated, read from the logs (logs.model, mockllm/...), never from a flag
-- needs: logs
-- columns: n_logs, n_simulated, models
SELECT count(*) AS n_logs,
  count(*) FILTER (WHERE model LIKE 'mockllm/%') AS n_simulated,
  coalesce(string_agg(DISTINCT model, ', ' ORDER BY model) FILTER (WHERE model LIKE 'mockllm/%'), '') AS models
FROM logs
WHERE set_status = 'counted'
