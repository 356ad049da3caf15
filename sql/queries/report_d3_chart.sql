-- output: report_d3_chart
-- kind: query
-- grain: one row per eval × route of the default arm with a P3 − P0 delta, primary cells first
-- measure: D3 impact (pre-registration §1 D3, §5 "Headline under each policy", §6 primary cells): the points of the report's D3 chart, the P3 − P0 delta in percentage points with a bar of the P0 interval's half-width on either side (the floor D3 compares the delta with; 0 where the P0 headline has no interval)
-- needs: d3_headline_deltas
-- columns: label, value, low, high, n
SELECT eval || ' · ' || route || CASE WHEN is_primary THEN ' (primary)' ELSE '' END AS label,
  delta_pp AS value, delta_pp - coalesce(p0_half_width_pp, 0) AS low, delta_pp + coalesce(p0_half_width_pp, 0) AS high, n_samples AS n
FROM d3_headline_deltas
WHERE arm = 'default' AND delta_pp IS NOT NULL AND NOT isnan(delta_pp)
ORDER BY NOT is_primary, abs(delta_pp) DESC, eval, route
