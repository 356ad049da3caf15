-- output: study_spend
-- kind: macro
-- measure: Cost (pre-registration §5 "Cost, per route and part"; design.md ruling): what the dataset's logs cost so far at the manifest's prices (priced_calls, the cost table's price of each call), against the budget ceiling: the spend `empties select` writes into a plan, and the dataset's part of what `empties rerun`'s budget counts as spent
-- needs: priced_calls, log_assignments, rates
--
-- study_spend(left_out) is a table macro of one row: cost_usd, the exact sum (exact_sum) of every
-- priced call of the dataset's logs, 0 when none is: the same figure on every run; n_unpriced, the
-- calls no route prices, and unpriced_models, their models, sorted (the budget shows them as
-- unpriced, never as $0). select reads
-- study_spend([]); rerun leaves out the logs in its plan's log folder and in the other plans' log
-- folders beside it (left_out, a list of folder paths), whose spend it counts on its own until the
-- dataset holds them. A log is left out when its path is a folder of the list or lies under one
-- (path_in_folder: the path's text begins with the folder and a slash; a folder's trailing slashes
-- do not matter, and / holds every absolute path), as filepath.Rel finds a path inside a folder for
-- the absolute, clean paths ingest stores and rerun gives.
--
-- The dataset's logs are those placed in the study (log_assignments, which priced_calls joins): the
-- logs ingest counts (logs.set_status = 'counted', log_spend's), as rescore assigns every log ingest
-- did not supersede, unmatched ones included, and the measures' views leave superseded logs' rows
-- out of model_calls and log_assignments alike. A call is priced through its log's assignment, so
-- the assignments are what the rule reads.
CREATE OR REPLACE MACRO path_in_folder(path, folder) AS
  path = rtrim(folder, '/') OR starts_with(path, rtrim(folder, '/') || '/');

CREATE OR REPLACE MACRO study_spend(left_out) AS TABLE
  SELECT coalesce(exact_sum(cost_usd), 0) AS cost_usd,
    count(*) FILTER (WHERE cost_usd IS NULL) AS n_unpriced,
    coalesce(list_sort(list_distinct(list(call_model) FILTER (WHERE cost_usd IS NULL))), []::VARCHAR[]) AS unpriced_models
  FROM priced_calls
  WHERE log_id NOT IN (
    SELECT a.log_id
    FROM log_assignments a, unnest(left_out::VARCHAR[]) AS f(folder)
    WHERE path_in_folder(a.path, f.folder)
  );
