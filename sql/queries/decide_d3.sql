-- output: decide_d3
-- kind: query
-- grain: one row per primary eval × route × arm with a P3 − P0 delta, a cell of D3
-- measure: D3 (pre-registration §1): on the primary cells, |P3 − P0| in percentage points of the eval's own scale (design.md "D3 scale"), compared with threshold d3_min_delta_pp and with the cell's own bar, its P0 interval half-width (bar), where that is larger; kind is the eval's kind (refusal = safety eval) for H3
-- needs: d3_headline_deltas
-- columns: cell, value, detail, bar, kind
SELECT eval || ' × ' || route || ' × ' || arm AS cell, abs(delta_pp) AS value,
  printf(' (P3 − P0 = %s%.4g pp; P0 half-width %.4g pp; %s eval)', CASE WHEN delta_pp > 0 THEN '+' WHEN delta_pp < 0 THEN '−' ELSE '' END, abs(delta_pp), coalesce(p0_half_width_pp, 0), coalesce(kind, 'unknown')) AS detail,
  p0_half_width_pp AS bar, kind
FROM d3_headline_deltas
WHERE is_primary AND delta IS NOT NULL
ORDER BY eval, route, arm
