-- output: decide_d1a
-- kind: query
-- grain: one row per eval × reasoning route with samples, a cell of D1(a)
-- measure: D1(a) (pre-registration §1): the truncated_empty share of all samples per eval × reasoning route at the eval's own settings, the deciding value decide compares with thresholds d1a_raise_max_tokens and d1a_helper_unscored
-- needs: d1a_truncation
-- columns: cell, value, detail, low, high
--
-- Decide's queries yield one row per cell: its name (eval first, then " × " and the rest), the
-- deciding number (NULL or NaN: the cell is skipped), what is printed after it and, where the
-- number has one, its interval (low, high, in its unit: decide prints them as the report does).
SELECT eval || ' × ' || route AS cell, share AS value, printf(', %d samples', n_samples) AS detail, ci_low AS low, ci_high AS high
FROM d1a_truncation
WHERE n_samples > 0
ORDER BY eval, route
