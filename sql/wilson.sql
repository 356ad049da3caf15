-- output: wilson
-- kind: macro
-- measure: Wilson score interval of a rate (pre-registration §6 "Rates have Wilson intervals over samples"); the arithmetic of statsmodels' proportion_confint(x, n, alpha, method="wilson"), with x possibly fractional (design.md: x = the sum of per-sample shares, n = samples)
-- needs:
--
-- interval_z is the normal quantile of the run's interval level (manifest thresholds.interval), set
-- by the analyze stage. Both ends are NULL when n = 0 (no samples, no interval), and are clamped to
-- [0, 1] so rounding never puts an end a hair outside it (statsmodels' ends at x = 0 and x = n are
-- exactly 0 and 1).
CREATE OR REPLACE MACRO wilson_center(x, n) AS
  (x / n + getvariable('interval_z') ^ 2 / (2 * n)) / (1 + getvariable('interval_z') ^ 2 / n);

CREATE OR REPLACE MACRO wilson_dist(x, n) AS
  getvariable('interval_z') * sqrt(greatest((x / n) * (1 - x / n) / n + getvariable('interval_z') ^ 2 / (4 * n ^ 2), 0))
  / (1 + getvariable('interval_z') ^ 2 / n);

CREATE OR REPLACE MACRO wilson_low(x, n) AS
  CASE WHEN n > 0 THEN greatest(wilson_center(x, n) - wilson_dist(x, n), 0.0) END;

CREATE OR REPLACE MACRO wilson_high(x, n) AS
  CASE WHEN n > 0 THEN least(wilson_center(x, n) + wilson_dist(x, n), 1.0) END;
