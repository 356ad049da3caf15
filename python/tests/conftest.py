from __future__ import annotations

import logging
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"


@pytest.fixture(scope="session")
def fixtures() -> Path:
    """The classifier's fixture logs and golden.tsv, shipped with the tests (a copy of
    empties' testdata/classify, which the Go test TestShippedFixtures keeps equal)."""
    d = DATA / "classify"
    if not (d / "golden.tsv").exists():
        raise RuntimeError(f"{d}: the tests' fixture logs are not there (is this a whole sdist?)")
    return d


@pytest.fixture(autouse=True)
def _quiet_inspect() -> None:
    logging.getLogger("inspect_ai").setLevel(logging.ERROR)
