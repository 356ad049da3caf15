"""The bench removes only what it made: the rule of internal/guard.

A folder is removed only if it is empty or carries a mark the bench or
empties wrote: an empties dataset (empties-dataset.json), a generated corpus
(CORPUS.marker, make_corpus.py) or a folder the bench made (.empties-bench).
Anything else at that path (a --work or --out pointed at a user's folder)
stops the bench with a message; nothing is removed.
"""

from __future__ import annotations

import os
import shutil

BENCH_MARK = ".empties-bench"
MARKS = (BENCH_MARK, "empties-dataset.json", "CORPUS.marker")


def make_own(path: str) -> None:
    """Makes a new folder the bench may remove later."""
    os.makedirs(path)
    with open(os.path.join(path, BENCH_MARK), "w"):
        pass


def remove_own(path: str) -> None:
    """Removes path if the bench or empties made it (see the module doc)."""
    if not os.path.lexists(path):
        return
    if os.path.islink(path) or not os.path.isdir(path):
        raise SystemExit(f"bench: {path} is not a folder the bench made; nothing was removed: "
                         "move it away or choose another --work/--out")
    if os.listdir(path) and not any(os.path.isfile(os.path.join(path, m)) for m in MARKS):
        raise SystemExit(f"bench: {path} holds files the bench did not write (no {' or '.join(MARKS)}); "
                         "nothing was removed: move it away or choose another --work/--out")
    shutil.rmtree(path)
