-- output: report_table
-- kind: query
-- grain: one row per row of the table listed
-- measure: The report's "All tables" (pre-registration §5 and §6: every measure's table as the SQL wrote it): one dataset table's rows, every column, in a deterministic order, for the page, tables/<table>.csv, .parquet and .md
-- needs:
-- holes: table
-- columns: *
--
-- The report fills table with the table's quoted name (duck.Ident) and runs it for every table it
-- lists; the same text writes the Parquet file, so the files and the page hold the same rows in
-- the same order. The report reads the columns by name.
--
-- The order is every column's but log_id's, left to right, then every column's (ties): log_id
-- hashes a log's absolute path, so sorting by it first (as ORDER BY ALL would, in the tables
-- whose first column it is: p0_check, log_assignments, reruns) listed the same logs in another
-- order in another checkout. empties_tie keeps the first list from being empty in a table
-- whose only column is log_id.
SELECT * EXCLUDE (empties_tie)
FROM (SELECT *, 0 AS empties_tie FROM {{table}})
ORDER BY COLUMNS(lambda c: c <> 'log_id'), COLUMNS(*)
