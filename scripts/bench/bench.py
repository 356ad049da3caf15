#!/usr/bin/env python
"""`make bench`: throughput and peak memory of `empties ingest`.

    .venv/bin/python scripts/bench/bench.py --bin bin/empties --work bench

1. Builds (or reuses) a corpus of >= 1 GB raw JSON of real-writer logs under
   WORK/corpus (scripts/bench/make_corpus.py) and builds the floor program
   (scripts/bench/floor) into WORK/floor.
2. Reads every corpus file once so that all runs find it in the page cache.
3. Runs, each in its own child process, with wall time and peak RSS
   (ru_maxrss from os.wait4), each --repeat times (default 5), round-robin so
   that changing load on the machine falls on every row alike; the fastest
   run of each counts, and peak RSS is the highest of its runs:
     a. empties ingest CORPUS --out WORK/out --progress never   (full corpus)
     b. the floor (inflate + JSON decode only, same parallelism) (full corpus)
     i. inflate only (read every file, inflate every member, no hash, no
        JSON; `floor -mode inflate`, same parallelism)         (full corpus)
     s. the validating scan alone (inflate every sample and check it as the
        walk checks a value it skips; `floor -mode scan`)       (full corpus)
     c. inspect_ai's read_eval_log(path), default arguments, on a SUBSET of
        the corpus (>= --inspect-mb raw, including an .eval base and the .json
        base); its rate is what is compared
     d. empties ingest on about a quarter of the corpus (peak RSS vs. a)
4. Prints a table and the targets, and writes WORK/bench.json; then the
   physical floor and the split (physical_rows): ingest against inflate-only
   by wall time and CPU seconds (user+sys), the CPU seconds of each stage of
   ingest from a CPU profile (scripts/bench/profile -split: inflate,
   scan/decode, extract, Parquet encode, Parquet compression, hashing,
   commit), worker scaling (ingest and inflate-only with 1, 2 and all
   workers), the peak RSS of one tiny log, and the same floors and split on
   ../shared/corpus/wild, whose rows are of --wild-repeat runs in one
   process each (floor -repeat, profile -repeat), per run, so that they are
   not the processes' start. Run this part alone with --physical-only.
5. Incremental ingest (incremental_rows): a full ingest (--full), a
   re-ingest of the unchanged corpus into the same dataset (target: under 5%
   of the full one; it must read no log), one log added (a copy of a base log
   outside the corpus), that log removed again, and the same log ingested
   alone into a new dataset (the add should cost about that). Run this part
   alone with --incremental-only.
6. Object storage: the quarter corpus (d.) is copied by inspect_ai's S3
   support into a local versitygw (`make versitygw`; 127.0.0.1, posix backend
   under WORK/s3) and ingested from s3://bench/quarter/ and from disk, --repeat
   times each, round-robin (rows "s3" and "disk"; the s3 row shows the MB
   and GETs fetched, from the ingest's summary). Run this part alone,
   on any folder of logs, with --s3-only:

    .venv/bin/python scripts/bench/bench.py --bin bin/empties --work bench --s3-only --s3-logs ../shared/corpus/wild

7. Every turn classified (issue 35: at most 5% of ingest on the wild corpus):
   the split's line for classifying every generation of the model under test
   and the final reply (profile -split's turns_seconds) against ingest's CPU,
   on both corpora with step 4; and, given --baseline-bin (a build without
   it), `empties ingest --full` of ../shared/corpus/wild by both binaries,
   --repeat times each, interleaved, CPU seconds and wall time set side by
   side. Run this part alone with --turns-only:

    .venv/bin/python scripts/bench/bench.py --bin bin/empties --work bench --turns-only --baseline-bin OLD/empties

8. Rates on real logs: ingests ../shared/corpus/wild (logs written by other
   people with real providers) once and prints its class counts, per class
   and by reply_source, so a change of rules shows its effect on real data
   (WORK/wild.json). Run this part alone with --wild-only:

    .venv/bin/python scripts/bench/bench.py --bin bin/empties --work bench --wild-only

Raw bytes are the same for every row: the uncompressed JSON of the files a run
processed (for .eval the sum of ZipInfo.file_size over all members, for .json
the file size), the measure the corpus is sized by. samples/s counts the
samples of those files (every epoch of a sample counts).

A benchmark prints figures; it does not fail when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import subprocess
import sys
import time

from own import make_own, remove_own  # noqa: E402  (scripts/bench/own.py)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

TARGET_INSPECT_X = 20.0   # ingest MB/s >= 20x inspect_ai's
TARGET_FLOOR_FRAC = 0.5   # ingest MB/s >= half the floor's
TARGET_INFLATE_X = 1.3    # ingest wall time <= 1.3x inflate-only's
TARGET_RSS_GROWTH = 1.5   # ingest peak RSS, full corpus / quarter corpus
TARGET_FLOOR_X = {"bench": 2.5, "wild": 1.3}  # decode floor CPU s <= this x inflate-only's (issue 40)
TARGET_INGEST_FLOOR_X = 1.15  # ingest CPU s <= this x the decode floor's (issue 40)
TARGET_UNCHANGED = 0.05   # re-ingest of the unchanged corpus / full ingest, wall time
TARGET_ADD_ONE = 2.0      # adding one log to the dataset / that log ingested alone, wall time


def run_child(argv: list[str], log_prefix: str, label: str) -> dict:
    """Runs argv; returns wall seconds, peak RSS (MiB), exit code and stdout."""
    print(f"  {label}: {' '.join(_short(a) for a in argv[:6])}{' ...' if len(argv) > 6 else ''}",
          flush=True)
    out_path, err_path = log_prefix + ".stdout", log_prefix + ".stderr"
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(argv, stdout=out, stderr=err, cwd=ROOT)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped by wait4 already
    with open(out_path) as f:
        stdout = f.read()
    res = {"wall_seconds": wall, "peak_rss_mib": ru.ru_maxrss / 1024.0,  # KiB on Linux
           "exit_code": p.returncode, "stdout": stdout,
           "user_seconds": ru.ru_utime, "sys_seconds": ru.ru_stime}
    cpu = (ru.ru_utime + ru.ru_stime) / wall if wall else 0
    print(f"    {wall:.1f}s wall, {cpu:.2f} CPUs busy, peak RSS {res['peak_rss_mib']:.0f} MiB, "
          f"exit {p.returncode}", flush=True)
    if p.returncode != 0:
        with open(err_path) as f:
            tail = f.read()[-2000:]
        print(f"    ! exit code {p.returncode}; stderr ({err_path}) ends:\n{tail}", flush=True)
    return res


def interleaved(n: int, jobs: list[tuple[str, list[str], str, str]]) -> dict:
    """Runs every job n times, round-robin (a b c d a b c d ...), so that
    changing load on the machine falls on all of them alike. For each job:
    the fastest run, with the highest peak RSS of all its runs."""
    all_runs: dict[str, list[dict]] = {name: [] for name, *_ in jobs}
    for i in range(n):
        for name, argv, log_prefix, label in jobs:
            all_runs[name].append(run_child(argv, log_prefix, f"{label} [{i + 1}/{n}]" if n > 1 else label))
    best = {}
    for name, runs in all_runs.items():
        b = dict(min(runs, key=lambda r: r["wall_seconds"]))
        b["peak_rss_mib"] = max(r["peak_rss_mib"] for r in runs)
        b["all_wall_seconds"] = [r["wall_seconds"] for r in runs]
        b["all_peak_rss_mib"] = [r["peak_rss_mib"] for r in runs]
        b["all_cpu_seconds"] = [r["user_seconds"] + r["sys_seconds"] for r in runs]
        best[name] = b
    return best


def _short(a: str) -> str:
    return os.path.relpath(a, ROOT) if os.path.isabs(a) else a


def warm_cache(paths: list[str]) -> float:
    t0 = time.perf_counter()
    buf = bytearray(1 << 20)
    for p in paths:
        with open(p, "rb", buffering=0) as f:
            while f.readinto(buf):
                pass
    return time.perf_counter() - t0


def pick(files: list[dict], min_raw: int, must: list[str]) -> list[dict]:
    """The files named in must, then further files in corpus order, until min_raw."""
    chosen = [f for f in files if f["path"] in must]
    raw = sum(f["raw"] for f in chosen)
    for f in files:
        if raw >= min_raw:
            break
        if f not in chosen:
            chosen.append(f)
            raw += f["raw"]
    return chosen


def row(name: str, raw: int, samples: int, seconds: float, rss: float, files: int, note: str) -> dict:
    return {"name": name, "files": files, "raw_bytes": raw, "samples": samples, "seconds": seconds,
            "mb_per_s": raw / 1e6 / seconds, "samples_per_s": samples / seconds,
            "peak_rss_mib": rss, "note": note}


def main() -> None:
    ap = argparse.ArgumentParser(description="throughput and peak memory of empties ingest")
    ap.add_argument("--bin", default="bin/empties", help="the empties binary")
    ap.add_argument("--work", default="bench", help="work folder (corpus, outputs, bench.json)")
    ap.add_argument("--target-gb", type=float, default=1.0, help="corpus size, GB of raw JSON")
    ap.add_argument("--inspect-mb", type=float, default=160.0,
                    help="raw MB of the subset read by inspect_ai")
    ap.add_argument("--repeat", type=int, default=5,
                    help="runs of each measurement; the fastest counts, peak RSS is the highest")
    ap.add_argument("--workers", "-j", type=int, default=0,
                    help="workers for ingest and the floor (0 = one per CPU)")
    ap.add_argument("--wild-repeat", type=int, default=20,
                    help="runs in one process for each row of the wild corpus's floors (the figures are per run)")
    ap.add_argument("--wild", default=os.path.join(ROOT, "..", "shared", "corpus", "wild"),
                    help="the wild corpus (real providers' logs) whose class counts are reported")
    ap.add_argument("--wild-only", action="store_true",
                    help="only report the wild corpus's class counts (step 8), no timing runs")
    ap.add_argument("--physical-only", action="store_true",
                    help="only the physical floor, the split, worker scaling and the tiny log (step 4), on the same corpus")
    ap.add_argument("--incremental-only", action="store_true",
                    help="only the incremental ingest rows (step 5), on the same corpus")
    ap.add_argument("--s3-only", action="store_true",
                    help="only the object-storage rows (step 6), on the logs of --s3-logs")
    ap.add_argument("--s3-logs", default=os.path.join(ROOT, "..", "shared", "corpus", "wild"),
                    help="with --s3-only: the folder of logs to ingest from the local S3 server and from disk")
    ap.add_argument("--turns-only", action="store_true",
                    help="only what classifying every turn costs (step 7) on the wild corpus: the split, and with --baseline-bin the A/B")
    ap.add_argument("--baseline-bin", default="",
                    help="an empties binary to set this one beside on the wild corpus, interleaved (step 7): the build before a change")
    ap.add_argument("--versitygw", default=os.environ.get("EMPTIES_VERSITYGW", os.path.join(ROOT, "bin", "versitygw")),
                    help="the versitygw binary (make versitygw)")
    a = ap.parse_args()

    t_start = time.perf_counter()
    binary = os.path.abspath(a.bin)
    work = os.path.abspath(a.work)
    os.makedirs(work, exist_ok=True)
    if a.wild_only:
        wild_classes(binary, os.path.abspath(a.wild), work)
        return
    if a.turns_only:
        res = turns_rows(binary, os.path.abspath(a.baseline_bin) if a.baseline_bin else "", os.path.abspath(a.wild),
                         work, a.workers or os.cpu_count(), a.repeat)
        with open(os.path.join(work, "bench-turns.json"), "w") as f:
            json.dump(res, f, indent=1)
        return
    if a.s3_only:
        src = os.path.abspath(a.s3_logs)
        paths = [os.path.join(r, n) for r, _, ns in os.walk(src) for n in sorted(ns) if n.endswith((".eval", ".json"))]
        s3 = s3_rows(binary, a.versitygw, paths, work, a.repeat, a.workers or os.cpu_count())
        with open(os.path.join(work, "bench-s3.json"), "w") as f:
            json.dump(s3, f, indent=1)
        return
    logs = os.path.join(work, "logs")
    os.makedirs(logs, exist_ok=True)
    workers = a.workers or os.cpu_count()

    print(f"== empties bench: {platform.node()}, {os.cpu_count()} CPUs, {_cpu_model()}, "
          f"{workers} workers; Python {platform.python_version()}, inspect_ai {_inspect_version()}",
          flush=True)

    # 1. corpus and floor program. The corpus is written by a child process:
    # this process must stay small, because a child's ru_maxrss starts from
    # the RSS of the process that forked it (Linux carries the pre-exec high
    # water mark over exec), so every figure below is at least our own RSS.
    corpus_dir = os.path.join(work, "corpus")
    subprocess.run([sys.executable, os.path.join(HERE, "make_corpus.py"), "--out", corpus_dir,
                    "--target-gb", str(a.target_gb)], cwd=ROOT, check=True)
    with open(os.path.join(corpus_dir, "CORPUS.marker")) as f:
        m = json.load(f)
    files = m["files"]
    for f in files:
        f["abs"] = os.path.join(corpus_dir, f["path"])
    total_raw = sum(f["raw"] for f in files)
    total_samples = sum(f["samples"] for f in files)
    if a.incremental_only:
        incremental_rows(binary, corpus_dir, files, work, logs, a.workers or os.cpu_count(), a.repeat)
        return
    floor_bin = os.path.join(work, "floor")
    subprocess.run(["go", "build", "-o", floor_bin, "./scripts/bench/floor"], cwd=ROOT, check=True)
    if a.physical_only:
        warm_cache([f["abs"] for f in files])
        phys = physical_rows(binary, floor_bin, corpus_dir, files, os.path.abspath(a.wild), work, logs,
                             workers, a.repeat, None, a.wild_repeat)
        with open(os.path.join(work, "bench-physical.json"), "w") as f:
            json.dump(phys, f, indent=1)
        return

    # 2. page cache
    secs = warm_cache([f["abs"] for f in files])
    print(f"  page cache warmed: {sum(f['size'] for f in files) / 1e6:.0f} MB on disk read in {secs:.1f}s",
          flush=True)

    # 3. runs
    launcher_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    print(f"== runs (peak RSS figures are at least {launcher_mib:.0f} MiB, this launcher's own)", flush=True)
    out_full = os.path.join(work, "out")
    must = [p for p in m["bases"] if p.endswith(".json")] + [p for p in m["bases"] if p.endswith(".eval")][:1]
    subset = pick(files, int(a.inspect_mb * 1e6), must)
    quarter = pick(files, total_raw // 4, [])
    out_q = os.path.join(work, "out-quarter")
    # --full: every run reads every file (a repeat into the same --out would be an incremental no-op)
    runs = interleaved(a.repeat, [
        ("ingest", [binary, "ingest", corpus_dir, "--out", out_full, "--full", "--progress", "never", "--workers", str(workers)],
         os.path.join(logs, "ingest"), "a. ingest, full corpus"),
        ("floor", [floor_bin, "-j", str(workers), corpus_dir], os.path.join(logs, "floor"), "b. floor, full corpus"),
        ("inflate", [floor_bin, "-mode", "inflate", "-j", str(workers), corpus_dir], os.path.join(logs, "inflate"),
         "i. inflate only, full corpus"),
        ("scan", [floor_bin, "-mode", "scan", "-j", str(workers), corpus_dir], os.path.join(logs, "scan"),
         "s. the validating scan alone (inflate + ScanSample), full corpus"),
        ("inspect", [sys.executable, os.path.join(HERE, "inspect_read.py")] + [f["abs"] for f in subset],
         os.path.join(logs, "inspect"), "c. inspect_ai read_eval_log, subset"),
        ("ingest_quarter", [binary, "ingest", *[f["abs"] for f in quarter], "--out", out_q, "--full", "--progress", "never",
                            "--workers", str(workers)],
         os.path.join(logs, "ingest-quarter"), "d. ingest, quarter corpus"),
    ])
    print("    " + runs["ingest"]["stdout"].splitlines()[0] if runs["ingest"]["stdout"] else "", flush=True)
    floor_out = json.loads(runs["floor"]["stdout"].strip().splitlines()[-1])
    inflate_out = json.loads(runs["inflate"]["stdout"].strip().splitlines()[-1])
    insp_out = json.loads(runs["inspect"]["stdout"].strip().splitlines()[-1])

    # 4. figures
    for name, r in runs.items():
        if r["exit_code"] != 0:
            print(f"  ! {name} exited with {r['exit_code']}; its figures are not comparable (see {logs}/)")
    q_raw = sum(f["raw"] for f in quarter)
    s_raw = sum(f["raw"] for f in subset)
    s_samples = sum(f["samples"] for f in subset)
    if insp_out["samples"] != s_samples:
        print(f"  ! inspect_ai read {insp_out['samples']} samples, the corpus lists {s_samples}")
    if floor_out["samples"] != total_samples:
        print(f"  ! the floor decoded {floor_out['samples']} samples, the corpus lists {total_samples}")

    rows = [
        row("ingest", total_raw, total_samples, runs["ingest"]["wall_seconds"], runs["ingest"]["peak_rss_mib"],
            len(files), "full corpus, empties ingest (process wall time)"),
        row("floor", total_raw, floor_out["samples"], runs["floor"]["wall_seconds"], runs["floor"]["peak_rss_mib"],
            floor_out["files"], "full corpus, inflate + DecodeSample only (process wall time)"),
        row("inspect_ai", s_raw, insp_out["samples"], insp_out["seconds"], runs["inspect"]["peak_rss_mib"],
            len(subset), "SUBSET of the corpus, read_eval_log(path) (read loop only, import excluded)"),
        row("ingest 1/4", q_raw, sum(f["samples"] for f in quarter), runs["ingest_quarter"]["wall_seconds"],
            runs["ingest_quarter"]["peak_rss_mib"], len(quarter), "quarter corpus, for peak RSS"),
    ]
    ing, flo, ins, ingq = rows
    rows.insert(2, row("inflate", total_raw, total_samples, runs["inflate"]["wall_seconds"], runs["inflate"]["peak_rss_mib"],
                       inflate_out["files"], "full corpus, inflate every member only, no hash, no JSON (process wall time)"))
    x_inflate = ing["seconds"] / rows[2]["seconds"]
    x_inspect = ing["mb_per_s"] / ins["mb_per_s"]
    f_floor = ing["mb_per_s"] / flo["mb_per_s"]
    rss_growth = ing["peak_rss_mib"] / ingq["peak_rss_mib"]
    targets = [
        {"target": f"ingest time <= {TARGET_INFLATE_X:g}x inflate-only's", "value": x_inflate,
         "met": x_inflate <= TARGET_INFLATE_X, "shown": f"{x_inflate:.2f}x (best runs; medians and CPU seconds below)"},
        {"target": f"ingest >= {TARGET_INSPECT_X:g}x inspect_ai MB/s", "value": x_inspect,
         "met": x_inspect >= TARGET_INSPECT_X, "shown": f"{x_inspect:.1f}x"},
        {"target": f"ingest >= {TARGET_FLOOR_FRAC:g}x floor MB/s", "value": f_floor,
         "met": f_floor >= TARGET_FLOOR_FRAC, "shown": f"{f_floor:.2f}x"},
        {"target": f"ingest peak RSS full / quarter corpus <= {TARGET_RSS_GROWTH:g}", "value": rss_growth,
         "met": rss_growth <= TARGET_RSS_GROWTH,
         "shown": f"{ing['peak_rss_mib']:.0f} MiB / {ingq['peak_rss_mib']:.0f} MiB = {rss_growth:.2f}"},
    ]

    print()
    print(f"corpus: {len(files)} files, {total_samples} samples, {total_raw / 1e9:.2f} GB raw JSON, "
          f"{sum(f['size'] for f in files) / 1e9:.3f} GB on disk; raw MB = 1e6 bytes of uncompressed JSON")
    print(f"floor decoded {floor_out['raw_bytes'] / 1e6:.0f} MB of sample JSON (the sample members; "
          f"the rest of the raw MB is headers, summaries, reductions and journal); inflate-only inflated "
          f"{inflate_out['raw_bytes'] / 1e6:.0f} MB in {inflate_out['members']} members and .json files")
    print(f"inspect_ai read a subset: {len(subset)} files ({', '.join(sorted({os.path.splitext(f['path'])[1] for f in subset}))}), "
          f"{s_raw / 1e6:.0f} MB raw, {s_samples} samples")
    print(f"best of {a.repeat} runs each; seconds = process wall time (inspect_ai: its read loop, "
          f"import excluded); peak RSS = ru_maxrss, highest of the runs")
    print()
    hdr = f"{'':<12}{'files':>6}{'raw MB':>9}{'samples':>9}{'raw MB/s':>10}{'samples/s':>11}{'seconds':>9}{'peak RSS MiB':>14}"
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        print(f"{r['name']:<12}{r['files']:>6}{r['raw_bytes'] / 1e6:>9.0f}{r['samples']:>9}{r['mb_per_s']:>10.1f}"
              f"{r['samples_per_s']:>11.0f}{r['seconds']:>9.2f}{r['peak_rss_mib']:>14.0f}")
    print()
    for t in targets:
        print(f"  [{'MET' if t['met'] else 'MISSED'}] {t['target']}: {t['shown']}")
    total = time.perf_counter() - t_start
    print(f"\nbench wall time {total:.0f}s; figures in {os.path.join(work, 'bench.json')}, "
          f"child output in {logs}/")

    phys = physical_rows(binary, floor_bin, corpus_dir, files, os.path.abspath(a.wild), work, logs, workers,
                         a.repeat, {k: runs[k] for k in ("ingest", "floor", "inflate", "scan")}, a.wild_repeat)
    incremental = incremental_rows(binary, corpus_dir, files, work, logs, workers, a.repeat)
    s3 = s3_rows(binary, a.versitygw, [f["abs"] for f in quarter], work, a.repeat, workers)
    turns = turns_rows(binary, os.path.abspath(a.baseline_bin) if a.baseline_bin else "", os.path.abspath(a.wild),
                       work, workers, a.repeat)

    wild = wild_classes(binary, os.path.abspath(a.wild), work)

    for r in runs.values():
        r.pop("stdout", None)
    with open(os.path.join(work, "bench.json"), "w") as f:
        json.dump({
            "host": {"cpus": os.cpu_count(), "cpu": _cpu_model(), "workers": workers,
                     "python": platform.python_version(), "inspect_ai": _inspect_version()},
            "corpus": {"dir": corpus_dir, "files": len(files), "samples": total_samples,
                       "raw_bytes": total_raw, "disk_bytes": sum(f["size"] for f in files),
                       "bases": m["bases"]},
            "inspect_subset": [f["path"] for f in subset],
            "quarter": [f["path"] for f in quarter],
            "launcher_peak_rss_mib": launcher_mib, "rows": rows, "targets": targets, "floor": floor_out, "inspect": insp_out, "runs": runs,
            "bench_seconds": total, "physical": phys, "incremental": incremental, "s3": s3, "turns": turns, "wild": wild,
        }, f, indent=1)


def _median(xs: list[float]) -> float:
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] + xs[(n - 1) // 2]) / 2 if n else float("nan")


def interleaved_all(n: int, jobs: list[tuple[str, list[str], str, str]], before=None) -> dict:
    """Runs every job n times, round-robin, and returns each job's runs with
    the fastest, the median wall time and the median CPU seconds
    (user+sys). before(name), if given, runs before each run of a job."""
    all_runs: dict[str, list[dict]] = {name: [] for name, *_ in jobs}
    for i in range(n):
        for name, argv, log_prefix, label in jobs:
            if before:
                before(name)
            all_runs[name].append(run_child(argv, log_prefix, f"{label} [{i + 1}/{n}]" if n > 1 else label))
    return {name: _summary(runs) for name, runs in all_runs.items()}


def _summary(runs: list[dict]) -> dict:
    return {"best_wall": min(r["wall_seconds"] for r in runs),
            "median_wall": _median([r["wall_seconds"] for r in runs]),
            "median_cpu": _median([r["user_seconds"] + r["sys_seconds"] for r in runs]),
            "peak_rss_mib": max(r["peak_rss_mib"] for r in runs),
            "all_wall_seconds": [r["wall_seconds"] for r in runs],
            "all_cpu_seconds": [r["user_seconds"] + r["sys_seconds"] for r in runs],
            "exit_codes": sorted({r["exit_code"] for r in runs}),
            "stdout": runs[-1].get("stdout", "")}


def _print_floor_table(title: str, rows: list[tuple[str, dict]], ref: dict, floor: dict | None = None) -> None:
    print(f"\n{title}")
    print(f"  {'':<26}{'best s':>8}{'median s':>10}{'CPU s':>8}{'x inflate (wall)':>18}{'x inflate (CPU)':>17}"
          f"{'x floor (CPU)':>15}{'peak RSS MiB':>14}")
    for name, r in rows:
        xf = f"{r['median_cpu'] / floor['median_cpu']:>14.2f}x" if floor else f"{'':>15}"
        print(f"  {name:<26}{r['best_wall']:>8.2f}{r['median_wall']:>10.2f}{r['median_cpu']:>8.3f}"
              f"{r['median_wall'] / ref['median_wall']:>17.2f}x{r['median_cpu'] / ref['median_cpu']:>16.2f}x"
              f"{xf}{r['peak_rss_mib']:>14.0f}")


def _floor_targets(corpus: str, rows: dict) -> list[dict]:
    """Issue 40's targets, by the medians of CPU seconds (user+sys), which
    other load on the machine inflates less than wall time."""
    fx = rows["floor"]["median_cpu"] / rows["inflate"]["median_cpu"]
    ix = rows["ingest"]["median_cpu"] / rows["floor"]["median_cpu"]
    targets = [
        {"target": f"{corpus}: decode floor <= {TARGET_FLOOR_X[corpus]:g}x inflate-only (CPU s)", "value": fx,
         "met": fx <= TARGET_FLOOR_X[corpus], "shown": f"{fx:.2f}x"},
        {"target": f"{corpus}: ingest <= {TARGET_INGEST_FLOOR_X:g}x the decode floor (CPU s)", "value": ix,
         "met": ix <= TARGET_INGEST_FLOOR_X, "shown": f"{ix:.2f}x"},
    ]
    for t in targets:
        print(f"  [{'MET' if t['met'] else 'MISSED'}] {t['target']}: {t['shown']}")
    return targets


def _per_run(rows: dict, reps: int) -> dict:
    """Rows of reps runs in one process, as the figures of one run."""
    for r in rows.values():
        for k in ("best_wall", "median_wall", "median_cpu"):
            r[k] /= reps
        for k in ("all_wall_seconds", "all_cpu_seconds"):
            r[k] = [v / reps for v in r[k]]
    return rows


def split_rows(profile_bin: str, paths: list[str], out: str, workers: int, repeat: int, log_prefix: str) -> dict:
    """The CPU seconds of each stage of ingest: scripts/bench/profile -split
    (ingest run in-process under the CPU profiler, repeat times)."""
    remove_own(out)
    argv = [profile_bin, "-split", "-repeat", str(repeat), "-j", str(workers), "-out", out, *paths]
    r = run_child(argv, log_prefix, f"split: profile -split -repeat {repeat}")
    remove_own(out)
    lines = [line for line in r["stdout"].splitlines() if line.startswith('{"')]
    if r["exit_code"] != 0 or not lines:
        print(f"  ! no split (exit {r['exit_code']}; see {log_prefix}.stderr)")
        return {}
    res = json.loads(lines[-1])
    res["process_cpu_seconds"] = r["user_seconds"] + r["sys_seconds"]
    res["repeat"] = repeat
    return res


def _print_split(title: str, sp: dict, inflate_cpu: float | None) -> None:
    if not sp:
        return
    total = sp["profile_seconds"]
    rep = sp.get("repeat", 1)
    print(f"\n{title}: CPU seconds by stage of ingest, per run (CPU profile of {rep} run(s) in one process, "
          f"{total / rep:.2f}s of samples a run; the process's own user+sys {sp['process_cpu_seconds'] / rep:.2f}s a run)")
    order = ["inflate", "scan/decode", "extract", "parquet encode", "parquet compress", "hash", "commit", "pipeline", "runtime"]
    for k in order + sorted(set(sp["split"]) - set(order)):
        v = sp["split"].get(k, 0.0) / rep
        print(f"  {k:<18}{v:>7.2f}s {100 * v * rep / total if total else 0:>6.1f}%")
    if "turns_seconds" in sp:
        tv = sp["turns_seconds"] / rep
        share = 100 * tv * rep / total if total else 0
        print(f"  of extract, classifying every turn (each generation's class, the final reply): {tv:.3f}s a run, "
              f"{share:.1f}% of ingest's CPU (target <= 5%) {'ok' if share <= 5 else 'MISSED'}")
    if inflate_cpu:
        rest = (total - sp["split"].get("inflate", 0.0)) / rep
        print(f"  everything but inflating: {rest:.2f} CPU s a run, against {inflate_cpu:.2f} CPU s for inflate-only "
              f"(the 1.3x target leaves {0.3 * inflate_cpu:.2f})")


def physical_rows(binary: str, floor_bin: str, corpus_dir: str, files: list[dict], wild: str, work: str, logs: str,
                  workers: int, repeat: int, main_runs: dict | None, wild_repeat: int = 20) -> dict:
    """Step 4: ingest against the physical floor of reading the logs
    (inflate-only), the validating scan alone and the decode floor, the
    split of ingest's CPU time by stage, worker scaling, the peak RSS of a
    tiny log, and the same on the wild corpus (each row there wild_repeat
    runs in one process, per run)."""
    print("\n== the physical floor: inflate only, the validating scan, the decode floor and ingest", flush=True)
    profile_bin = os.path.join(work, "profile")
    subprocess.run(["go", "build", "-o", profile_bin, "./scripts/bench/profile"], cwd=ROOT, check=True)
    out_full = os.path.join(work, "out")

    def jobs(paths: list[str], tag: str, out: str, j: int, reps: int = 1) -> list[tuple[str, list[str], str, str]]:
        floor = [floor_bin, "-j", str(j)] + (["-repeat", str(reps)] if reps > 1 else [])
        ingest = ([profile_bin, "-repeat", str(reps), "-j", str(j), "-out", out, *paths] if reps > 1 else
                  [binary, "ingest", *paths, "--out", out, "--full", "--progress", "never", "--workers", str(j)])
        return [
            ("inflate", [*floor, "-mode", "inflate", *paths], os.path.join(logs, f"inflate-{tag}"), f"inflate only, {tag}"),
            ("scan", [*floor, "-mode", "scan", *paths], os.path.join(logs, f"scan-{tag}"), f"validating scan, {tag}"),
            ("floor", [*floor, *paths], os.path.join(logs, f"floor-{tag}"), f"decode floor, {tag}"),
            ("ingest", ingest, os.path.join(logs, f"ingest-{tag}"), f"ingest, {tag}"),
        ]

    res: dict = {}
    if main_runs:  # the interleaved rounds of step 3
        corpus = {k: _summary_from_best(v) for k, v in main_runs.items()}
    else:
        corpus = interleaved_all(repeat, jobs([corpus_dir], "corpus", out_full, workers))
    res["corpus"] = corpus
    _print_floor_table(f"bench corpus ({len(files)} files, {sum(f['raw'] for f in files) / 1e9:.2f} GB raw), "
                       f"{workers} workers, {repeat} interleaved runs", [
                           ("inflate only", corpus["inflate"]), ("validating scan", corpus["scan"]),
                           ("decode floor", corpus["floor"]), ("ingest", corpus["ingest"])],
                       corpus["inflate"], corpus["floor"])
    res["targets"] = _floor_targets("bench", corpus)
    res["split_corpus"] = split_rows(profile_bin, [corpus_dir], os.path.join(work, "out-split"), workers, 1,
                                     os.path.join(logs, "split-corpus"))
    _print_split("bench corpus", res["split_corpus"], corpus["inflate"]["median_cpu"])

    # worker scaling: 1, 2 and all cores
    counts = sorted({1, 2, os.cpu_count() or 1})
    print(f"\n== worker scaling ({', '.join(map(str, counts))} workers)", flush=True)
    scaling = {}
    for j in counts:
        scaling[j] = interleaved_all(repeat, [jb for jb in jobs([corpus_dir], f"corpus-j{j}", out_full, j)
                                              if jb[0] in ("inflate", "ingest")])
    res["scaling"] = scaling
    print(f"\nworker scaling, bench corpus; median of {repeat} interleaved runs; MB/s of raw JSON")
    raw = sum(f["raw"] for f in files)
    print(f"  {'workers':<9}{'inflate s':>10}{'MB/s':>8}{'ingest s':>10}{'MB/s':>8}{'CPU s':>8}{'x inflate':>11}{'speed-up':>10}")
    for j in counts:
        i, g = scaling[j]["inflate"], scaling[j]["ingest"]
        print(f"  {j:<9}{i['median_wall']:>10.2f}{raw / 1e6 / i['median_wall']:>8.0f}{g['median_wall']:>10.2f}"
              f"{raw / 1e6 / g['median_wall']:>8.0f}{g['median_cpu']:>8.2f}{g['median_wall'] / i['median_wall']:>10.2f}x"
              f"{scaling[1]['ingest']['median_wall'] / g['median_wall']:>9.2f}x")

    # one tiny log alone: the fixed cost of a run
    tiny = os.path.join(ROOT, "testdata", "logs", "zstd-basic.eval")
    out_tiny = os.path.join(work, "out-tiny")
    t = interleaved_all(repeat, [("tiny", [binary, "ingest", tiny, "--out", out_tiny, "--progress", "never"],
                                  os.path.join(logs, "ingest-tiny"), "ingest, one tiny log")],
                        before=lambda _: remove_own(out_tiny))["tiny"]
    res["tiny"] = t
    print(f"\none tiny log (testdata/logs/zstd-basic.eval, {os.path.getsize(tiny) / 1e3:.0f} kB) into a new dataset: "
          f"{t['median_wall']:.2f}s, {t['median_cpu']:.2f} CPU s, peak RSS {t['peak_rss_mib']:.0f} MiB "
          f"(target < 128 MiB) {'ok' if t['peak_rss_mib'] < 128 else 'MISSED'}; the big rows: "
          f"{corpus['ingest']['peak_rss_mib']:.0f} MiB (bench corpus)")

    # the wild corpus: real providers' logs
    wlogs = os.path.join(wild, "logs")
    if os.path.isdir(wlogs):
        print(f"\n== the physical floor on ../shared/corpus/wild ({wild_repeat} runs in one process a row)", flush=True)
        out_wild = os.path.join(work, "out-wild-floor")
        w = _per_run(interleaved_all(repeat, jobs([wlogs], "wild", out_wild, workers, wild_repeat),
                                     before=lambda _: remove_own(out_wild)), wild_repeat)
        res["wild"] = w
        _print_floor_table(f"wild corpus ({len(os.listdir(wlogs))} files), {workers} workers, {repeat} interleaved runs "
                           f"of {wild_repeat} in one process each, per run (process start amortized; ingest by "
                           f"scripts/bench/profile -repeat, a commit each run)",
                           [("inflate only", w["inflate"]), ("validating scan", w["scan"]), ("decode floor", w["floor"]),
                            ("ingest", w["ingest"])], w["inflate"], w["floor"])
        res["targets"] += _floor_targets("wild", w)
        print(f"  one tiny log alone, one process: {t['median_cpu']:.2f} CPU s, {t['median_wall']:.2f} s wall "
              f"(the fixed cost of a run)")
        res["split_wild"] = split_rows(profile_bin, [wlogs], os.path.join(work, "out-split-wild"), workers, 20,
                                       os.path.join(logs, "split-wild"))
        _print_split("wild corpus", res["split_wild"], w["inflate"]["median_cpu"])
    for v in [res.get("corpus", {}), res.get("wild", {}), *scaling.values()]:
        for r in v.values():
            r.pop("stdout", None)
    t.pop("stdout", None)
    return res


def turns_rows(binary: str, baseline: str, wild: str, work: str, workers: int, repeat: int) -> dict:
    """Step 7: what classifying every turn costs on the wild corpus: the
    split of ingest's CPU (its turns line), and with a baseline binary (the
    build before), ingest by both, interleaved."""
    logs = os.path.join(work, "logs")
    os.makedirs(logs, exist_ok=True)
    wlogs = os.path.join(wild, "logs")
    print(f"\n== every turn classified: ../shared/corpus/wild ({len(os.listdir(wlogs))} files), {workers} workers", flush=True)
    profile_bin = os.path.join(work, "profile")
    subprocess.run(["go", "build", "-o", profile_bin, "./scripts/bench/profile"], cwd=ROOT, check=True)
    res: dict = {"split_wild": split_rows(profile_bin, [wlogs], os.path.join(work, "out-split-wild"), workers, 20,
                                          os.path.join(logs, "split-wild"))}
    _print_split("wild corpus", res["split_wild"], None)
    if not baseline:
        return res
    outs = {"this": os.path.join(work, "out-turns-this"), "baseline": os.path.join(work, "out-turns-baseline")}
    jobs = [(name, [b, "ingest", wlogs, "--out", outs[name], "--full", "--progress", "never", "--workers", str(workers)],
             os.path.join(logs, f"ingest-wild-{name}"), f"ingest, wild, {name}")
            for name, b in [("this", binary), ("baseline", baseline)]]
    ab = interleaved_all(repeat, jobs)
    for r in ab.values():
        r.pop("stdout", None)
    res["ab"] = ab
    t, b = ab["this"], ab["baseline"]
    print(f"\ningest --full of the wild corpus, {repeat} interleaved runs each (medians; all runs' CPU s in brackets)")
    print(f"  {'':<34}{'CPU s':>8}{'wall s':>9}{'peak RSS MiB':>14}")
    for name, r in [(f"this build ({os.path.relpath(binary)})", t), (f"baseline ({baseline})", b)]:
        print(f"  {name[:34]:<34}{r['median_cpu']:>8.3f}{r['median_wall']:>9.3f}{r['peak_rss_mib']:>14.0f}  "
              f"[{', '.join(f'{x:.2f}' for x in r['all_cpu_seconds'])}]")
    print(f"  this build against the baseline: CPU {100 * (t['median_cpu'] / b['median_cpu'] - 1):+.1f}%, "
          f"wall {100 * (t['median_wall'] / b['median_wall'] - 1):+.1f}% (target: classifying every turn within 5%)")
    for out in outs.values():
        remove_own(out)
    return res


def _summary_from_best(b: dict) -> dict:
    """A step-3 row (interleaved()) in interleaved_all's form."""
    return {"best_wall": b["wall_seconds"], "median_wall": _median(b["all_wall_seconds"]),
            "median_cpu": _median(b["all_cpu_seconds"]), "peak_rss_mib": b["peak_rss_mib"],
            "all_wall_seconds": b["all_wall_seconds"], "all_cpu_seconds": b["all_cpu_seconds"]}


def incremental_rows(binary: str, corpus_dir: str, files: list[dict], work: str, logs: str, workers: int,
                     repeat: int) -> dict:
    """Step 5: what an ingest into an existing dataset costs. Each round runs,
    in order, on one dataset: a full ingest (--full), the same ingest again
    (nothing changed), the corpus plus one more log (new 1), the corpus alone
    again (removed 1); then that one log alone into a new dataset. The
    extra log lies outside the corpus, which stays as make_corpus cached it.
    Fastest of `repeat` rounds each."""
    out = os.path.join(work, "out-incremental")
    one_out = os.path.join(work, "out-one-log")
    extra_dir = os.path.join(work, "incremental-extra")
    os.makedirs(extra_dir, exist_ok=True)
    base = next(f for f in files if f["path"].endswith(".eval"))
    extra = os.path.join(extra_dir, "one-more.eval")
    shutil.copy2(base["abs"], extra)
    common = ["--progress", "never", "--workers", str(workers)]
    steps = [
        ("full", [binary, "ingest", corpus_dir, "--out", out, "--full", *common], "full ingest (--full)"),
        ("unchanged", [binary, "ingest", corpus_dir, "--out", out, *common], "re-ingest, unchanged"),
        ("add", [binary, "ingest", corpus_dir, extra, "--out", out, *common], "re-ingest, one log added"),
        ("remove", [binary, "ingest", corpus_dir, "--out", out, *common], "re-ingest, that log removed"),
        ("alone", [binary, "ingest", extra, "--out", one_out, *common], "that log alone, new dataset"),
    ]
    print("== incremental ingest", flush=True)
    remove_own(out)
    runs: dict[str, list[dict]] = {name: [] for name, *_ in steps}
    for i in range(repeat):
        for name, argv, label in steps:
            if name == "alone":
                remove_own(one_out)
            r = run_child(argv, os.path.join(logs, "incremental-" + name), f"{label} [{i + 1}/{repeat}]")
            inc = [line for line in r["stdout"].splitlines() if line.startswith("incremental:")]
            r["incremental_line"] = inc[0] if inc else ""
            runs[name].append(r)
    best = {name: min(rs, key=lambda r: r["wall_seconds"]) for name, rs in runs.items()}
    for b in best.values():
        b.pop("stdout", None)
    full, unch, add, alone = (best[n]["wall_seconds"] for n in ("full", "unchanged", "add", "alone"))
    unchanged_frac, add_x = unch / full, add / alone
    print(f"\nincremental ingest, {len(files)} files, {sum(f['raw'] for f in files) / 1e9:.2f} GB raw; "
          f"best of {repeat} rounds, process wall time")
    print(f"  {'':<32}{'seconds':>9}{'vs full':>9}  summary")
    for name, _, label in steps:
        b = best[name]
        print(f"  {label:<32}{b['wall_seconds']:>9.2f}{b['wall_seconds'] / full:>8.1%}  {b['incremental_line']}")
    if "unchanged 0" in best["unchanged"]["incremental_line"] or "new 0, changed 0" not in best["unchanged"]["incremental_line"]:
        print(f"  ! the unchanged re-ingest read files: {best['unchanged']['incremental_line']}")
    targets = [
        {"target": f"re-ingest of the unchanged corpus < {TARGET_UNCHANGED:.0%} of a full ingest", "value": unchanged_frac,
         "met": unchanged_frac < TARGET_UNCHANGED, "shown": f"{unch:.2f}s / {full:.2f}s = {unchanged_frac:.1%}"},
        {"target": f"adding one log <= {TARGET_ADD_ONE:g}x that log ingested alone", "value": add_x,
         "met": add_x <= TARGET_ADD_ONE, "shown": f"{add:.2f}s / {alone:.2f}s = {add_x:.2f}x"},
    ]
    for t in targets:
        print(f"  [{'MET' if t['met'] else 'MISSED'}] {t['target']}: {t['shown']}")
    res = {"runs": best, "all_wall_seconds": {n: [r["wall_seconds"] for r in rs] for n, rs in runs.items()},
           "targets": targets}
    with open(os.path.join(work, "incremental.json"), "w") as f:
        json.dump(res, f, indent=1)
    return res


def s3_rows(binary: str, versitygw: str, paths: list[str], work: str, repeat: int, workers: int) -> dict:
    """Step 6: the same logs ingested from a local S3-compatible server and
    from disk. The logs are copied into the server by inspect_ai's own S3
    support (scripts/fixtures/s3_logs.py copy); the disk row reads a folder of
    symbolic links to the same files."""
    import socket

    print("\n== object storage: ingest from a local S3 server (versitygw) vs. the same files on disk", flush=True)
    if not os.path.exists(versitygw):
        print(f"  ! no versitygw at {versitygw} (run `make versitygw`); no S3 rows", flush=True)
        return {}
    s3root = os.path.join(work, "s3")
    remove_own(s3root)
    make_own(s3root)
    src = os.path.join(work, "s3-src")
    remove_own(src)
    make_own(src)
    for i, p in enumerate(paths):
        os.symlink(p, os.path.join(src, f"{i:05d}-{os.path.basename(p)}"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {"AWS_ENDPOINT_URL": f"http://127.0.0.1:{port}", "AWS_ACCESS_KEY_ID": "empties-bench",
           "AWS_SECRET_ACCESS_KEY": "empties-bench-secret", "AWS_REGION": "us-east-1"}
    old_env = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    server = subprocess.Popen([versitygw, "--port", f"127.0.0.1:{port}", "--quiet", "posix", s3root],
                              env=dict(os.environ, ROOT_ACCESS_KEY=env["AWS_ACCESS_KEY_ID"],
                                       ROOT_SECRET_KEY=env["AWS_SECRET_ACCESS_KEY"]),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.05)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "fixtures", "s3_logs.py"), "copy",
                        "s3://bench/quarter/", src], cwd=ROOT, check=True)
        size = sum(os.path.getsize(p) for p in paths)
        print(f"  {len(paths)} files, {size / 1e6:.0f} MB on disk, copied into s3://bench/quarter/ by inspect_ai "
              f"(s3fs) in {time.perf_counter() - t0:.1f}s", flush=True)
        logs = os.path.join(work, "logs")
        os.makedirs(logs, exist_ok=True)
        # --full: every run reads every file (a repeat into the same --out would be an incremental no-op)
        runs = interleaved(repeat, [
            ("s3", [binary, "ingest", "s3://bench/quarter/", "--out", os.path.join(work, "out-s3"), "--progress", "never",
                    "--workers", str(workers), "--full"], os.path.join(logs, "ingest-s3"), "s3. ingest from s3://bench/quarter/"),
            ("disk", [binary, "ingest", src, "--out", os.path.join(work, "out-s3-disk"), "--progress", "never",
                      "--workers", str(workers), "--full"], os.path.join(logs, "ingest-s3-disk"), "disk. the same files on disk"),
        ])
    finally:
        server.terminate()
        server.wait()
        for k, v in old_env.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        remove_own(s3root)
    samples = [_sql(binary, os.path.join(work, d), "SELECT count(*) AS n FROM replies")[0]["n"] for d in ("out-s3", "out-s3-disk")]
    print()
    hdr = f"{'':<10}{'files':>6}{'MB':>8}{'samples':>9}{'MB/s':>8}{'seconds':>9}{'peak RSS MiB':>14}{'fetched MB':>12}{'GETs':>7}"
    print(hdr)
    print("-" * len(hdr))
    rows = []
    for (name, r), n in zip(runs.items(), samples):
        # the ingest's summary line: "fetched 26.1 MB from object storage in 45 GETs"
        m = re.search(r"fetched ([0-9.]+) MB from object storage in (\d+) GETs", r["stdout"])
        fetched, gets = (float(m.group(1)) * 1e6, int(m.group(2))) if m else (None, None)
        rows.append({"name": name, "files": len(paths), "disk_bytes": size, "samples": n, "seconds": r["wall_seconds"],
                     "mb_per_s": size / 1e6 / r["wall_seconds"], "peak_rss_mib": r["peak_rss_mib"], "exit_code": r["exit_code"],
                     "all_wall_seconds": r["all_wall_seconds"], "fetched_bytes": fetched, "gets": gets})
        print(f"{name:<10}{len(paths):>6}{size / 1e6:>8.0f}{n:>9}{size / 1e6 / r['wall_seconds']:>8.1f}"
              f"{r['wall_seconds']:>9.2f}{r['peak_rss_mib']:>14.0f}"
              f"{'-' if fetched is None else f'{fetched / 1e6:.1f}':>12}{'-' if gets is None else gets:>7}")
    s3row = rows[0]
    ratio = f"{s3row['fetched_bytes'] / size:.2f}×" if s3row["fetched_bytes"] is not None and size else "?×"
    print(f"MB = bytes of the files as stored; best of {repeat} runs each; over loopback the S3 row fetched {ratio} "
          f"the bytes stored: each .eval once (its central directory and header by ranged GETs, then the rest in one "
          f"download into a temporary file, which its members are read from and which gives its SHA-256), each .json "
          f"in one GET")
    if samples[0] != samples[1]:
        print(f"  ! {samples[0]} replies from S3, {samples[1]} from disk")
    return {"rows": rows}


def _sql(binary: str, data: str, query: str) -> list[dict]:
    p = subprocess.run([binary, "sql", query, "--data", data, "--format", "json"],
                       capture_output=True, text=True, check=True)
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def wild_classes(binary: str, wild: str, work: str) -> dict:
    """Step 8: class counts of the wild corpus, per class and by reply_source."""
    logs = os.path.join(wild, "logs")
    if not os.path.isdir(logs):
        print(f"\n  ! wild corpus not found at {wild}; no class counts on real logs")
        return {}
    out = os.path.join(work, "out-wild")
    p = subprocess.run([binary, "ingest", logs, "--out", out, "--progress", "never"],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):
        print(f"\n  ! ingest of the wild corpus failed ({p.returncode}):\n{p.stderr}")
        return {}
    by_class = _sql(binary, out, "SELECT class, count(*) AS n, count(*) FILTER (non_answer) AS non_answer "
                                 "FROM replies GROUP BY ALL ORDER BY n DESC, class")
    by_source = _sql(binary, out, "SELECT reply_source, class, count(*) AS n FROM replies "
                                  "GROUP BY ALL ORDER BY reply_source, n DESC, class")
    attempts = _sql(binary, out, "SELECT count(*) AS samples, count(*) FILTER (failed_attempts > 0) AS retried, "
                                 "count(*) FILTER (placeholders_skipped > 0) AS placeholders, "
                                 "(SELECT count(*) FROM ingest_errors) AS ingest_errors, "
                                 "(SELECT count(*) FROM logs) AS files FROM replies")[0]
    print(f"\n== class counts on real logs: {wild}")
    print(f"  {attempts['files']} files, {attempts['samples']} samples; {attempts['retried']} replies after a "
          f"failed, retried attempt; {attempts['placeholders']} after skipped placeholders; "
          f"{attempts['ingest_errors']} ingest errors")
    print(f"  {'class':<18}{'replies':>8}{'non-answer':>12}")
    for r in by_class:
        print(f"  {r['class']:<18}{r['n']:>8}{r['non_answer']:>12}")
    print(f"  {'reply_source':<16}{'class':<18}{'replies':>8}")
    for r in by_source:
        print(f"  {r['reply_source']:<16}{r['class']:<18}{r['n']:>8}")
    res = {"corpus": wild, "summary": attempts, "by_class": by_class, "by_source": by_source}
    with open(os.path.join(work, "wild.json"), "w") as f:
        json.dump(res, f, indent=1)
    return res


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _inspect_version() -> str:
    try:
        from importlib.metadata import version

        return version("inspect_ai")
    except Exception:
        return "?"


if __name__ == "__main__":
    main()
