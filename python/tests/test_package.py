"""What the package declares and ships, and what it imports."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from inspect_ai import Task, task
from inspect_ai.dataset import Sample

import empties

PACKAGE = Path(empties.__file__).resolve().parent
PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def project() -> dict[str, object]:
    return dict(tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"])


def test_metadata_licence_python_and_inspect_ai_range() -> None:
    p = project()
    assert p["version"] == empties.__version__
    assert p["license"] == "MIT" and p["license-files"] == ["LICENSE"]
    assert (PYPROJECT.parent / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    assert p["requires-python"] == ">=3.11"
    (dep,) = [d for d in p["dependencies"] if str(d).startswith("inspect_ai")]  # type: ignore[attr-defined]
    oldest, newest = empties.INSPECT_AI_TESTED
    assert dep == f"inspect_ai>={oldest},<0.4", dep
    assert tuple(map(int, oldest.split("."))) <= tuple(map(int, newest.split(".")))


def test_the_data_is_inside_the_package() -> None:
    for name in ("_data/vocabulary.json", "study/_data/profiles.json", "py.typed"):
        assert (PACKAGE / name).is_file(), name


def test_the_scorer_and_classifier_import_without_the_study() -> None:
    code = (
        "import sys, empties\n"
        "from empties import class_aware, classify, choose_reply\n"
        "assert not [m for m in sys.modules if m.startswith('empties.study')], sorted(sys.modules)\n"
    )
    env_path = str(PACKAGE.parent)
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False,
                       env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"})
    assert p.returncode == 0, p.stderr


def _private_inspect_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        found += [f"{path.relative_to(PACKAGE)}:{getattr(node, 'lineno', 0)}: {n}" for n in names
                  if n.startswith("inspect_ai.") and any(part.startswith("_") for part in n.split(".")[1:])]
    return found


def test_inspect_ai_internals_are_imported_in_one_guarded_place() -> None:
    found = [x for f in sorted(PACKAGE.rglob("*.py")) for x in _private_inspect_imports(f)]
    assert found and all(x.startswith("_inspect.py:") for x in found), found


@task
def empties_compat_task(n: int = 1) -> Task:
    return Task(dataset=[Sample(input="q", target="a")] * n)


def test_the_fallbacks_do_what_inspect_ai_does(monkeypatch: pytest.MonkeyPatch) -> None:
    from empties import _inspect

    real = (_inspect.REGISTRY_INFO, _inspect.REGISTRY_PARAMS)
    real_task = _inspect.registry_lookup("task", "empties_compat_task")
    # a release without inspect_ai._util.registry: the module falls back
    monkeypatch.setitem(sys.modules, "inspect_ai._util.registry", None)
    try:
        fallback = importlib.reload(_inspect)
        assert (fallback.REGISTRY_INFO, fallback.REGISTRY_PARAMS) == real
        make = fallback.registry_lookup("task", "empties_compat_task")
        assert callable(make) and callable(real_task)
        assert len(make(n=3).dataset) == 3 == len(real_task(n=3).dataset)
    finally:
        monkeypatch.undo()
        importlib.reload(_inspect)
