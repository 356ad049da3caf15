"""empties: what "empty" model replies in Inspect AI logs really are, from Python.

Reading logs (the tables of the ``empties`` binary the package carries, in
the style of ``inspect_ai.analysis``):

* :func:`replies_df`, :func:`scores_df`, :func:`model_calls_df`,
  :func:`logs_df` and :func:`table_df` give a table of a dataset, or of logs
  ingested first, as a pandas DataFrame (or polars, Arrow, a DuckDB relation).
* :func:`ingest` reads logs into a dataset (incrementally), :func:`run` runs
  the pipeline (ingest, analyze, report), :func:`connect` opens a dataset as a
  read-only DuckDB connection with its views. A failure of the binary is an
  :class:`EmptiesError` with its message.
* The ``empties`` command is the binary itself (``empties --help``).

Scoring (what the study proposes to inspect_evals):

* :func:`classify` gives the class of the model under test's reply in a sample
  (an :class:`~inspect_ai.log.EvalSample` from a log, or the
  :class:`~inspect_ai.solver.TaskState` a scorer receives), exactly as
  empties' Go classifier does.
* :func:`class_aware` wraps a scorer so non-answers are scored by their class
  and never reach the scorer or its judge.
* :data:`EVALS` holds ready-made settings for the study's evals.
* :func:`replay` is a solver that sets a sample's reply to a given text
  without calling the model under test (``--solver empties/replay``), for
  grading replies with the eval's own judge (Part B and Part C of the study).

``python -m empties classify PATH...`` classifies every sample of a folder of logs.

Names are imported when first used, so ``import empties`` (and the ``empties``
command) does not import inspect_ai, pandas or DuckDB until a function needs them.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._binary import EmptiesError, EmptiesWarning, binary
    from .classify import CLASSES, ClassName, ReplyClass, classify, classify_reply, is_non_answer
    from .dataset import Result, connect, ingest, run
    from .evals import EVALS, EvalSettings, eval_settings, settings_for_task
    from .frames import logs_df, model_calls_df, replies_df, scores_df, table_df
    from .replay import replay
    from .reply import Reply, choose_reply
    from .scorer import Touch, class_aware, p3_score
    from .vocabulary import vocabulary

__version__ = "0.1.0"
TESTED_INSPECT_AI = "0.3.285"
"""The inspect_ai release the package is tested against (empties' pinned one)."""

_WHERE = {
    "EmptiesError": "._binary",
    "EmptiesWarning": "._binary",
    "binary": "._binary",
    "CLASSES": ".classify",
    "ClassName": ".classify",
    "ReplyClass": ".classify",
    "classify": ".classify",
    "classify_reply": ".classify",
    "is_non_answer": ".classify",
    "Result": ".dataset",
    "connect": ".dataset",
    "ingest": ".dataset",
    "run": ".dataset",
    "EVALS": ".evals",
    "EvalSettings": ".evals",
    "eval_settings": ".evals",
    "settings_for_task": ".evals",
    "logs_df": ".frames",
    "model_calls_df": ".frames",
    "replies_df": ".frames",
    "scores_df": ".frames",
    "table_df": ".frames",
    "replay": ".replay",
    "Reply": ".reply",
    "choose_reply": ".reply",
    "Touch": ".scorer",
    "class_aware": ".scorer",
    "p3_score": ".scorer",
    "vocabulary": ".vocabulary",
}


def __getattr__(name: str) -> Any:
    where = _WHERE.get(name)
    if where is None:
        raise AttributeError(f"module 'empties' has no attribute {name!r}")
    value = getattr(importlib.import_module(where, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_WHERE])


class _Package(types.ModuleType):
    # Three names are both a submodule and the function it defines
    # (classify, replay, vocabulary). Importing a submodule binds it on its
    # package (empties.replay = the module: inspect_ai's entry point imports
    # empties.replay), which would hide the function from then on; the
    # function is what the package's namespace names.
    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.{name}" and name in _WHERE:
            self.__dict__.pop(name, None)
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package


__all__ = [
    "CLASSES",
    "EVALS",
    "TESTED_INSPECT_AI",
    "ClassName",
    "EmptiesError",
    "EmptiesWarning",
    "EvalSettings",
    "Reply",
    "ReplyClass",
    "Result",
    "Touch",
    "binary",
    "choose_reply",
    "class_aware",
    "classify",
    "classify_reply",
    "connect",
    "eval_settings",
    "ingest",
    "is_non_answer",
    "logs_df",
    "model_calls_df",
    "p3_score",
    "replay",
    "replies_df",
    "run",
    "scores_df",
    "settings_for_task",
    "table_df",
    "vocabulary",
]
