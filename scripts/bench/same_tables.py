#!/usr/bin/env python
"""Proves that a change to ingest left its tables the same in content.

    .venv/bin/python scripts/bench/same_tables.py --bin bin/empties --ref bench/tables-ref --write-ref   # before
    .venv/bin/python scripts/bench/same_tables.py --bin bin/empties --ref bench/tables-ref               # after

Ingests each set of logs (--full, into WORK/<set>; by default the fixtures
testdata/logs, ../shared/corpus/inspect-ai-tests, ../shared/corpus/wild and
the `make bench` corpus bench/corpus when it exists) with --bin. With
--write-ref the datasets are kept as the reference (under --ref); without,
each table of each set is compared with the reference's in DuckDB
(read_parquet of both): the same columns, and EXCEPT ALL both ways empty,
each row with the name of its part file and its row number in that file,
so the rows, their values (lists, NaN and nulls included) and their order
in the files must all be the same; file bytes may differ (compression,
encodings). Every column counts (logs.ingest_version names the tables'
columns, the rules and ingest.ExtractVersion, not the build).

Exit code 0 when every table of every set is the same, 1 otherwise. Prints
one line per table: rows, rows only in the reference, rows only in the new.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from own import remove_own  # noqa: E402  (scripts/bench/own.py: only what the bench or empties made)
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("EMPTIES_SHARED", os.path.join(ROOT, "..", "shared"))
if not os.path.isdir(SHARED):
    SHARED = "/work/shared"

# Columns left out of the comparison (none: see the module doc).
VOLATILE: dict[str, set[str]] = {}


def default_sets() -> dict[str, str]:
    sets = {
        "fixtures": os.path.join(ROOT, "testdata", "logs"),
        "inspect-ai-tests": os.environ.get("EMPTIES_CORPUS", os.path.join(SHARED, "corpus", "inspect-ai-tests")),
        "wild": os.path.join(os.environ.get("EMPTIES_WILD_CORPUS", os.path.join(SHARED, "corpus", "wild")), "logs"),
    }
    bench = os.path.join(ROOT, "bench", "corpus")
    if os.path.isdir(bench):
        sets["bench"] = bench
    return sets


def ingest(binary: str, logs: str, out: str) -> None:
    remove_own(out)
    p = subprocess.run([binary, "ingest", logs, "--out", out, "--full", "--progress", "never"],
                       capture_output=True, text=True)
    if p.returncode not in (0, 1):  # 1: some logs unreadable, reported in ingest_errors
        sys.exit(f"ingest of {logs} failed ({p.returncode}):\n{p.stderr[-3000:]}")


def tables(dataset: str) -> list[str]:
    cur = os.path.join(dataset, "current")
    return sorted(t for t in os.listdir(cur) if os.path.isdir(os.path.join(cur, t)))


def compare(con, ref: str, new: str, table: str) -> tuple[int, int, int, str]:
    def rel(d: str) -> str:
        glob = os.path.join(d, "current", table, "*.parquet")
        return (f"(SELECT * EXCLUDE (filename), parse_filename(filename) AS part_file "
                f"FROM read_parquet('{glob}', filename = true, file_row_number = true))")
    cols_ref = [r[0] for r in con.execute(f"DESCRIBE {rel(ref)}").fetchall()]
    cols_new = [r[0] for r in con.execute(f"DESCRIBE {rel(new)}").fetchall()]
    if cols_ref != cols_new:
        return 0, -1, -1, f"columns differ: {cols_ref} vs {cols_new}"
    keep = [c for c in cols_ref if c not in VOLATILE.get(table, set())]
    sel = ", ".join(f'"{c}"' for c in keep)
    a, b = f"(SELECT {sel} FROM {rel(ref)})", f"(SELECT {sel} FROM {rel(new)})"
    n = con.execute(f"SELECT count(*) FROM {b}").fetchone()[0]
    only_ref = con.execute(f"SELECT count(*) FROM ({a} EXCEPT ALL {b})").fetchone()[0]
    only_new = con.execute(f"SELECT count(*) FROM ({b} EXCEPT ALL {a})").fetchone()[0]
    return n, only_ref, only_new, ""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=os.path.join(ROOT, "bin", "empties"))
    ap.add_argument("--ref", default=os.path.join(ROOT, "bench", "tables-ref"), help="the reference datasets")
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "tables-new"), help="where the new datasets go")
    ap.add_argument("--write-ref", action="store_true", help="write the reference datasets and compare nothing")
    ap.add_argument("--only", default="", help="comma-separated sets (default all)")
    a = ap.parse_args()
    binary = os.path.abspath(a.bin)
    sets = default_sets()
    if a.only:
        sets = {k: v for k, v in sets.items() if k in a.only.split(",")}
    if a.write_ref:
        for name, logs in sets.items():
            ingest(binary, logs, os.path.join(a.ref, name))
            print(f"reference {name}: {os.path.join(a.ref, name)}", flush=True)
        return
    import duckdb

    con = duckdb.connect()
    same = True
    for name, logs in sets.items():
        ref = os.path.join(a.ref, name)
        if not os.path.isdir(ref):
            print(f"{name}: no reference at {ref} (run with --write-ref first)")
            same = False
            continue
        new = os.path.join(a.work, name)
        ingest(binary, logs, new)
        for t in sorted(set(tables(ref)) | set(tables(new))):
            if t not in tables(ref) or t not in tables(new):
                print(f"  {name:<17} {t:<14} only in {'the new' if t in tables(new) else 'the reference'}")
                same = False
                continue
            n, only_ref, only_new, why = compare(con, ref, new, t)
            ok = not why and only_ref == 0 and only_new == 0
            same = same and ok
            print(f"  {name:<17} {t:<14} {n:>7} rows  only in ref {only_ref:>5}  only in new {only_new:>5}  "
                  f"{'same' if ok else 'DIFFERENT ' + why}", flush=True)
    print("all tables the same in content" if same else "TABLES DIFFER")
    sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
