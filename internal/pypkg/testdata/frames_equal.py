"""The package's frames hold what ``empties sql`` prints, cell for cell.

    python frames_equal.py DATASET...

For every dataset and table (replies, scores, model_calls, logs): the rows of
``empties sql "SELECT * FROM <table>" --format json`` (the binary's DuckDB)
against ``empties.table_df`` as pandas, polars and a DuckDB relation (the
package's DuckDB, through the view file), in order, every cell made
comparable the same way (a time as its UTC instant, JSON as its value); and
every pandas column's dtype against its DuckDB type. Prints one JSON line
per dataset and table; exits 1 on any difference, naming the first ones.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import subprocess
import sys
from typing import Any

import pandas as pd

import empties
from empties._binary import binary

TABLES = ["replies", "scores", "model_calls", "logs"]
UTC = dt.timezone.utc


def canon(v: Any, json_text: bool = False) -> Any:
    """A cell as a plain value both sides can be compared by."""
    if v is None or v is pd.NA or v is pd.NaT:
        return None
    if json_text and isinstance(v, str):
        return canon(json.loads(v))
    if isinstance(v, (pd.Timestamp, dt.datetime)):
        if v.tzinfo is None:
            raise AssertionError(f"a time without a zone: {v!r}")
        return v.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    if isinstance(v, bool):
        return v
    if isinstance(v, float):
        return "NaN" if math.isnan(v) else v
    if isinstance(v, int):
        return v
    if isinstance(v, str):
        return v
    if isinstance(v, dict):
        return {k: canon(x) for k, x in v.items()}
    if hasattr(v, "tolist"):
        v = v.tolist()
    if isinstance(v, (list, tuple)):
        return [canon(x) for x in v]
    if hasattr(v, "item"):
        return canon(v.item())
    raise AssertionError(f"a cell of type {type(v)}: {v!r}")


def sql_cell(v: Any, kind: str) -> Any:
    """A cell of the binary's JSON lines: times are text ("2026-06-26 13:03:55.138196+00")."""
    if v is not None and kind.startswith("TIMESTAMP"):
        return canon(dt.datetime.fromisoformat(v))
    return canon(v)


def expected_dtype(kind: str) -> str:
    return {
        "VARCHAR": "string[pyarrow]",
        "BIGINT": "int64[pyarrow]",
        "INTEGER": "int32[pyarrow]",
        "DOUBLE": "double[pyarrow]",
        "BOOLEAN": "bool[pyarrow]",
        "TIMESTAMP WITH TIME ZONE": "timestamp[us, tz=UTC][pyarrow]",
        "JSON": "object",
        "VARCHAR[]": "list<l: string>[pyarrow]",
    }[kind]


def main() -> int:
    bad = 0
    for ds in sys.argv[1:]:
        con = empties.connect(ds)
        for table in TABLES:
            kinds = dict(con.execute(f"SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM {table})").fetchall())
            out = subprocess.run([binary(), "sql", f"SELECT * FROM {table}", "--data", ds, "--format", "json"],
                                 check=True, capture_output=True, text=True).stdout
            sql = [{k: sql_cell(v, kinds[k]) for k, v in json.loads(line).items()} for line in out.split("\n") if line]
            pdf = empties.table_df(ds, table)
            diffs: list[str] = []
            if list(pdf.columns) != list(kinds):
                diffs.append(f"pandas columns {list(pdf.columns)}, DuckDB {list(kinds)}")
            for c, kind in kinds.items():
                if c in pdf.columns and str(pdf[c].dtype) != expected_dtype(kind):
                    diffs.append(f"{c}: dtype {pdf[c].dtype} for DuckDB's {kind}, want {expected_dtype(kind)}")
                if kind == "JSON" and not all(isinstance(v, (dict, list, str, int, float, bool)) for v in pdf[c].dropna()):
                    diffs.append(f"{c}: JSON not decoded")
            frames = {
                "pandas": [{c: canon(v) for c, v in zip(pdf.columns, row)} for row in pdf.itertuples(index=False, name=None)],
                "polars": [{c: canon(v, kinds[c] == "JSON") for c, v in row.items()} for row in empties.table_df(ds, table, backend="polars").iter_rows(named=True)],
                # (the relation's own fetchall() wants pytz for its times)
                "duckdb": [{c: canon(v, kinds[c] == "JSON") for c, v in row.items()} for row in empties.table_df(ds, table, backend="duckdb").arrow().read_all().to_pylist()],
            }
            for name, rows in frames.items():
                if len(rows) != len(sql):
                    diffs.append(f"{name}: {len(rows)} rows, empties sql {len(sql)}")
                    continue
                for i, (a, b) in enumerate(zip(rows, sql)):
                    for c in kinds:
                        if a.get(c) != b.get(c):
                            diffs.append(f"{name} row {i} {c}: {str(a.get(c))[:120]!r} != empties sql {str(b.get(c))[:120]!r}")
            print(json.dumps({"dataset": ds, "table": table, "rows": len(sql), "columns": len(kinds),
                              "json_columns": [c for c, k in kinds.items() if k == "JSON"],
                              "time_columns": [c for c, k in kinds.items() if k.startswith("TIMESTAMP")],
                              "differences": len(diffs), "first": diffs[:10]}), flush=True)
            bad += len(diffs)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
