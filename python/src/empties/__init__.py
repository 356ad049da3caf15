"""empties: what "empty" model replies in Inspect AI logs really are, from Python.

Scoring (what the empty-responses study proposes to inspect_evals):

* :func:`class_aware` wraps a scorer so a reply that is no answer (silence, a
  reasoning model out of tokens, a provider's safety filter, a refusal flag,
  an API error text) is scored by what kind of non-answer it is, and never
  reaches the scorer or its judge; answers are scored by the scorer, unchanged.
* :func:`classify` gives the class of the model under test's reply in a sample
  (an :class:`~inspect_ai.log.EvalSample` from a log, or the
  :class:`~inspect_ai.solver.TaskState` a scorer receives), exactly as
  empties' Go classifier does; :func:`choose_reply` says which output is the
  reply (the first or the final generation of the model under test).

Reading logs (the tables of the ``empties`` binary the platform wheel
carries, in the style of ``inspect_ai.analysis``):

* :func:`replies_df`, :func:`scores_df`, :func:`model_calls_df`,
  :func:`logs_df` and :func:`table_df` give a table of a dataset, or of logs
  ingested first, as a pandas DataFrame (or polars, Arrow, a DuckDB relation).
* :func:`ingest` reads logs into a dataset (incrementally), :func:`run` runs
  the pipeline (ingest, analyze, report), :func:`connect` opens a dataset as a
  read-only DuckDB connection with its views. A failure of the binary is an
  :class:`EmptiesError` with its message.
* The ``empties`` command is the binary itself (``empties --help``).

``python -m empties classify PATH...`` classifies every sample of a folder of
logs. What the empty-responses study itself runs (its evals' settings, the
replay solver, the re-run runner) is in :mod:`empties.study`, which this
module does not import.

Names are imported when first used, so ``import empties`` (and the ``empties``
command) imports neither inspect_ai, pandas nor DuckDB until a function needs them.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING, Any

from ._version import __version__

if TYPE_CHECKING:
    from ._binary import EmptiesError, EmptiesWarning, binary
    from .classify import CLASSES, ClassName, ReplyClass, classify, classify_reply, is_non_answer
    from .dataset import Result, connect, ingest, run
    from .frames import logs_df, model_calls_df, replies_df, scores_df, table_df
    from .reply import REPLY_RULES, Reply, ReplyRule, choose_reply
    from .scorer import Touch, class_aware, non_answer_score
    from .vocabulary import vocabulary

INSPECT_AI_TESTED = ("0.3.278", "0.3.285")
"""The oldest and the newest inspect_ai release the package is tested with (the
range it declares, ``inspect_ai>=0.3.278``; the newest is the one empties pins)."""

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
    "logs_df": ".frames",
    "model_calls_df": ".frames",
    "replies_df": ".frames",
    "scores_df": ".frames",
    "table_df": ".frames",
    "REPLY_RULES": ".reply",
    "Reply": ".reply",
    "ReplyRule": ".reply",
    "choose_reply": ".reply",
    "Touch": ".scorer",
    "class_aware": ".scorer",
    "non_answer_score": ".scorer",
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
    # Two names are both a submodule and the function it defines (classify,
    # vocabulary). Importing a submodule binds it on its package
    # (empties.classify = the module), which would hide the function from
    # then on; the function is what the package's namespace names.
    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and value.__name__ == f"{__name__}.{name}" and name in _WHERE:
            self.__dict__.pop(name, None)
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package

__all__ = [
    "CLASSES",
    "INSPECT_AI_TESTED",
    "REPLY_RULES",
    "ClassName",
    "EmptiesError",
    "EmptiesWarning",
    "Reply",
    "ReplyClass",
    "ReplyRule",
    "Result",
    "Touch",
    "__version__",
    "binary",
    "choose_reply",
    "class_aware",
    "classify",
    "classify_reply",
    "connect",
    "ingest",
    "is_non_answer",
    "logs_df",
    "model_calls_df",
    "non_answer_score",
    "replies_df",
    "run",
    "scores_df",
    "table_df",
    "vocabulary",
]
