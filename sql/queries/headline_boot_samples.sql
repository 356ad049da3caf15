-- output: headline_boot_samples
-- kind: query
-- grain: one row per route × arm × sample of one eval's Part A policy scores
-- measure: D3 headlines with bootstrap intervals over samples (pre-registration §6): the samples each eval × route × arm cell resamples, in the order the draws index them
-- needs: policy_scores, log_assignments
-- columns: route, arm, sample_id
--
-- Rescore runs it once per eval ($eval) and draws, for each cell, the manifest's resamples of these
-- samples with replacement (internal/bootstrap, one PCG stream per eval × route × arm) into
-- headline_boot, which headline_cells reads. Part C replays are judge tests, not replies of the
-- model under test, and have no place in a headline.
SELECT DISTINCT route, arm, sample_id
FROM policy_scores
WHERE eval = $eval AND log_id IN (SELECT log_id FROM log_assignments WHERE part = 'A')
ORDER BY route, arm, sample_id
