-- output: report_d1a_chart
-- kind: query
-- grain: one row per eval × reasoning route of the default arm, highest share first
-- measure: D1(a) truncation share of samples (pre-registration §1 D1(a), §5 "Truncation share of samples"; §6 Wilson intervals): the points of the report's D1(a) chart, each with its interval and samples
-- needs: d1a_truncation
-- columns: label, value, low, high, n
SELECT eval || ' · ' || route AS label, share AS value, ci_low AS low, ci_high AS high, n_samples AS n
FROM d1a_truncation
ORDER BY share DESC, eval, route
