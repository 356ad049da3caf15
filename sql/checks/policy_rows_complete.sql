-- output: policy_rows_complete
-- kind: check
-- invariant: every re-scored reply has exactly P0-P3
-- grain: one row per log × sample × epoch of policy_scores whose policies are not exactly the vocabulary's
-- needs: policy_scores
-- holes: policies
--
-- {{policies}} is internal/vocab's policies, sorted, as SQL literals.
SELECT log_id, sample_id, epoch, list(policy ORDER BY policy)
FROM policy_scores
GROUP BY ALL HAVING list(policy ORDER BY policy) <> [{{policies}}]
