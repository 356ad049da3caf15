"""empties: the class-aware scorer (policy P3 of the empty-responses study) for Inspect evals.

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
"""

from .classify import CLASSES, ClassName, ReplyClass, classify, classify_reply, is_non_answer
from .evals import EVALS, EvalSettings, eval_settings, settings_for_task
from .reply import Reply, choose_reply
from .replay import replay
from .scorer import Touch, class_aware, p3_score
from .vocabulary import vocabulary

__version__ = "0.1.0"
TESTED_INSPECT_AI = "0.3.285"
"""The inspect_ai release the package is tested against (empties' pinned one)."""

__all__ = [
    "CLASSES",
    "EVALS",
    "TESTED_INSPECT_AI",
    "ClassName",
    "EvalSettings",
    "Reply",
    "ReplyClass",
    "Touch",
    "choose_reply",
    "class_aware",
    "classify",
    "classify_reply",
    "eval_settings",
    "is_non_answer",
    "p3_score",
    "replay",
    "settings_for_task",
    "vocabulary",
]
