-- output: policy_rows_have_replies
-- kind: check
-- invariant: policy rows belong to ingested replies
-- grain: one row per policy_scores row without its reply
-- needs: policy_scores, replies
SELECT p.log_id, p.sample_id, p.epoch FROM policy_scores p ANTI JOIN replies r USING (log_id, sample_id, epoch)
