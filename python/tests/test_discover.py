"""The listing of python -m empties classify (empties.discover), as ingest lists logs.

internal/ingest's TestDiscoveryEqualsPython holds it equal to Go's discover on
a tree of every shape (as root too, without the privilege to read any folder);
these tests say what it does, one shape at a time.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from empties.discover import ListingError, list_logs, list_logs_and_links, not_followed, opens_like_log
from empties.vocabulary import vocabulary

SRC = Path(__file__).resolve().parents[1] / "src"


def listed(root: Path, *paths: str) -> tuple[list[str], list[tuple[str, str]]]:
    """list_logs of paths, relative to root."""
    files, skipped = list_logs(list(paths) or [str(root)])
    return [os.path.relpath(f, root) for f in files], [(os.path.relpath(p, root), why) for p, why in skipped]


def test_what_is_no_regular_file_is_skipped_unopened_and_named(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.eval")
    os.mkfifo(tmp_path / "fifo.json")
    os.mkfifo(tmp_path / "fifo.txt")
    (tmp_path / "sub").mkdir()
    (tmp_path / "d.eval").symlink_to("sub")
    (tmp_path / "dev.eval").symlink_to("/dev/null")
    short = Path(os.path.realpath("/tmp")) / f"s{os.getpid()}.eval"  # a socket's path must be short
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(short))
        shutil.move(str(short), tmp_path / "sock.eval")
    finally:
        s.close()
    assert listed(tmp_path) == ([], [
        ("d.eval", "not a regular file (a folder)"),
        ("dev.eval", "not a regular file (a character device)"),
        ("fifo.eval", "not a regular file (a named pipe)"),
        ("fifo.json", "not a regular file (a named pipe)"),
        ("sock.eval", "not a regular file (a socket)"),
    ])
    assert listed(tmp_path, str(tmp_path / "fifo.eval")) == ([], [("fifo.eval", "not a regular file (a named pipe)")])


def test_classify_never_waits_on_a_fifo(fixtures: Path, tmp_path: Path) -> None:
    shutil.copy(fixtures / "silent.eval", tmp_path / "silent.eval")
    os.mkfifo(tmp_path / "stuck.eval")
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-m", "empties", "classify", str(tmp_path), str(tmp_path / "stuck.eval")],
                       capture_output=True, text=True, env=env, timeout=120, check=False)
    assert p.returncode == 0, p.stderr
    assert len(p.stdout.splitlines()) == 1
    assert f"skipped {tmp_path / 'stuck.eval'}: not a regular file (a named pipe)" in p.stderr.splitlines()


def test_links_are_taken_for_what_they_point_to(tmp_path: Path) -> None:
    (tmp_path / "a.eval").write_bytes(b"")
    (tmp_path / "link.eval").symlink_to("a.eval")
    (tmp_path / "broken.eval").symlink_to("nowhere")
    (tmp_path / "broken.txt").symlink_to("nowhere")
    (tmp_path / "loop.eval").symlink_to("loop2.eval")
    (tmp_path / "loop2.eval").symlink_to("loop.eval")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "b.eval").write_bytes(b"")
    (tmp_path / "linkdir").symlink_to("sub")  # below a path named, not followed
    assert listed(tmp_path) == (["a.eval", "link.eval", "sub/b.eval"], [
        ("broken.eval", "a symbolic link that cannot be followed (no such file or directory)"),
        ("loop.eval", "a symbolic link that cannot be followed (too many levels of symbolic links)"),
        ("loop2.eval", "a symbolic link that cannot be followed (too many levels of symbolic links)"),
    ])
    # a folder named through a link is read, its logs named under the link
    assert listed(tmp_path, str(tmp_path / "linkdir")) == (["linkdir/b.eval"], [])


def test_a_folder_that_cannot_be_read_is_named_and_the_rest_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # os.scandir refusing stands for a folder of mode 000, which root reads
    # all the same (TestDiscoveryEqualsPython makes a real one, and lists it
    # without that privilege)
    (tmp_path / "locked").mkdir()
    (tmp_path / "locked" / "x.eval").write_bytes(b"")
    (tmp_path / "a.eval").write_bytes(b"")
    scandir = os.scandir

    def refusing(p: str) -> object:
        if os.path.basename(p) == "locked":
            raise PermissionError(13, "Permission denied", p)
        return scandir(p)

    monkeypatch.setattr(os, "scandir", refusing)
    assert listed(tmp_path) == (["a.eval"], [("locked", "a folder that cannot be read (permission denied)")])


def test_datasets_hold_no_logs(tmp_path: Path) -> None:
    marker = vocabulary().discovery.dataset_marker
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / marker).write_text("{}", encoding="utf-8")
    (tmp_path / "ds" / "generation.json").write_text('{"generation": 1}', encoding="utf-8")
    (tmp_path / "ds" / "x.eval").write_bytes(b"")
    (tmp_path / "a.eval").write_bytes(b"")
    assert listed(tmp_path) == (["a.eval"], [])
    with pytest.raises(ListingError, match="is an empties dataset, not a folder of logs"):
        list_logs([str(tmp_path / "ds")])


def test_paths_named_are_refused_as_ingest_refuses_them(tmp_path: Path) -> None:
    (tmp_path / "a.eval").write_bytes(b"")
    (tmp_path / "loop.eval").symlink_to("loop.eval")
    for path, why in [("nope.eval", "no such file or folder"),
                      ("loop.eval", "cannot be read (too many levels of symbolic links)"),
                      ("a.eval/x.eval", "cannot be read (not a directory)")]:
        with pytest.raises(ListingError) as e:
            list_logs([str(tmp_path / "a.eval"), str(tmp_path / path)])
        assert str(e.value) == f"{tmp_path / path}: {why}"


def test_a_json_opens_like_a_log_after_whitespace_and_byte_order_marks_only() -> None:
    key = vocabulary().discovery.json_first_keys[0]
    assert opens_like_log(f'\ufeff \n{{ "{key}": 2}}'.encode())
    assert opens_like_log(f'\ufeff\ufeff{{"{key}": 2}}'.encode())
    # the bytes of a BOM out of order are not one (Go trims the sequence, not its bytes)
    assert not opens_like_log(b"\xbb\xef" + f'{{"{key}": 2}}'.encode())
    assert not opens_like_log(b'{"hello": 1}') and not opens_like_log(b"") and not opens_like_log(b"[{}]")


def test_relative_paths_are_named_from_the_working_folder_as_the_shell_names_it(tmp_path: Path,
                                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # as Go's os.Getwd: $PWD when it is this folder, so a link to it keeps its name
    (tmp_path / "real").mkdir()
    (tmp_path / "real" / "a.eval").write_bytes(b"")
    (tmp_path / "via").symlink_to("real")
    monkeypatch.chdir(tmp_path / "via")
    monkeypatch.setenv("PWD", str(tmp_path / "via"))
    assert list_logs(["a.eval"]).files == [str(tmp_path / "via" / "a.eval")]
    monkeypatch.setenv("PWD", str(tmp_path))  # not this folder: ignored
    assert list_logs(["a.eval"]).files == [os.path.join(os.path.realpath(tmp_path / "real"), "a.eval")]


def test_links_to_folders_outside_are_named(fixtures: Path, tmp_path: Path) -> None:
    logs, outside = tmp_path / "logs", tmp_path / "outside"
    (logs / "run1").mkdir(parents=True)
    outside.mkdir()
    shutil.copy(fixtures / "silent.eval", logs / "run1" / "a.eval")
    shutil.copy(fixtures / "silent.eval", outside / "b.eval")
    (logs / "latest").symlink_to("run1")  # into a folder read anyway: not named
    (logs / "team").symlink_to("../outside")
    (logs / ".hidden").symlink_to("../outside")  # a name the walk leaves out
    (logs / "run1" / "up").symlink_to("../..")
    (files, skipped), links = list_logs_and_links([str(logs)])
    assert [os.path.relpath(f, tmp_path) for f in files] == ["logs/run1/a.eval"] and skipped == []
    assert [os.path.relpath(p, tmp_path) for p in links] == ["logs/run1/up", "logs/team"]
    assert list_logs_and_links([str(logs), str(outside)])[1] == [str(logs / "run1" / "up")]
    assert list_logs_and_links([str(tmp_path)])[1] == []
    env = {**os.environ, "PYTHONPATH": str(SRC) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    p = subprocess.run([sys.executable, "-m", "empties", "classify", str(logs)],
                       capture_output=True, text=True, env=env, timeout=120, check=False)
    assert p.returncode == 0, p.stderr
    assert not_followed(str(logs / "team")) in p.stderr.splitlines()
