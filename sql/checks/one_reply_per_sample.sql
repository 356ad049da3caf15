-- output: one_reply_per_sample
-- kind: check
-- invariant: one reply per sample × epoch
-- grain: one row per log × sample × epoch with more than one reply
-- needs: replies
SELECT log_id, sample_id, epoch, count(*) FROM replies GROUP BY ALL HAVING count(*) > 1
