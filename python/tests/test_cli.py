"""python -m empties classify."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from empties.cli import list_logs, main, run_classify


def test_classify_folder_writes_one_line_per_sample(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "classes.jsonl"
    assert main(["classify", str(repo / "testdata" / "classify"), "--out", str(out)]) == 0
    recs = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    golden = (repo / "testdata" / "classify" / "golden.tsv").read_text(encoding="utf-8").splitlines()[1:]
    assert len(recs) == len(golden)
    for r in recs:
        assert set(r) == {"log", "sample_id", "epoch", "class", "rule", "non_answer", "tools_offered", "reply_source"}
        assert Path(r["log"]).is_absolute() and r["epoch"] == 1
    by_id = {r["sample_id"]: r for r in recs}
    assert by_id["gemini-prompt-blocked"]["class"] == "filtered"
    assert by_id["grok-safety-text-stop"]["rule"] == "error_text.form.grok_safety_check@v1"


def test_a_bad_file_is_reported_and_the_others_still_classified(repo: Path, tmp_path: Path) -> None:
    shutil.copy(repo / "testdata" / "classify" / "silent.eval", tmp_path / "silent.eval")
    (tmp_path / "broken.eval").write_bytes(b"PK\x03\x04 not really a zip")
    (tmp_path / "notes.json").write_text('{"hello": 1}', encoding="utf-8")
    (tmp_path / "logs.json").write_text("{}", encoding="utf-8")
    (tmp_path / ".hidden").mkdir()
    shutil.copy(repo / "testdata" / "classify" / "silent.eval", tmp_path / ".hidden" / "x.eval")
    files, skipped = list_logs([str(tmp_path)])
    assert [Path(f).name for f in files] == ["broken.eval", "silent.eval"]
    assert [Path(p).name for p, _ in skipped] == ["notes.json"]
    out, err = io.StringIO(), io.StringIO()
    assert run_classify([str(tmp_path)], out, err, progress=False) == 1
    assert [json.loads(x)["class"] for x in out.getvalue().splitlines()] == ["silent"]
    assert "broken.eval: cannot be read" in err.getvalue()
    assert "notes.json: a .json file that is not an Inspect log" in err.getvalue()


def test_out_never_overwrites(repo: Path, tmp_path: Path) -> None:
    out = tmp_path / "mine.jsonl"
    out.write_text("a user's file\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="exists; empties never overwrites"):
        main(["classify", str(repo / "testdata" / "classify" / "silent.eval"), "--out", str(out)])
    assert out.read_text(encoding="utf-8") == "a user's file\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine.jsonl"]  # no temporary file left


def test_missing_path_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no such file or folder"):
        main(["classify", str(tmp_path / "nope")])
