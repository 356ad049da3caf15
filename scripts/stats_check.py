#!/usr/bin/env python3
"""Reference statistics for the analyze stage's tests, from statsmodels, scipy and numpy.

Reads one JSON object on stdin and writes one on stdout:

  {"wilson": [{"x": 1.5, "n": 3, "level": 0.95}, ...],
   "bootstrap": [{"values": [...], "draws": [[i, ...], ...], "level": 0.95}, ...]}

  -> {"versions": {...},
      "wilson": [{"low": ..., "high": ..., "z": ...}, ...],
      "bootstrap": [{"replicates": [...], "low": ..., "high": ...,
                     "scipy_low": ..., "scipy_high": ...}, ...]}

Wilson intervals are statsmodels' proportion_confint(x, n, alpha=1-level,
method="wilson"); x may be fractional (the sum of per-sample shares). For the
bootstrap, the caller passes the per-sample values and the resamples it drew
(indices into values): each replicate is the mean of the drawn values, and the
interval is the percentile interval of the replicates, from numpy.percentile
(linear interpolation) and from scipy.stats.scoreatpercentile, which must agree.

Run by internal/measures/stats_test.go with the project's virtual environment:
  .venv/bin/python scripts/stats_check.py < input.json
"""

import json
import sys

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.proportion import proportion_confint


def wilson(case):
    level = case["level"]
    low, high = proportion_confint(case["x"], case["n"], alpha=1 - level, method="wilson")
    return {"low": float(low), "high": float(high), "z": float(stats.norm.isf((1 - level) / 2))}


def bootstrap(case):
    values = np.asarray(case["values"], dtype=float)
    draws = np.asarray(case["draws"], dtype=np.int64)
    replicates = values[draws].mean(axis=1)
    tail = (1 - case["level"]) / 2 * 100
    low, high = np.percentile(replicates, [tail, 100 - tail])
    return {
        "replicates": replicates.tolist(),
        "low": float(low),
        "high": float(high),
        "scipy_low": float(stats.scoreatpercentile(replicates, tail, interpolation_method="fraction")),
        "scipy_high": float(stats.scoreatpercentile(replicates, 100 - tail, interpolation_method="fraction")),
    }


def main():
    req = json.load(sys.stdin)
    out = {
        "versions": {"numpy": np.__version__, "scipy": scipy.__version__, "statsmodels": statsmodels.__version__},
        "wilson": [wilson(c) for c in req.get("wilson", [])],
        "bootstrap": [bootstrap(c) for c in req.get("bootstrap", [])],
    }
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
