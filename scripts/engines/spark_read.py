#!/usr/bin/env python
"""Read empties' Parquet tables with Apache Spark and say what Spark saw.

Usage (the Go test internal/layout drives it):

    .venv/bin/python scripts/engines/spark_read.py < tables.json > seen.json

stdin is ``{"tables": [{"name": ..., "glob": ..., "folder": ..., "columns":
[{"name": ..., "kind": ...}]}]}``: each table's files as the read_parquet glob
(store.TableGlob) and its folder, and per column a kind (string, int, double,
bool, timestamp, list) naming the aggregates to compute. For each table it
writes what a local Spark session read: the schema (Spark's type names), the
row count, how many distinct files the rows came from (none for a table
without rows), the same table read through
its folder (partition discovery: the columns and the part files Spark finds), and per column the
aggregates the test compares with DuckDB's over the same files:

    every kind   non-null count
    string       total length in characters, min, max
    int          sum, min, max
    double       sum, min, max, NaN count
    bool         count of true
    timestamp    min and max as microseconds since the epoch (UTC)
    list         total element count, min and max element

Nothing here asserts: the Go test compares. A Spark that cannot start exits
non-zero with its error, which fails the test.
"""

from __future__ import annotations

import json
import math
import os
import sys
import time


def session():
    from pyspark.sql import SparkSession

    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    return (
        SparkSession.builder.master("local[1]")
        .appName("empties-layout")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.session.timeZone", "UTC")
        .config("spark.driver.memory", "512m")
        .config("spark.sql.shuffle.partitions", "1")
        # small tables, many columns: compiling the aggregates costs more
        # than interpreting them
        .config("spark.sql.codegen.wholeStage", "false")
        .config("spark.sql.adaptive.enabled", "false")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .getOrCreate()
    )


def aggregates(df, columns):
    from pyspark.sql import functions as F

    exprs, names = [], []

    def add(name, e):
        names.append(name)
        exprs.append(e.alias(f"a{len(exprs)}"))

    for c in columns:
        col, kind, n = F.col(f"`{c['name']}`"), c["kind"], c["name"]
        add(f"{n}:count", F.count(col))
        if kind == "string":
            add(f"{n}:length", F.sum(F.length(col)))
            add(f"{n}:min", F.min(col))
            add(f"{n}:max", F.max(col))
        elif kind == "int":
            add(f"{n}:sum", F.sum(col))
            add(f"{n}:min", F.min(col))
            add(f"{n}:max", F.max(col))
        elif kind == "double":
            finite = F.when(~F.isnan(col) & (F.abs(col) != float("inf")), col)
            add(f"{n}:sum", F.sum(finite))
            add(f"{n}:min", F.min(finite))
            add(f"{n}:max", F.max(finite))
            add(f"{n}:nan", F.sum(F.when(F.isnan(col), 1).otherwise(0)))
        elif kind == "bool":
            add(f"{n}:true", F.sum(F.when(col, 1).otherwise(0)))
        elif kind == "timestamp":
            add(f"{n}:min", F.unix_micros(F.min(col)))
            add(f"{n}:max", F.unix_micros(F.max(col)))
        elif kind == "list":
            add(f"{n}:elements", F.sum(F.size(col)))
            add(f"{n}:min", F.min(F.array_min(col)))
            add(f"{n}:max", F.max(F.array_max(col)))
    add("*:rows", F.count(F.lit(1)))
    add("*:files", F.count_distinct(F.col("_metadata.file_path")))
    row = df.agg(*exprs).collect()[0]
    out = {}
    for i, name in enumerate(names):
        v = row[f"a{i}"]
        if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
            v = str(v)
        out[name] = v
    return out


def main() -> None:
    req = json.load(sys.stdin)
    t0 = time.time()
    spark = session()
    print(f"spark_read: session in {time.time() - t0:.1f}s", file=sys.stderr)
    seen = {"spark": spark.version, "tables": {}}
    start = time.time()
    for t in req["tables"]:
        df = spark.read.parquet(t["glob"])
        folder = spark.read.parquet(t["folder"])
        aggs = aggregates(df, t["columns"])
        seen["tables"][t["name"]] = {
            "schema": [{"name": f.name, "type": f.dataType.simpleString()} for f in df.schema.fields],
            "rows": aggs.pop("*:rows"),
            "files": aggs.pop("*:files"),
            "folder_columns": folder.columns,
            "folder_files": sorted(folder.inputFiles()),
            "aggregates": aggs,
        }
    print(f"spark_read: {len(req['tables'])} tables in {time.time() - start:.1f}s", file=sys.stderr)
    spark.stop()
    json.dump(seen, sys.stdout, indent=1, default=str)


if __name__ == "__main__":
    main()
