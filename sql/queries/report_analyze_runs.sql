-- output: report_analyze_runs
-- kind: query
-- grain: one row per output of the last analyze run
-- measure: Every table accounted for (pre-registration §5 "Sample errors are counted as class error, never dropped silently"): what the last analyze run computed, so the report says in one line why a table holds no rows (the manifest, a missing input table, or nothing to count)
-- needs: analyze_runs
-- columns: output, status, missing_inputs
SELECT output, status, missing_inputs FROM analyze_runs ORDER BY output
