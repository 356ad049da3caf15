-- output: folder_spend
-- kind: macro
-- measure: Cost (pre-registration §5 "Cost, per route and part"; design.md ruling): what the logs under one log folder hold and spent so far (log_spend, per log), for `empties rerun`'s budget and resume: its plan's log folder, each group's folder in it, and the other plans' log folders beside it
-- needs: log_spend, study_spend, rates
--
-- folder_spend(folder, attempts) is a table macro of one row over the logs whose path lies under
-- folder (path_in_folder, study_spend's rule). What they hold is read from the logs of attempts
-- (log ids: the newest attempt of each eval, as ingest's log set decides, which rerun computes over
-- a dataset of every attempt): n_logs, those logs; finished, whether there is one and every one's
-- status is success; n_records, their records, which is what a next run of eval_set reuses. What
-- they spent is every log's (the ledger: each call once, log_spend): cost_usd, the exact sum
-- (exact_sum) of their costs, 0 when none is priced, the same figure on every run; n_calls and
-- n_unpriced, their sums; unpriced_models, the models of the unpriced calls, sorted.
CREATE OR REPLACE MACRO folder_spend(folder, attempts) AS TABLE
  SELECT count(*) FILTER (WHERE list_contains(attempts, log_id)) AS n_logs,
    coalesce(count(*) FILTER (WHERE list_contains(attempts, log_id)) > 0
      AND bool_and(success) FILTER (WHERE list_contains(attempts, log_id)), false) AS finished,
    coalesce(sum(n_records) FILTER (WHERE list_contains(attempts, log_id)), 0)::BIGINT AS n_records,
    coalesce(exact_sum(cost_usd), 0) AS cost_usd,
    coalesce(sum(n_calls), 0)::BIGINT AS n_calls,
    coalesce(sum(n_unpriced), 0)::BIGINT AS n_unpriced,
    list_sort(list_distinct(flatten(coalesce(list(unpriced_models), []::VARCHAR[][])))) AS unpriced_models
  FROM log_spend
  WHERE path_in_folder(path, folder);
