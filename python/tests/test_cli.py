"""python -m empties classify: its lines, and how it behaves as a Unix tool."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from empties.cli import main, run_classify
from empties.discover import list_logs

SRC = Path(__file__).resolve().parents[1] / "src"


def classify(*args: str) -> tuple[int, list[dict[str, object]], str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["classify", *args], out, err)
    return code, [json.loads(x) for x in out.getvalue().splitlines()], err.getvalue()


def test_classify_folder_writes_one_line_per_sample(fixtures: Path, tmp_path: Path) -> None:
    out = tmp_path / "classes.jsonl"
    assert main(["classify", str(fixtures), "--out", str(out)], io.StringIO(), io.StringIO()) == 0
    recs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    golden = (fixtures / "golden.tsv").read_text(encoding="utf-8").splitlines()[1:]
    assert len(recs) == len(golden)
    for r in recs:
        assert set(r) == {"log", "sample_id", "epoch", "class", "rule", "non_answer", "tools_offered", "reply_source"}
        assert Path(r["log"]).is_absolute() and r["epoch"] == 1
    by_id = {r["sample_id"]: r for r in recs}
    assert by_id["gemini-prompt-blocked"]["class"] == "filtered"
    assert by_id["grok-safety-text-stop"]["rule"] == "error_text.form.grok_safety_check@v1"


def test_reply_first_or_final(fixtures: Path) -> None:
    # airbench-overwrite: the model's reply (whitespace), then the model under
    # test called again as a judge by the solver: the final generation is the judge's
    log = str(fixtures / "airbench-overwrite.eval")
    _, first, _ = classify(log)
    _, final, _ = classify(log, "--reply", "final")
    assert (first[0]["class"], final[0]["class"]) == ("silent", "answer")
    code, same, _ = classify(str(fixtures / "silent.eval"), "--reply", "final")
    assert code == 0 and same[0]["class"] == "silent"  # one generation: the same reply


def test_a_bad_file_is_reported_and_the_others_still_classified(fixtures: Path, tmp_path: Path) -> None:
    shutil.copy(fixtures / "silent.eval", tmp_path / "silent.eval")
    (tmp_path / "broken.eval").write_bytes(b"PK\x03\x04 not really a zip")
    (tmp_path / "notes.json").write_text('{"hello": 1}', encoding="utf-8")
    (tmp_path / "logs.json").write_text("{}", encoding="utf-8")
    (tmp_path / ".hidden").mkdir()
    shutil.copy(fixtures / "silent.eval", tmp_path / ".hidden" / "x.eval")
    files, skipped = list_logs([str(tmp_path)])
    assert [Path(f).name for f in files] == ["broken.eval", "silent.eval"]
    assert [Path(p).name for p, _ in skipped] == ["notes.json"]
    out, err = io.StringIO(), io.StringIO()
    assert run_classify([str(tmp_path)], out, err, progress=False) == 1
    assert [json.loads(x)["class"] for x in out.getvalue().splitlines()] == ["silent"]
    assert "broken.eval: cannot be read" in err.getvalue()
    assert "notes.json: a .json file that is not an Inspect log" in err.getvalue()


def test_a_missing_path_is_a_usage_error_and_nothing_is_read(fixtures: Path, tmp_path: Path) -> None:
    # as empties ingest refuses it: a mistyped path is the command line's mistake
    code, recs, err = classify(str(fixtures / "silent.eval"), str(tmp_path / "nope"))
    assert (code, recs) == (2, [])
    assert err == f"empties classify: {tmp_path / 'nope'}: no such file or folder\n"


def test_a_file_named_is_read_whatever_its_name(fixtures: Path, tmp_path: Path) -> None:
    # as ingest takes it: a log is told by its bytes, a file that is none is a log that cannot be read
    shutil.copy(fixtures / "silent.eval", tmp_path / "silent.eval.bak")
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    code, recs, err = classify(str(tmp_path / "silent.eval.bak"), str(tmp_path / "notes.txt"))
    assert code == 1 and [r["class"] for r in recs] == ["silent"]
    assert recs[0]["log"] == str(tmp_path / "silent.eval.bak")
    lines = err.splitlines()
    assert lines[0].startswith(f"empties classify: {tmp_path / 'notes.txt'}: cannot be read: ")
    assert lines[-1] == "classified 1 sample in 1 of 2 logs; 1 could not be read"


def test_a_json_named_that_is_not_a_log_is_a_usage_error(fixtures: Path, tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text('{"model": "x"}', encoding="utf-8")
    code, recs, err = classify(str(fixtures / "silent.eval"), str(tmp_path / "config.json"))
    assert (code, recs) == (2, [])
    assert err == (f"empties classify: {tmp_path / 'config.json'}: a .json file that is not an Inspect log (it does not open"
                   " like one); leave it out of PATH (a folder holding it skips it with a note)\n")


def test_out_never_overwrites(fixtures: Path, tmp_path: Path) -> None:
    out = tmp_path / "mine.jsonl"
    out.write_text("a user's file\n", encoding="utf-8")
    code, _, err = classify(str(fixtures / "silent.eval"), "--out", str(out))
    assert code == 2 and err == f"empties classify: --out {out}: the file exists; empties never overwrites a file: choose another --out\n"
    assert out.read_text(encoding="utf-8") == "a user's file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.jsonl"]  # no temporary file left


def test_a_missing_out_folder_is_a_one_line_usage_error(fixtures: Path, tmp_path: Path) -> None:
    out = tmp_path / "no" / "such" / "classes.jsonl"
    code, recs, err = classify(str(fixtures / "silent.eval"), "--out", str(out))
    assert code == 2 and recs == []
    assert err == f"empties classify: --out {out}: no folder {out.parent}: make it first, or choose another --out\n"
    assert list(tmp_path.iterdir()) == []


def test_a_closed_pipe_ends_quietly_with_0(fixtures: Path) -> None:
    # the reader is gone before the first line is written (`| head -1` that
    # has its line): every write fails with EPIPE
    r, w = os.pipe()
    os.close(r)
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-m", "empties", "classify", str(fixtures)], stdout=w, stderr=subprocess.PIPE,
                       env=env, text=True, check=False)
    os.close(w)
    assert (p.returncode, p.stderr) == (0, "")


def test_help_is_plain_text_with_examples(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as done:
        main(["classify", "--help"])
    help = capsys.readouterr().out
    assert done.value.code == 0
    assert "``" not in help and ":func:" not in help
    assert "examples:\n  python -m empties classify logs/" in help
    assert "--reply {first,final}" in help
    with pytest.raises(SystemExit) as done:
        main(["classify", "--reply", "last", "x"])
    assert done.value.code == 2 and "invalid choice: 'last'" in capsys.readouterr().err
