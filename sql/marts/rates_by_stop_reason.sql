-- output: rates_by_stop_reason
-- kind: output
-- grain: one row per eval × route × arm × stop reason ('(none)' when the reply has no choices)
-- measure: Exploratory rates by stop reason (pre-registration §6 "Exploratory: rates by stop reason and stop_details category")
-- needs: stop_rates
--
-- rate: the share of the cell's samples whose reply stopped for this reason; non_answer_rate: the
-- share of the cell's samples whose reply stopped for this reason and is a non-answer. Both with the
-- sample as the unit and Wilson intervals over the cell's samples.
-- The query is stop_rates (stop_rates.sql), shared with rates_by_stop_category.
SELECT * RENAME (stop_value AS stop_reason)
FROM stop_rates(stop_reason)
ORDER BY eval, profiled, route, arm, stop_reason
