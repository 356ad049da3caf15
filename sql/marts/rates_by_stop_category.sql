-- output: rates_by_stop_category
-- kind: output
-- grain: one row per eval × route × arm × stop_details category ('(none)' when the provider gave none)
-- measure: Exploratory rates by stop_details category (pre-registration §6 "Exploratory: rates by stop reason and stop_details category")
-- needs: stop_rates
--
-- rate: the share of the cell's samples whose reply stopped with this category; non_answer_rate: the
-- share of the cell's samples whose reply stopped with this category and is a non-answer. Both with the
-- sample as the unit and Wilson intervals over the cell's samples.
-- The query is stop_rates (stop_rates.sql), shared with rates_by_stop_reason.
SELECT * RENAME (stop_value AS stop_details_category)
FROM stop_rates(stop_details_category)
ORDER BY eval, profiled, route, arm, stop_details_category
