-- output: decide_d1b
-- kind: query
-- grain: one row per refusal eval with wide re-runs, a cell of D1(b)
-- measure: D1(b) (pre-registration §1): among truncated replies re-run with more room, the share that become something other than a refusal, pooled per refusal eval, compared with threshold d1b_non_refusal
-- needs: d1b_non_refusal
-- columns: cell, value, detail, low, high
SELECT eval AS cell, share_non_refusal AS value, printf(', %d re-run samples', n_samples) AS detail, ci_low AS low, ci_high AS high
FROM d1b_non_refusal
WHERE pooled AND n_samples > 0
ORDER BY eval
