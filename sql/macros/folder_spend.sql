-- output: folder_spend
-- kind: macro
-- measure: Cost (pre-registration §5 "Cost, per route and part"; design.md ruling): what the counted logs under one log folder hold and spent so far (log_spend, per log), for `empties rerun`'s budget and resume: its plan's log folder, each group's folder in it, and the other plans' log folders beside it
-- needs: log_spend, study_spend, rates
--
-- folder_spend(folder) is a table macro of one row: n_logs, the counted logs whose path lies under
-- folder (path_in_folder, study_spend's rule); finished, whether there is one and every one's status
-- is success; n_records, n_calls and n_unpriced, their sums; cost_usd, the exact sum (exact_sum) of
-- their costs, 0 when none is priced: the same figure on every run.
CREATE OR REPLACE MACRO folder_spend(folder) AS TABLE
  SELECT count(*) AS n_logs,
    coalesce(count(*) > 0 AND bool_and(success), false) AS finished,
    coalesce(sum(n_records), 0)::BIGINT AS n_records,
    coalesce(exact_sum(cost_usd), 0) AS cost_usd,
    coalesce(sum(n_calls), 0)::BIGINT AS n_calls,
    coalesce(sum(n_unpriced), 0)::BIGINT AS n_unpriced
  FROM log_spend
  WHERE path_in_folder(path, folder);
