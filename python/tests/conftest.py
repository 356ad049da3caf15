from __future__ import annotations

import logging
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def repo() -> Path:
    """The empties repository (the tests read its fixture logs)."""
    if not (REPO / "testdata" / "classify" / "golden.tsv").exists():
        raise RuntimeError(f"{REPO}: the tests read the empties repository's testdata/, which is not there")
    return REPO


@pytest.fixture(autouse=True)
def _quiet_inspect() -> None:
    logging.getLogger("inspect_ai").setLevel(logging.ERROR)
