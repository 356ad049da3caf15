"""The tables as data frames, in the style of ``inspect_ai.analysis``.

``replies_df(logs)`` is to empties what ``samples_df(logs)`` is to inspect_ai:
one row per sample and epoch, here with the reply of the model under test,
its class and the raw fields the class was read from (``empties schema
replies`` describes every column). Each function takes a dataset folder (what
:func:`empties.ingest` writes) or logs, which are ingested into a temporary
dataset first, and returns every row of the table, as ``empties sql "SELECT *
FROM <table>"`` does.

Types are the schema's (README "The pipeline"). In pandas, as in
``inspect_ai.analysis``, every column is Arrow-backed (``pd.ArrowDtype``): a
nullable integer stays an integer with ``<NA>``, times are
``timestamp[us, tz=UTC]``, lists are lists; JSON columns (``sample_metadata``,
``value_json``, ``metadata``, ...) are decoded into Python objects (dicts,
lists, numbers; ``NaN`` as Python wrote it), an ``object`` column. Polars and
Arrow get the same columns with JSON as its text; a DuckDB relation keeps
DuckDB's ``JSON`` type.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, overload

from ._binary import EmptiesError
from .dataset import LogPaths, connect, ingest, is_dataset, sql_literal

if TYPE_CHECKING:
    import duckdb
    import pandas as pd
    import polars as pl
    import pyarrow as pa

Backend = Literal["pandas", "polars", "arrow", "duckdb"]
"""What a frame function returns: a pandas DataFrame, a polars DataFrame, a pyarrow
Table, or a DuckDB relation."""

Source = LogPaths
"""A dataset folder, or logs (files, folders, ``s3://`` URLs) to ingest first."""


@overload
def table_df(source: Source, table: str, *, backend: Literal["pandas"] = ..., progress: bool | None = ..., strict: bool = ...) -> pd.DataFrame: ...
@overload
def table_df(source: Source, table: str, *, backend: Literal["polars"], progress: bool | None = ..., strict: bool = ...) -> pl.DataFrame: ...
@overload
def table_df(source: Source, table: str, *, backend: Literal["arrow"], progress: bool | None = ..., strict: bool = ...) -> pa.Table: ...
@overload
def table_df(source: Source, table: str, *, backend: Literal["duckdb"], progress: bool | None = ..., strict: bool = ...) -> duckdb.DuckDBPyRelation: ...


def table_df(source: Source, table: str, *, backend: Backend = "pandas", progress: bool | None = None, strict: bool = True) -> Any:
    """Every row of one table of a dataset (or of logs, ingested first).

    Args:
        source: a dataset folder, or logs to ingest into a temporary dataset
            (removed before this returns; ingest into a folder of your own with
            :func:`empties.ingest` to read several tables of the same logs).
        table: a table of the dataset: ``replies``, ``scores``, ``model_calls``,
            ``logs``, ``ingest_errors``, or one the later stages wrote
            (``overview``, ``class_rates``, ...; ``empties schema`` lists them).
        backend: ``"pandas"`` (default), ``"polars"``, ``"arrow"`` or ``"duckdb"``.
        progress: for logs, the ingest's progress bar (default: in a notebook or on a terminal).
        strict: for logs, raise when a log could not be read (default), or warn.

    Raises:
        EmptiesError: the binary's message when the logs could not be ingested,
            or the dataset has no such table.

    Example::

        empties.table_df("out/explore", "overview")
    """
    if backend not in ("pandas", "polars", "arrow", "duckdb"):
        raise EmptiesError(f"backend={backend!r}: choose pandas, polars, arrow or duckdb")
    ds = _one_dataset(source)
    if ds is not None:
        return _read(Path(ds), table, backend, keep=False)
    with tempfile.TemporaryDirectory(prefix="empties-frames.") as tmp:
        scratch = Path(tmp) / "dataset"
        ingest(source, scratch, progress=progress, strict=strict)
        return _read(scratch, table, backend, keep=True)


def _one_dataset(source: Source) -> str | os.PathLike[str] | None:
    """The dataset source names, if it names one (alone, or as a list of one)."""
    if not isinstance(source, (str, os.PathLike)) and len(source) == 1:
        source = source[0]
    return source if isinstance(source, (str, os.PathLike)) and is_dataset(source) else None


def _read(ds: Path, table: str, backend: Backend, keep: bool) -> Any:
    """The table of ds as backend; keep: the result must outlive the dataset (a
    temporary one), so a DuckDB relation is copied into a database of its own."""
    con = connect(ds)
    tables = [r[0] for r in con.execute("SELECT view_name FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall()]
    if table not in tables:
        raise EmptiesError(f"{ds}: no table {table!r}; the dataset holds {', '.join(tables) or 'no table'}")
    query = "SELECT * FROM " + _ident(table)
    if backend == "duckdb":
        return _copy(con, table) if keep else con.sql(query)
    arrow = con.sql(query).arrow().read_all()
    if backend == "arrow":
        return arrow
    if backend == "polars":
        import polars as pl

        return pl.from_arrow(arrow)
    json_columns = [
        name for name, kind in con.execute("SELECT column_name, column_type FROM (DESCRIBE " + query + ")").fetchall() if kind == "JSON"
    ]
    return _pandas(arrow, json_columns)


def _pandas(arrow: pa.Table, json_columns: list[str]) -> pd.DataFrame:
    import pandas as pd

    df = arrow.to_pandas(types_mapper=pd.ArrowDtype)
    for c in json_columns:
        df[c] = pd.Series([None if v is None else json.loads(v) for v in arrow.column(c).to_pylist()], index=df.index, dtype=object)
    return df


def _copy(con: duckdb.DuckDBPyConnection, table: str) -> duckdb.DuckDBPyRelation:
    """The table copied into an in-memory database (its types kept), for a relation
    over a dataset that is about to be removed."""
    import duckdb

    mem = duckdb.connect()
    scratch = tempfile.mkdtemp(prefix="empties-spill.")  # not DuckDB's default, .tmp in the working folder
    weakref.finalize(mem, shutil.rmtree, scratch, True)
    mem.execute("SET temp_directory = " + sql_literal(scratch)).fetchall()
    mem.execute("SET TimeZone = 'UTC'").fetchall()
    db = con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()").fetchall()[0][0]
    mem.execute(f"ATTACH {sql_literal(db)} AS dataset (READ_ONLY)").fetchall()
    mem.execute(f"CREATE TABLE memory.main.{_ident(table)} AS SELECT * FROM dataset.{_ident(table)}").fetchall()
    mem.execute("DETACH dataset").fetchall()
    return mem.table(table)


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'



@overload
def replies_df(source: Source, *, backend: Literal["pandas"] = ..., progress: bool | None = ..., strict: bool = ...) -> pd.DataFrame: ...
@overload
def replies_df(source: Source, *, backend: Literal["polars"], progress: bool | None = ..., strict: bool = ...) -> pl.DataFrame: ...
@overload
def replies_df(source: Source, *, backend: Literal["arrow"], progress: bool | None = ..., strict: bool = ...) -> pa.Table: ...
@overload
def replies_df(source: Source, *, backend: Literal["duckdb"], progress: bool | None = ..., strict: bool = ...) -> duckdb.DuckDBPyRelation: ...


def replies_df(source: Source, *, backend: Backend = "pandas", progress: bool | None = None, strict: bool = True) -> Any:
    """One row per sample and epoch (errored samples included): the reply of the model
    under test, its ``class``, ``class_rule`` and ``non_answer``, and the raw fields the
    class was read from. Arguments as :func:`table_df`.

    Example::

        df = empties.replies_df("logs/")
        df[df.non_answer].groupby(["model", "class"]).size()
    """
    return table_df(source, "replies", backend=backend, progress=progress, strict=strict)


@overload
def scores_df(source: Source, *, backend: Literal["pandas"] = ..., progress: bool | None = ..., strict: bool = ...) -> pd.DataFrame: ...
@overload
def scores_df(source: Source, *, backend: Literal["polars"], progress: bool | None = ..., strict: bool = ...) -> pl.DataFrame: ...
@overload
def scores_df(source: Source, *, backend: Literal["arrow"], progress: bool | None = ..., strict: bool = ...) -> pa.Table: ...
@overload
def scores_df(source: Source, *, backend: Literal["duckdb"], progress: bool | None = ..., strict: bool = ...) -> duckdb.DuckDBPyRelation: ...


def scores_df(source: Source, *, backend: Backend = "pandas", progress: bool | None = None, strict: bool = True) -> Any:
    """One row per sample, epoch and scorer: the raw value (``value_json``), inspect_ai's
    ``value_to_float`` of it, ``unscored``, ``reason``, ``answer``, ``explanation`` and
    ``metadata``. Arguments as :func:`table_df`."""
    return table_df(source, "scores", backend=backend, progress=progress, strict=strict)


@overload
def model_calls_df(source: Source, *, backend: Literal["pandas"] = ..., progress: bool | None = ..., strict: bool = ...) -> pd.DataFrame: ...
@overload
def model_calls_df(source: Source, *, backend: Literal["polars"], progress: bool | None = ..., strict: bool = ...) -> pl.DataFrame: ...
@overload
def model_calls_df(source: Source, *, backend: Literal["arrow"], progress: bool | None = ..., strict: bool = ...) -> pa.Table: ...
@overload
def model_calls_df(source: Source, *, backend: Literal["duckdb"], progress: bool | None = ..., strict: bool = ...) -> duckdb.DuckDBPyRelation: ...


def model_calls_df(source: Source, *, backend: Backend = "pandas", progress: bool | None = None, strict: bool = True) -> Any:
    """One row per model event: the model under test's calls, judges' and others' (``kind``,
    ``kind_reason``), each with its status (completed, placeholder, retried, failed), usage
    and, for a judge, the class of its reply. Arguments as :func:`table_df`."""
    return table_df(source, "model_calls", backend=backend, progress=progress, strict=strict)


@overload
def logs_df(source: Source, *, backend: Literal["pandas"] = ..., progress: bool | None = ..., strict: bool = ...) -> pd.DataFrame: ...
@overload
def logs_df(source: Source, *, backend: Literal["polars"], progress: bool | None = ..., strict: bool = ...) -> pl.DataFrame: ...
@overload
def logs_df(source: Source, *, backend: Literal["arrow"], progress: bool | None = ..., strict: bool = ...) -> pa.Table: ...
@overload
def logs_df(source: Source, *, backend: Literal["duckdb"], progress: bool | None = ..., strict: bool = ...) -> duckdb.DuckDBPyRelation: ...


def logs_df(source: Source, *, backend: Backend = "pandas", progress: bool | None = None, strict: bool = True) -> Any:
    """One row per log file (``path``, task, model, status, created, the log set's
    ``set_status``, ...): join the other tables on ``log_id``. Arguments as :func:`table_df`."""
    return table_df(source, "logs", backend=backend, progress=progress, strict=strict)
