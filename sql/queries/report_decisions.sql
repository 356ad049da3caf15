-- output: report_decisions
-- kind: query
-- grain: one row per decision rule or hypothesis (D1-D4, H1-H4), in the order decide wrote them
-- measure: The decisions (pre-registration §1 D1-D4 and §2 H1-H4, with the thresholds of the manifest), as the study report opens with them
-- needs: decisions
-- columns: rule, verdict, value, question, threshold, recommendation, cells, inputs
SELECT rule, verdict, value, question, threshold, recommendation, cells, inputs FROM decisions
