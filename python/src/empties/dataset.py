"""Datasets from Python: ingest logs, run the pipeline, open a dataset read-only.

A dataset is the folder ``empties ingest`` writes: one Parquet folder per
table and a DuckDB file of typed views over them (README "The dataset
folder"). The functions here run the package's binary for every write, so a
dataset written from Python is the one the command line writes, through the
same guard, switched in one atomic rename.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import sys
import tempfile
import warnings
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ._binary import Completed, EmptiesError, EmptiesWarning, run as run_binary

if TYPE_CHECKING:
    import duckdb

LogPaths = str | os.PathLike[str] | Sequence[str | os.PathLike[str]]
"""One or more ``.eval``/``.json`` logs or folders of them (read recursively), or ``s3://`` URLs."""

MARKER = "empties-dataset.json"
VIEWS_FILE = "empties.duckdb"
GENERATION_FILE = "generation.json"


@dataclass
class Result:
    """What a run of the binary wrote: the dataset (and report) and what it said."""

    path: Path
    """The dataset folder."""
    summary: str
    """The binary's summary, as the command line prints it."""
    messages: list[str] = field(default_factory=list)
    """What it said on standard error: files skipped or that could not be read."""
    report: Path | None = None
    """The report folder (``index.html``, ``index.md``), for :func:`run`."""

    def __str__(self) -> str:
        return self.summary


def _paths(paths: LogPaths) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out = [os.fspath(p) for p in paths]
    if not out:
        raise EmptiesError("no log paths given: name .eval/.json logs or folders of them")
    return out


def ingest(
    paths: LogPaths,
    out: str | os.PathLike[str],
    *,
    full: bool = False,
    all_attempts: bool = False,
    workers: int | None = None,
    max_member_mb: int | None = None,
    progress: bool | None = None,
    strict: bool = True,
) -> Result:
    """Read Inspect logs into the dataset ``out`` (``empties ingest PATHS --out OUT``).

    Into a dataset an ingest already wrote, only new and changed logs are read
    (``full=True`` reads every one again); the rows of logs no longer found are
    removed. ``out`` must be new, empty or a dataset: any other folder is
    refused and left as it is.

    Args:
        paths: logs, folders of logs (recursively) or ``s3://bucket/prefix/`` URLs.
        out: the dataset folder.
        full: read every log again.
        all_attempts: count every log (retried attempts too), not only the newest per task.
        workers: parallel decoders (default: one per CPU).
        max_member_mb: the largest zip member or ``.json`` sample read (MiB; default 2048).
        progress: a progress bar (tqdm) of the files read; default: in a notebook or
            on a terminal.
        strict: raise :class:`EmptiesError` when a log could not be read (the
            others are in the dataset all the same); ``False`` warns instead
            (:class:`EmptiesWarning`).

    Returns:
        The dataset and the binary's summary (``print(result)``).

    Raises:
        EmptiesError: the binary's message, for a refused ``out``, a log that
            could not be read (with ``strict``), or any other failure.

    Example::

        ds = empties.ingest("logs/", "out/ds")
        empties.replies_df(ds.path)
    """
    args = ["ingest", *_paths(paths), "--out", os.fspath(out)]
    if full:
        args.append("--full")
    if all_attempts:
        args.append("--all-attempts")
    if workers is not None:
        args += ["--workers", str(workers)]
    if max_member_mb is not None:
        args += ["--max-member-mb", str(max_member_mb)]
    done = _run_with_progress(args, progress, strict, "ingest")
    return Result(Path(out), done.stdout, done.messages)


def run(
    paths: LogPaths,
    out: str | os.PathLike[str],
    *,
    manifest: str | os.PathLike[str] | None = None,
    report: str | os.PathLike[str] | None = None,
    inspect_evals: str | os.PathLike[str] | None = None,
    all_attempts: bool = False,
    progress: bool | None = None,
    strict: bool = True,
) -> Result:
    """Run the pipeline on logs (``empties run PATHS --out OUT``): ingest, analyze and
    report; with a study ``manifest``, the whole study (rescore, check, analyze, decide).

    The report goes to ``report`` (default ``OUT/report``). Arguments as :func:`ingest`.

    Example::

        r = empties.run("logs/", "out/explore")
        empties.table_df(r.path, "overview")   # the headline shares
        r.report / "index.html"                # the page
    """
    args = ["run", *_paths(paths), "--out", os.fspath(out)]
    if manifest is not None:
        args += ["--manifest", os.fspath(manifest)]
    if report is not None:
        args += ["--report", os.fspath(report)]
    if inspect_evals is not None:
        args += ["--inspect-evals", os.fspath(inspect_evals)]
    if all_attempts:
        args.append("--all-attempts")
    done = _run_with_progress(args, progress, strict, "run")
    return Result(Path(out), done.stdout, done.messages, Path(report) if report is not None else Path(out) / "report")


def _run_with_progress(args: list[str], progress: bool | None, strict: bool, what: str) -> Completed:
    """Runs the binary with --progress json, drawing the bar; exit code 1 after a
    summary is a partial failure (some logs could not be read): raised with strict,
    else warned."""
    args = [*args, "--progress", "json"]
    with _Bar(_interactive() if progress is None else progress, what) as bar:
        done = run_binary(args, ok=(0, 1), progress=bar.update)
    if done.exit_code == 1:
        message = "\n".join(m for m in done.messages if m.strip())
        if not done.stdout.strip():
            raise EmptiesError(message or f"empties {what} failed", exit_code=1, stderr=message, command=done.args)
        if strict:
            raise EmptiesError(
                f"{message}\n(the logs that could be read are in the dataset; strict=False warns instead of raising)",
                exit_code=1,
                stderr=message,
                command=done.args,
            )
        warnings.warn(EmptiesWarning(message), stacklevel=3)
    return done


def _interactive() -> bool:
    """In a notebook's kernel, or on a terminal."""
    return "ipykernel" in sys.modules or sys.stderr.isatty()


class _Bar:
    """A tqdm bar of the files read, fed by the binary's progress lines."""

    def __init__(self, on: bool, what: str) -> None:
        self.on, self.what = on, what
        self.bar: Any = None

    def __enter__(self) -> _Bar:
        return self

    def update(self, line: dict[str, Any]) -> None:
        if not self.on:
            return
        if self.bar is None:
            self.bar = _tqdm()(total=line.get("total"), desc=f"empties {self.what}", unit="file", file=sys.stderr)
        self.bar.n = line.get("files", 0)
        self.bar.set_postfix(samples=line.get("samples", 0), refresh=False)
        self.bar.refresh()

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()


def _tqdm() -> Any:
    """tqdm's notebook bar in a kernel that has ipywidgets, else its text bar."""
    if "ipykernel" in sys.modules:
        try:
            import ipywidgets  # noqa: F401
            from tqdm.notebook import tqdm as notebook_tqdm

            return notebook_tqdm
        except ImportError:
            pass
    from tqdm import tqdm

    return tqdm


def is_dataset(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a dataset folder (it holds ``empties-dataset.json``)."""
    return os.path.isfile(os.path.join(os.fspath(path), MARKER))


def connect(dataset: str | os.PathLike[str]) -> duckdb.DuckDBPyConnection:
    """A read-only DuckDB connection to a dataset's typed views: one view per table
    (``replies``, ``scores``, ``model_calls``, ``logs``, ``ingest_errors``, and the
    analysis tables), every row of the current generation, as ``empties sql`` reads
    them.

    The generation is resolved once and pinned while the connection lives (a
    shared lock on its ``generation.json``, as empties' own readers take): an
    ingest meanwhile switches past it and leaves its files for a later run to
    remove, so the connection never sees two generations, nor files removed
    under it. Times are in UTC. DuckDB spills into a private temporary folder,
    never into the dataset. The database is attached read-only; a ``COPY ... TO``
    still writes where you point it, as with any DuckDB connection.

    A dataset that was copied or moved has its view file rewritten for where it
    lies by the binary first (as every empties command reading it does).

    Raises:
        EmptiesError: ``dataset`` is not a dataset, or has no tables yet.

    Example::

        con = empties.connect("out/ds")
        con.sql("SELECT class, count(*) FROM replies GROUP BY ALL").df()
    """
    import duckdb

    root = Path(os.path.abspath(os.fspath(dataset)))
    if not is_dataset(root):
        if root.is_dir() and (root / VIEWS_FILE).exists():
            raise EmptiesError(f"{root}: a dataset of an older layout (no {MARKER}); ingest its logs again into a new folder")
        raise EmptiesError(f"{root}: not an empties dataset (no {MARKER}); write one with empties.ingest(logs, {os.fspath(dataset)!r})")
    gen, pin = _pin(root)
    try:
        con = _open_views(gen)
        if not _reads_here(con, gen):
            con.close()
            run_binary(["sql", "SELECT 1", "--data", str(root)])  # rewrites the view file for where it lies
            con = _open_views(gen)
            if not _reads_here(con, gen):
                con.close()
                raise EmptiesError(f"{gen / VIEWS_FILE}: its views read another folder's files and could not be rewritten; "
                                   f"run `empties sql \"SELECT 1\" --data {root}` and look at what it says")
    except BaseException:
        pin.close()
        raise
    # DuckDB's default spill folder is beside the database file: inside the dataset.
    scratch = tempfile.mkdtemp(prefix="empties-spill.")
    con.execute("SET temp_directory = " + sql_literal(scratch)).fetchall()
    weakref.finalize(con, _release, pin, scratch)
    return con


def sql_literal(s: str) -> str:
    """A SQL string literal."""
    return "'" + s.replace("'", "''") + "'"


def _open_views(gen: Path) -> duckdb.DuckDBPyConnection:
    import duckdb

    con = duckdb.connect(str(gen / VIEWS_FILE), read_only=True)
    # empties prints and reads times in UTC; so does this connection.
    con.execute("SET TimeZone = 'UTC'").fetchall()
    return con


def _reads_here(con: duckdb.DuckDBPyConnection, gen: Path) -> bool:
    """Whether the view file was written for this generation's folder (the
    view file's macro; duck.WriteViewsDB)."""
    try:
        row = con.execute("SELECT empties_views_root()").fetchone()
    except Exception:
        return False  # a view file of before the macro: rewrite it
    return row is not None and row[0] == os.path.realpath(gen)


def _pin(root: Path) -> tuple[Path, Any]:
    """The current generation of the dataset at root, with a shared flock on its
    generation.json (store.Current's pin; a commit removes only a generation it
    can lock exclusively)."""
    for _ in range(4):
        try:
            target = os.readlink(root / "current")
        except OSError:
            raise EmptiesError(f"{root}: the dataset has no tables yet (no current generation); ingest logs into it first") from None
        gen = (root / target).resolve()
        try:
            f = open(gen / GENERATION_FILE, "rb")
        except OSError:
            continue  # switched and removed between the readlink and the open
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            f.close()  # being removed: the next readlink finds the new one
            continue
        return gen, f
    raise EmptiesError(f"{root}: its current generation kept changing while being opened; try again")


def _release(pin: Any, scratch: str) -> None:
    pin.close()
    shutil.rmtree(scratch, ignore_errors=True)
