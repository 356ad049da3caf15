"""The package declares the inspect_ai empties pins, and ships its data."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import inspect_ai

import empties


def test_declares_the_pinned_inspect_ai(repo: Path) -> None:
    pins = dict(
        ln.split("==", 1) for ln in (repo / "requirements.txt").read_text(encoding="utf-8").splitlines()
        if "==" in ln and not ln.startswith("#")
    )
    pinned = pins["inspect-ai"].strip()
    project = tomllib.loads((repo / "python" / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (dep,) = [d for d in project["dependencies"] if d.startswith("inspect_ai")]
    lower = re.search(r">=\s*([0-9.]+)", dep)
    assert lower and lower.group(1) == pinned, f"pyproject declares {dep!r}, requirements.txt pins {pinned}"
    assert empties.TESTED_INSPECT_AI == pinned == inspect_ai.__version__
    assert project["version"] == empties.__version__


def test_the_data_is_inside_the_package() -> None:
    root = Path(empties.__file__).parent
    for name in ("vocabulary.json", "profiles.json"):
        assert (root / "_data" / name).is_file()
    assert (root / "py.typed").is_file()
