#!/usr/bin/env python
"""`make bench`, the frames row: empties.replies_df against inspect_ai's samples_df and events_df.

    .venv/bin/python scripts/bench/frames.py --bin bin/empties --work bench [--repeat 3] [LOGS...]

On the same logs (default: both shared corpora, ../shared/corpus/wild/logs
and ../shared/corpus/inspect-ai-tests: real logs), each in a child process of
its own, --repeat times round-robin (changing load falls on every row
alike):

  replies_df    empties.replies_df(LOGS): the binary ingests the logs into a
                temporary dataset, the frame is read from it
  replies_df ds empties.replies_df(DATASET), the logs ingested once before:
                reading the frame alone (an incremental ingest finds nothing new)
  samples_df    inspect_ai.analysis.samples_df(LOGS), its default columns
  events_df     inspect_ai.analysis.events_df(LOGS), its default columns

Each child times its call (import excluded, which favours inspect_ai) and
reports its rows; the parent takes wall time and peak RSS (wait4) of the
whole child. The median call time of each row is set against replies_df's as
a ratio. Writes WORK/bench-frames.json. Figures, not a verdict.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CHILD = """
import json, logging, sys, time, warnings
warnings.filterwarnings("ignore")
logging.getLogger("inspect_ai").setLevel(logging.ERROR)
what, paths = sys.argv[1], sys.argv[2:]
if what == "replies_df":
    import empties
    t0 = time.perf_counter()
    df = empties.replies_df(paths, progress=False, strict=False)
elif what == "replies_df_ds":
    import empties
    t0 = time.perf_counter()
    df = empties.replies_df(paths[0])
elif what == "samples_df":
    from inspect_ai.analysis import samples_df
    t0 = time.perf_counter()
    df = samples_df(paths, strict=False, quiet=True)[0]
else:
    from inspect_ai.analysis import events_df
    t0 = time.perf_counter()
    df = events_df(paths, strict=False, quiet=True)[0]
print(json.dumps({"seconds": time.perf_counter() - t0, "rows": len(df), "columns": len(df.columns)}))
"""


def median(xs: list[float]) -> float:
    xs = sorted(xs)
    return (xs[len(xs) // 2] + xs[(len(xs) - 1) // 2]) / 2


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("logs", nargs="*", help="logs or folders (default: both shared corpora)")
    ap.add_argument("--bin", default="bin/empties", help="the empties binary the package runs (EMPTIES_BIN)")
    ap.add_argument("--work", default="bench", help="work folder (the dataset of the 'replies_df ds' row, bench-frames.json)")
    ap.add_argument("--repeat", type=int, default=3, help="runs of each row, round-robin")
    a = ap.parse_args()
    logs = [os.path.abspath(p) for p in a.logs] or [os.path.join(ROOT, "..", "shared", "corpus", "wild", "logs"),
                                                   os.path.join(ROOT, "..", "shared", "corpus", "inspect-ai-tests")]
    logs = [os.path.realpath(p) for p in logs]
    env = dict(os.environ, EMPTIES_BIN=os.path.abspath(a.bin), PYTHONPATH=os.path.join(ROOT, "python", "src"))
    os.makedirs(a.work, exist_ok=True)
    n_files = sum(1 for p in logs for r, _, ns in os.walk(p) for n in ns if n.endswith((".eval", ".json")))
    mb = sum(os.path.getsize(os.path.join(r, n)) for p in logs for r, _, ns in os.walk(p) for n in ns if n.endswith((".eval", ".json"))) / 1e6
    print(f"== frames: {n_files} .eval/.json files, {mb:.1f} MB on disk: {', '.join(logs)}", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-frames.", dir=os.path.abspath(a.work)) as tmp:
        ds = os.path.join(tmp, "dataset")
        subprocess.run([os.path.abspath(a.bin), "ingest", *logs, "--out", ds, "--progress", "never"],
                       check=False, stdout=subprocess.DEVNULL)
        rows = [("replies_df", "replies_df", logs), ("replies_df ds", "replies_df_ds", [ds]),
                ("samples_df", "samples_df", logs), ("events_df", "events_df", logs)]
        runs: dict[str, list[dict]] = {name: [] for name, _, _ in rows}
        for i in range(a.repeat):
            for name, what, paths in rows:
                t0 = time.perf_counter()
                p = subprocess.Popen([sys.executable, "-c", CHILD, what, *paths], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, env=env, cwd=ROOT, text=True)
                assert p.stdout is not None
                out = p.stdout.read()
                _, status, ru = os.wait4(p.pid, 0)
                wall = time.perf_counter() - t0
                code = os.waitstatus_to_exitcode(status)
                p.returncode = code  # reaped by wait4 already
                if code != 0:
                    raise SystemExit(f"bench frames: {name} exited with {code}")
                r = json.loads(out.strip().splitlines()[-1])
                r.update(wall_seconds=wall, peak_rss_mib=ru.ru_maxrss / 1024.0, cpu_seconds=ru.ru_utime + ru.ru_stime)
                runs[name].append(r)
                print(f"  {name} [{i + 1}/{a.repeat}]: {r['seconds']:.2f} s in the call, {wall:.2f} s wall, "
                      f"{r['peak_rss_mib']:.0f} MiB, {r['rows']} rows", flush=True)
    ref = median([r["seconds"] for r in runs["replies_df"]])
    ref_cpu = median([r["cpu_seconds"] for r in runs["replies_df"]])
    summary = []
    print(f"\n{'':<15}{'rows':>7}{'call s':>8}{'wall s':>8}{'CPU s':>7}{'peak RSS MiB':>14}{'x replies_df, call s':>22}{'x, CPU s':>10}")
    for name, _, _ in rows:
        rs = runs[name]
        s = {"name": name, "rows": rs[-1]["rows"], "columns": rs[-1]["columns"],
             "call_seconds": median([r["seconds"] for r in rs]), "wall_seconds": median([r["wall_seconds"] for r in rs]),
             "cpu_seconds": median([r["cpu_seconds"] for r in rs]), "peak_rss_mib": max(r["peak_rss_mib"] for r in rs),
             "all_call_seconds": [r["seconds"] for r in rs]}
        s["x_replies_df"] = s["call_seconds"] / ref
        s["x_replies_df_cpu"] = s["cpu_seconds"] / ref_cpu
        summary.append(s)
        print(f"{name:<15}{s['rows']:>7}{s['call_seconds']:>8.2f}{s['wall_seconds']:>8.2f}{s['cpu_seconds']:>7.2f}"
              f"{s['peak_rss_mib']:>14.0f}{s['x_replies_df']:>21.1f}x{s['x_replies_df_cpu']:>9.1f}x")
    print("call s: the call alone, import excluded (median); wall s, CPU s (user+sys, the binary's included) and peak RSS:\n"
          "the whole child process, imports included (median; RSS the highest of the runs)")
    with open(os.path.join(a.work, "bench-frames.json"), "w") as f:
        json.dump({"logs": logs, "files": n_files, "disk_mb": mb, "repeat": a.repeat, "rows": summary}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
