-- output: log_spend
-- kind: view
-- grain: one row per counted log of the dataset (logs.set_status = 'counted')
-- measure: Cost (pre-registration §5 "Cost, per route and part"; design.md ruling): what each log's calls cost at the manifest's prices (priced_calls, the cost table's price of each call), for `empties rerun`'s budget: what its plan's log folder and the other plans' log folders beside it hold and spent so far (the dataset's own spend is study_spend)
-- needs: logs, replies, priced_calls, rates
--
-- cost_usd is the exact sum (exact_sum) of the log's priced calls, 0 when none is priced or the
-- log has no calls; n_unpriced counts the calls without a price (no route prices them). rerun
-- reads a log folder's figures through folder_spend (sql/macros), which sums these rows.
-- n_records are the log's sample × epoch records without an error (rerun's resume: what a log
-- already holds), success whether the log's status is success.
WITH records AS (
  SELECT log_id, count(*) FILTER (WHERE class <> 'error') AS n_records
  FROM replies
  GROUP BY ALL
), cost AS (
  SELECT log_id, coalesce(exact_sum(cost_usd), 0) AS cost_usd, count(*) AS n_calls,
    count(*) FILTER (WHERE cost_usd IS NULL) AS n_unpriced
  FROM priced_calls
  GROUP BY ALL
)
SELECT l.log_id, l.path, l.status = 'success' AS success, coalesce(r.n_records, 0) AS n_records,
  coalesce(c.cost_usd, 0) AS cost_usd, coalesce(c.n_calls, 0) AS n_calls, coalesce(c.n_unpriced, 0) AS n_unpriced
FROM logs l
LEFT JOIN records r USING (log_id)
LEFT JOIN cost c USING (log_id)
WHERE l.set_status = 'counted'
