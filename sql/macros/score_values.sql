-- output: score_values
-- kind: macro
-- measure: the value of a score component (pre-registration Part B, "the eval's own formula from the per-sample rows"): a NaN component counts as no value, as inspect_ai's mean reducer leaves NaN scores out
-- needs:
CREATE OR REPLACE MACRO nan_null(x) AS CASE WHEN isnan(x) THEN NULL ELSE x END;
