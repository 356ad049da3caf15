-- output: log_spend
-- kind: view
-- grain: one row per counted log of the dataset (logs.set_status = 'counted')
-- measure: Cost (pre-registration §5 "Cost, per route and part"; design.md ruling): what each log's calls cost at the manifest's prices (priced_calls, the cost table's price of each call), for `empties rerun`'s budget: what its plan's log folder and the other plans' log folders beside it hold and spent so far (the dataset's own spend is study_spend)
-- needs: logs, replies, priced_calls, rates
--
-- cost_usd is the exact sum (exact_sum) of the log's priced calls, 0 when none is priced or the
-- log has no calls; n_unpriced counts the calls without a price (no route prices them) and
-- unpriced_models names their models, sorted. rerun reads a log folder's figures through
-- folder_spend (sql/macros), which sums these rows, over a dataset of every attempt's log (ingest
-- --all-attempts): a call is counted once, in the first log (by created, then log_id) that holds
-- it, so a sample eval_set reused from an earlier attempt (it keeps its sample_uuid, epoch and
-- calls) adds nothing in the later log, while a sample run again after an attempt was stopped (a
-- new sample_uuid) adds its calls again: both runs were paid for. A sample without a uuid (a log
-- older than inspect_ai 0.3.70) is its log's own.
-- n_records are the log's sample × epoch records without an error (rerun's resume: what a log
-- already holds), success whether the log's status is success.
WITH records AS (
  SELECT log_id, count(*) FILTER (WHERE class <> 'error') AS n_records
  FROM replies
  GROUP BY ALL
), calls AS (
  SELECT c.log_id, c.cost_usd, c.call_model,
    row_number() OVER (
      PARTITION BY coalesce(r.sample_uuid, c.log_id || chr(0) || c.sample_id), c.epoch, c.call_index
      ORDER BY l.created NULLS LAST, c.log_id
    ) AS seen
  FROM priced_calls c
  JOIN logs l USING (log_id)
  LEFT JOIN replies r USING (log_id, sample_id, epoch)
), cost AS (
  SELECT log_id, coalesce(exact_sum(cost_usd), 0) AS cost_usd, count(*) AS n_calls,
    count(*) FILTER (WHERE cost_usd IS NULL) AS n_unpriced,
    list_sort(list_distinct(list(call_model) FILTER (WHERE cost_usd IS NULL))) AS unpriced_models
  FROM calls
  WHERE seen = 1
  GROUP BY ALL
)
SELECT l.log_id, l.path, l.status = 'success' AS success, coalesce(r.n_records, 0) AS n_records,
  coalesce(c.cost_usd, 0) AS cost_usd, coalesce(c.n_calls, 0) AS n_calls, coalesce(c.n_unpriced, 0) AS n_unpriced,
  coalesce(c.unpriced_models, []::VARCHAR[]) AS unpriced_models
FROM logs l
LEFT JOIN records r USING (log_id)
LEFT JOIN cost c USING (log_id)
WHERE l.set_status = 'counted'
