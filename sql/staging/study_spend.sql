-- output: study_spend
-- kind: view
-- grain: one row: the dataset's logs placed in the study
-- measure: Cost (pre-registration §5 "Cost, per route and part"; design.md ruling): what every call of the study's logs cost so far at the manifest's prices (priced_calls, the cost table's price of each call), the spend `empties select` writes into a plan beside the budget ceiling
-- needs: priced_calls, rates
--
-- The exact sum (exact_sum) of every priced call, 0 when none is: the same figure on every run.
SELECT coalesce(exact_sum(cost_usd), 0) AS cost_usd
FROM priced_calls
