-- output: decide_d2
-- kind: query
-- grain: one row per model × pair of routes where either route refused, a cell of D2
-- measure: D2 (pre-registration §1): per model with two routes, among samples where either route refused, the share delivered in different forms, pooled, compared with threshold d2_form_disagreement
-- needs: d2_form_disagreement
-- columns: cell, value, detail, low, high
SELECT model || ': ' || route_a || ' vs ' || route_b AS cell, share_forms_differ AS value,
  printf(', %d samples where either route refused, %d where both did', n_either_refused, n_both_refused) AS detail, ci_low AS low, ci_high AS high
FROM d2_form_disagreement
WHERE pooled AND n_either_refused > 0
ORDER BY model, route_a, route_b
