-- output: report_decisions
-- kind: query
-- grain: one row per decision rule or hypothesis (D1-D4, H1-H4), in the order decide wrote them
-- measure: The decisions (pre-registration §1 D1-D4 and §2 H1-H4, with the thresholds of the manifest), as the study report opens with them and lists them among all tables
-- needs: decisions
-- columns: rule, title, verdict, finding, share, delta_pp, deciding_cell, threshold, recommendation, question, cells, inputs
-- derived: share: percent, deciding share; delta_pp: pp, deciding change (|P3 − P0|)
--
-- value, the deciding number, is a share for D1, D2 and D4 and |P3 − P0| in percentage points for
-- D3 (schema/tables.go, Decision.Value): two columns here, so the page shows a share as it shows
-- every share (a percentage) and the D3 delta as points. The files (tables/decisions.csv) keep
-- value as decide wrote it.
SELECT rule, title, verdict, finding,
  CASE WHEN rule = 'D3' THEN NULL ELSE value END AS share,
  CASE WHEN rule = 'D3' THEN value END AS delta_pp,
  deciding_cell, threshold, recommendation, question, cells, inputs
FROM decisions
