-- output: decide_d4_repeat_disagreement
-- kind: query
-- grain: one row per eval × judge model × non-answer form with repeated cases, a cell of D4
-- measure: D4 (pre-registration §1): the share of repeated Part C cases whose repeats an eval's default judge grades differently, compared with threshold d4_repeat_disagreement
-- needs: d4_judge_behaviour
-- columns: cell, value, detail, low, high
SELECT eval || ' × ' || judge_model || ' × ' || form AS cell, repeat_disagreement AS value, printf(' of repeats disagree, %d cases', n_repeated_cases) AS detail, disagree_ci_low AS low, disagree_ci_high AS high
FROM d4_judge_behaviour
WHERE NOT pooled AND n_repeated_cases > 0
ORDER BY eval, judge_model, form
