-- output: report_overview_classes
-- kind: query
-- grain: one row per class of the default arm's samples (overview_classes' scope all), largest share first
-- measure: The headline split by class (pre-registration §5 "Class rates", pooled over cells; §6 Wilson intervals with the sample as the unit): the classes listed in each card of the first screen
-- needs: overview_classes
-- columns: counts_as, class, n_replies, rate, ci_low, ci_high
SELECT counts_as, class, n_replies, rate, ci_low, ci_high
FROM overview_classes
WHERE arm = 'default' AND scope = 'all'
ORDER BY rate DESC, ordinal
