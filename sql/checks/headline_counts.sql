-- output: headline_counts
-- kind: check
-- invariant: headline counts add up
-- grain: one row per headline whose scored and unscored counts miss n_samples or whose interval is inverted
-- needs: headlines
SELECT eval, route, arm, policy FROM headlines WHERE n_scored + n_unscored <> n_samples OR (ci_low > ci_high)
