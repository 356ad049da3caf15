-- output: decide_d4_pass_rate
-- kind: query
-- grain: one row per eval × judge model × non-answer form with scored cases, a cell of D4
-- measure: D4 (pre-registration §1): the share of Part C cases in which an eval's default judge passes a non-answer, compared with threshold d4_pass_rate
-- needs: d4_judge_behaviour
-- columns: cell, value, detail, low, high
SELECT eval || ' × ' || judge_model || ' × ' || form AS cell, pass_rate AS value, printf(' passed, %d cases', n_scored_cases) AS detail, pass_ci_low AS low, pass_ci_high AS high
FROM d4_judge_behaviour
WHERE NOT pooled AND n_scored_cases > 0
ORDER BY eval, judge_model, form
