#!/usr/bin/env python
"""Baseline of `make bench`: read logs with inspect_ai's own reader.

    .venv/bin/python scripts/bench/inspect_read.py FILE...

Calls ``inspect_ai.log.read_eval_log(path)`` with its default arguments, as a
user calls it, on every file in turn, and prints one JSON line:
{"files":…, "samples":…, "seconds":…, "import_seconds":…}. ``seconds`` covers
the reads only (importing inspect_ai is timed apart and left out, which
favours inspect_ai).
"""

import json
import sys
import time


def main() -> None:
    t0 = time.perf_counter()
    from inspect_ai.log import read_eval_log

    t1 = time.perf_counter()
    samples = 0
    for p in sys.argv[1:]:
        log = read_eval_log(p)
        samples += len(log.samples or [])
        del log
    t2 = time.perf_counter()
    print(json.dumps({"files": len(sys.argv) - 1, "samples": samples,
                      "seconds": t2 - t1, "import_seconds": t1 - t0}))


if __name__ == "__main__":
    main()
