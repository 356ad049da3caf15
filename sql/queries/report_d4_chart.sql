-- output: report_d4_chart
-- kind: query
-- grain: one row per eval × judge model × non-answer form (not pooled) with a pass rate, highest first
-- measure: D4 judges on non-answers (pre-registration §1 D4, §5 "Judge behaviour on non-answers"; §6 Wilson intervals): the points of the report's D4 chart, each judge's passing rate per form with its interval and cases
-- needs: d4_judge_behaviour
-- columns: label, value, low, high, n
SELECT eval || ' · ' || judge_model || ' · ' || form AS label, pass_rate AS value, pass_ci_low AS low, pass_ci_high AS high, n_cases AS n
FROM d4_judge_behaviour
WHERE NOT pooled AND pass_rate IS NOT NULL
ORDER BY pass_rate DESC, eval, judge_model, form
