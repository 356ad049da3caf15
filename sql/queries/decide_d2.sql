-- output: decide_d2
-- kind: query
-- grain: one row per model × pair of routes where either route refused, a cell of D2
-- measure: D2 (pre-registration §1): per model with two routes, among samples where either route refused, the share delivered in different forms, pooled, compared with threshold d2_form_disagreement
-- needs: d2_form_disagreement
-- columns: cell, value, detail
SELECT model || ': ' || route_a || ' vs ' || route_b AS cell, share_forms_differ AS value,
  printf(' [%.3g%%, %.3g%%], n=%d samples where either refused; both refused in %.3g%%', ci_low * 100, ci_high * 100, n_either_refused, share_both_refused * 100) AS detail
FROM d2_form_disagreement
WHERE pooled AND n_either_refused > 0
ORDER BY model, route_a, route_b
