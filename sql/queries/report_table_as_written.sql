-- output: report_table_as_written
-- kind: query
-- grain: one row per row of the table listed
-- measure: The report's "All tables" for a table whose rows are in an order of their own (decisions: D1-D4, then H1-H4, as pre-registration §1 and §2 list them): its rows as the stage wrote them, every column
-- needs:
-- holes: table
-- columns: *
--
-- As report_table, without sorting: decide writes the decisions in the pre-registration's order.
SELECT * FROM {{table}}
