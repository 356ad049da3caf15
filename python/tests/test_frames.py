"""The Python API over the binary: ingest, connect and the frames.

These run the empties binary the package finds (empties.binary(): the one a
platform wheel carries, or EMPTIES_BIN; internal/pypkg's runner sets it to
this checkout's build).
"""

from __future__ import annotations

import gc
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import empties


@pytest.fixture(scope="session", autouse=True)
def _binary() -> str:
    try:
        return empties.binary()
    except empties.EmptiesError as e:
        raise RuntimeError(f"these tests run the empties binary: {e}") from None


def _classify_logs() -> Path:
    """The classifier's fixture logs: the tests' own copy where there is one, else the repository's."""
    here = Path(__file__).resolve().parent
    for d in (here / "data" / "classify", here.parents[1] / "testdata" / "classify"):
        if (d / "golden.tsv").is_file():
            return d
    raise RuntimeError("the classifier's fixture logs (testdata/classify) are not there")


@pytest.fixture(scope="session")
def logs_dir() -> Path:
    return _classify_logs()


def _logs(d: Path) -> str:
    return str(d)


def test_ingest_is_incremental_and_draws_a_bar(logs_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ds = tmp_path / "ds"
    first = empties.ingest(_logs(logs_dir), ds, progress=True)
    n = len(list((logs_dir).glob("*.eval")))
    assert f"ingested {n} of {n} files" in str(first) and first.path == ds
    bar = capsys.readouterr().err
    assert f"{n}/{n}" in bar and "empties ingest" in bar
    again = empties.ingest(_logs(logs_dir), ds, progress=False)
    assert f"unchanged {n}" in again.summary
    assert capsys.readouterr().err == ""


def test_frames_have_the_schema_types(logs_dir: Path, tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    empties.ingest(_logs(logs_dir), ds, progress=False)
    df = empties.replies_df(ds)
    assert len(df) == len(list((logs_dir).glob("*.eval")))
    assert str(df["started_at"].dtype) == "timestamp[us, tz=UTC][pyarrow]"
    assert str(df["input_tokens"].dtype) == "int64[pyarrow]"
    assert str(df["non_answer"].dtype) == "bool[pyarrow]"
    assert df["sample_metadata"].dtype == object
    assert all(isinstance(v, dict) for v in df["sample_metadata"].dropna())
    scores = empties.scores_df(ds)
    assert set(scores["value_json"].map(type)) <= {str, float, int, dict, list, bool}
    calls = empties.model_calls_df(ds)
    assert str(calls["timestamp"].dtype) == "timestamp[us, tz=UTC][pyarrow]" and len(calls) >= len(df)
    logs = empties.logs_df(ds)
    assert set(df["log_id"]) <= set(logs["log_id"])
    assert isinstance(empties.replies_df(ds, backend="polars"), pl.DataFrame)
    assert isinstance(empties.replies_df(ds, backend="arrow"), pa.Table)
    rel = empties.replies_df(ds, backend="duckdb")
    assert rel.aggregate("count(*)").fetchall() == [(len(df),)]
    assert dict(zip(rel.columns, map(str, rel.types)))["sample_metadata"] == "JSON"


def test_frames_of_logs_outlive_their_temporary_dataset(logs_dir: Path) -> None:
    rel = empties.replies_df(_logs(logs_dir), backend="duckdb", progress=False)
    gc.collect()
    classes = dict(rel.aggregate("class, count(*)", "class").fetchall())
    assert classes["filtered"] >= 1 and sum(classes.values()) == len(list((logs_dir).glob("*.eval")))
    df = empties.replies_df([_logs(logs_dir)], progress=False)
    assert isinstance(df, pd.DataFrame) and not df.empty


def test_errors_are_the_binarys(tmp_path: Path) -> None:
    with pytest.raises(empties.EmptiesError, match="no such file or folder") as e:
        empties.ingest(tmp_path / "missing", tmp_path / "ds", progress=False)
    assert e.value.exit_code == 2 and "empties: ingest:" in e.value.stderr
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.txt").write_text("a user's file")
    with pytest.raises(empties.EmptiesError, match="mine") as e:
        empties.ingest(str(tmp_path), tmp_path / "mine", progress=False)
    assert e.value.exit_code in (1, 2) and (tmp_path / "mine" / "thesis.txt").read_text() == "a user's file"
    with pytest.raises(empties.EmptiesError, match="not an empties dataset"):
        empties.connect(tmp_path / "mine")
    with pytest.raises(empties.EmptiesError, match="backend='excel'"):
        empties.table_df(tmp_path, "replies", backend="excel")  # type: ignore[call-overload]


def test_a_bad_log_raises_or_warns_and_the_others_are_read(logs_dir: Path, tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    shutil.copy(logs_dir / "silent.eval", logs / "silent.eval")
    (logs / "broken.eval").write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(empties.EmptiesError, match="broken.eval") as e:
        empties.ingest(logs, tmp_path / "ds", progress=False)
    assert e.value.exit_code == 1 and "strict=False" in str(e.value)
    assert len(empties.replies_df(tmp_path / "ds")) == 1
    with pytest.warns(empties.EmptiesWarning, match="broken.eval"):
        df = empties.replies_df(logs, strict=False, progress=False)
    assert list(df["class"]) == ["silent"]


def test_connect_is_read_only_and_keeps_its_generation(logs_dir: Path, tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    empties.ingest(_logs(logs_dir), ds, progress=False)
    con = empties.connect(ds)
    gen = Path(os.path.realpath(ds / "current"))
    n = con.execute("SELECT count(*) FROM replies").fetchall()[0][0]
    with pytest.raises(Exception, match="read-only"):
        con.execute("CREATE TABLE mine AS SELECT 1").fetchall()
    assert con.execute("SELECT current_setting('TimeZone')").fetchall()[0][0] == "UTC"
    spill = con.execute("SELECT current_setting('temp_directory')").fetchall()[0][0]
    assert not spill.startswith(str(tmp_path)) and os.path.isdir(spill)
    empties.ingest(_logs(logs_dir), ds, full=True, progress=False)  # a new generation
    assert os.path.realpath(ds / "current") != str(gen)
    assert gen.is_dir(), "the commit removed the generation a connection reads"
    assert con.execute("SELECT count(*) FROM replies").fetchall()[0][0] == n
    del con
    gc.collect()
    assert not os.path.isdir(spill)
    empties.ingest(_logs(logs_dir), ds, full=True, progress=False)
    assert not gen.exists(), "the generation no one reads any more was left"


def test_connect_to_a_moved_dataset_reads_its_own_files(logs_dir: Path, tmp_path: Path) -> None:
    ds = tmp_path / "ds"
    empties.ingest(str(logs_dir / "silent.eval"), ds, progress=False)
    moved = tmp_path / "moved"
    shutil.copytree(ds, moved, symlinks=True)
    empties.ingest(_logs(logs_dir), ds, progress=False)  # the original now holds more
    assert len(empties.replies_df(moved)) == 1
    assert len(empties.replies_df(ds)) > 1


def test_an_interrupt_stops_the_binary_and_commits_nothing(logs_dir: Path, tmp_path: Path) -> None:
    stalled = tmp_path / "stalled"
    script = textwrap.dedent(
        """
        import sys, empties
        try:
            empties.ingest(sys.argv[1], sys.argv[2], progress=False)
        except KeyboardInterrupt:
            print("KeyboardInterrupt")
        """
    )
    env = dict(os.environ, EMPTIES_TEST_STALL_READS=str(stalled), EMPTIES_TEST_STOP_GRACE="10m")
    p = subprocess.Popen([sys.executable, "-c", script, _logs(logs_dir), str(tmp_path / "ds")], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 600  # a hang guard, far beyond any load
    while not stalled.exists():
        assert p.poll() is None and time.monotonic() < deadline, p.communicate()
        time.sleep(0.02)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=600)
    assert p.returncode == 0 and out.strip() == "KeyboardInterrupt", (out, err)
    assert not (tmp_path / "ds" / "current").exists()
    assert not _running(str(tmp_path / "ds")), "the binary is still running"


def _running(arg: str) -> list[str]:
    """The processes whose command line holds arg."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path("/proc", pid, "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if arg.encode() in cmdline:
            found.append(pid)
    return found


def test_import_is_lazy_and_names_stay_functions() -> None:
    code = textwrap.dedent(
        """
        import sys, empties, empties._command
        assert not {"inspect_ai", "pandas", "duckdb"} & set(sys.modules), sorted(sys.modules)
        # a submodule of the function's name, imported before the name is used
        # (as inspect_ai's entry point imports empties.replay): the name stays the function
        import empties.vocabulary
        assert callable(empties.vocabulary) and empties.vocabulary.__module__ == "empties.vocabulary"
        assert empties.vocabulary().classes
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_the_command_is_the_binary(tmp_path: Path) -> None:
    code = "import sys; from empties._command import main; sys.argv[0] = 'empties'; main()"
    version = subprocess.run([sys.executable, "-c", code, "--version"], capture_output=True, text=True)
    direct = subprocess.run([empties.binary(), "--version"], capture_output=True, text=True)
    assert (version.returncode, version.stdout) == (0, direct.stdout)
    usage = subprocess.run([sys.executable, "-c", code, "ingest"], capture_output=True, text=True)
    assert usage.returncode == 2 and usage.stderr == subprocess.run([empties.binary(), "ingest"], capture_output=True, text=True).stderr
    missing = subprocess.run([sys.executable, "-c", code, "--version"], capture_output=True, text=True,
                             env=dict(os.environ, EMPTIES_BIN=str(tmp_path / "nothing")))
    assert missing.returncode == 1 and "EMPTIES_BIN" in missing.stderr
    json.loads(subprocess.run([sys.executable, "-c", code, "schema", "--format", "json"], capture_output=True, text=True, check=True).stdout)
