-- output: report_rates_by_stop_category
-- kind: query
-- grain: one row per eval × route × arm × stop_details category, most non-answers first
-- measure: Exploratory rates by stop_details category (pre-registration §6 "Exploratory: rates by stop reason and stop_details category"), as the report's "Rates by stop_details category" shows them
-- needs: rates_by_stop_category
-- columns: *
--
-- Every column of rates_by_stop_category but profiled.
SELECT * EXCLUDE (profiled)
FROM rates_by_stop_category
ORDER BY non_answer_rate DESC, rate DESC, eval, route, arm
