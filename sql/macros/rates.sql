-- output: rates
-- kind: macro
-- measure: the study's statistics, written once (pre-registration §6 "Rates have Wilson intervals over samples"; "bootstrap intervals over samples"): the sample as the unit (design.md, "Rulings: epochs and re-runs"), a rate, its Wilson interval with the arithmetic of statsmodels' proportion_confint(x, n, alpha, method="wilson") for a possibly fractional x, and the percentile interval of a bootstrap distribution as numpy.percentile computes it
-- needs:
--
-- Every measure writes its rates with these macros; none divides or sums weights by hand.
--
-- The sample as the unit. sample_weight(sample_key) is a reply's weight, 1 / (the replies of its
-- sample), the key being the row (cell columns..., sample_id) that names a sample within a cell:
-- written as `sample_weight((eval, route, sample_id)) AS sample_weight`, it is a window over the
-- rows of the query. sample_share(sample_weight, condition) sums the weights of the replies that
-- meet condition: the number of samples, each counted by the share of its replies that do (0 when
-- none does), which is a rate's x; a measure that first reduces each sample to one row takes the
-- sample's share as rate(k_meeting, k_replies) and sums it.
--
-- rate(x, n) is x / n, NULL when n = 0 (no samples, no rate).
--
-- exact_sum(x) is the sum of DOUBLE values as DECIMAL(38, 18), back to DOUBLE: integer addition,
-- so the same whatever order DuckDB's threads add the rows in (a sum of doubles is not: two runs of
-- one build differed in the last bits of overview's and d4_judge_verdicts' weight sums, and tied
-- shares such as 1 and 1.0000000000000002 swapped places in the report). Every sum of weights,
-- shares or costs is one, and exact_avg(x) the mean of such values. Each value is rounded to 18
-- decimals and the sum to 15 (a sample's three replies weigh 1/3 each, whose 18-decimal sum is
-- 0.999999999999999945; rounded it is 1 again, and ties with 1 stay ties), within a few units
-- in the last place of the double sum: far below any figure shown (12 places moved a Wilson
-- bound in its tenth significant digit).
--
-- exact_avg falls back to avg(x) for a group holding a value a DECIMAL(38, 18) cannot hold or add
-- safely: NaN, ±Inf, or |x| >= 1e9 (a score component can be any of them; the cast would fail where
-- avg did not, and a DECIMAL(38, 18) sum overflows at 1e20, which values below 1e9 reach only past
-- 1e11 rows). Such a group's mean is avg's, as NaN and ±Inf propagate there; every other group's is
-- the exact one. The cast sits inside a CASE per row, so a group that falls back never casts.
--
-- interval_z is the normal quantile of the run's interval level (manifest thresholds.interval), set
-- by the analyze stage. Both Wilson ends are NULL when n = 0 (no samples, no interval), and are
-- clamped to [0, 1] so rounding never puts an end a hair outside it (statsmodels' ends at x = 0
-- and x = n are exactly 0 and 1).
--
-- cluster_n(x, n, k, ss) is the effective size of a share x / n of units that come in clusters
-- (generations, k samples of them): the generation is the unit of the share, the sample the cluster
-- of its interval, since a sample's turns are not independent draws. It is n over the design effect,
-- p(1 - p) / v with p = x / n and v = ss / n^2 the linearised variance of the ratio estimator over
-- the clusters, ss = sum over clusters of (x_i - p * n_i)^2 (x_i, n_i: a cluster's units meeting
-- the condition and its units); Wilson's interval at that size (cluster_wilson_low/high) is the
-- Wilson interval for clustered proportions of Dean & Pagano, "Evaluating confidence interval
-- methods for binomial proportions in clustered surveys", J. Surv. Stat. Methodol. 3 (2015). v
-- carries no k / (k - 1), as Wilson's p(1 - p) / n carries no n / (n - 1): with one unit in every
-- cluster v is that binomial variance and the interval is exactly the Wilson interval over the
-- clusters. As Korn & Graubard (1998) truncate it, the design effect is never taken below 1 (the
-- size never above n), and where v cannot be estimated (p is 0 or 1, or every cluster's share is
-- p) the size is n; a single cluster has size 1: one sample, whatever its turns.
-- percentile_low(x) and percentile_high(x) are aggregates: the two ends of the percentile interval
-- at the run's interval level (interval_level) over the bootstrap resamples' values x;
-- quantile_cont interpolates linearly, as numpy.percentile does.
CREATE OR REPLACE MACRO sample_weight(sample_key) AS
  1.0::DOUBLE / count(*) OVER (PARTITION BY sample_key);

CREATE OR REPLACE MACRO exact_sum(x) AS
  round(sum(x::DECIMAL(38, 18)), 15)::DOUBLE;

CREATE OR REPLACE MACRO exact_value(x) AS
  CASE WHEN isfinite(x) AND abs(x) < 1e9 THEN x::DECIMAL(38, 18) END;

CREATE OR REPLACE MACRO exact_avg(x) AS
  CASE WHEN count(exact_value(x)) = count(x)
    THEN exact_sum(exact_value(x)) / count(x)
    ELSE avg(x)
  END;

CREATE OR REPLACE MACRO sample_share(weight, condition) AS
  coalesce(exact_sum(CASE WHEN condition THEN weight END), 0);

CREATE OR REPLACE MACRO rate(x, n) AS
  CASE WHEN n > 0 THEN x / n END;

CREATE OR REPLACE MACRO wilson_center(x, n) AS
  (x / n + getvariable('interval_z') ^ 2 / (2 * n)) / (1 + getvariable('interval_z') ^ 2 / n);

CREATE OR REPLACE MACRO wilson_dist(x, n) AS
  getvariable('interval_z') * sqrt(greatest((x / n) * (1 - x / n) / n + getvariable('interval_z') ^ 2 / (4 * n ^ 2), 0))
  / (1 + getvariable('interval_z') ^ 2 / n);

CREATE OR REPLACE MACRO wilson_low(x, n) AS
  CASE WHEN n > 0 THEN greatest(wilson_center(x, n) - wilson_dist(x, n), 0.0) END;

CREATE OR REPLACE MACRO wilson_high(x, n) AS
  CASE WHEN n > 0 THEN least(wilson_center(x, n) + wilson_dist(x, n), 1.0) END;

CREATE OR REPLACE MACRO cluster_n(x, n, k, ss) AS
  CASE
    WHEN n = 0 THEN NULL
    WHEN k < 2 THEN 1.0::DOUBLE
    WHEN x <= 0 OR x >= n OR ss <= 0 THEN n::DOUBLE
    ELSE least(n::DOUBLE, (x / n) * (1 - x / n) / (ss / n ^ 2))
  END;

CREATE OR REPLACE MACRO cluster_wilson_low(x, n, k, ss) AS
  wilson_low(x / n * cluster_n(x, n, k, ss), cluster_n(x, n, k, ss));

CREATE OR REPLACE MACRO cluster_wilson_high(x, n, k, ss) AS
  wilson_high(x / n * cluster_n(x, n, k, ss), cluster_n(x, n, k, ss));

CREATE OR REPLACE MACRO percentile_low(x) AS
  quantile_cont(x, (1 - getvariable('interval_level')) / 2);

CREATE OR REPLACE MACRO percentile_high(x) AS
  quantile_cont(x, 1 - (1 - getvariable('interval_level')) / 2);
