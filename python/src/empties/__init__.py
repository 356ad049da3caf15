"""empties: class-aware scoring of empty replies for Inspect evals.

* :func:`class_aware` wraps a scorer so a reply that is no answer (silence, a
  reasoning model out of tokens, a provider's safety filter, a refusal flag,
  an API error text) is scored by what kind of non-answer it is, and never
  reaches the scorer or its judge; answers are scored by the scorer, unchanged.
* :func:`classify` gives the class of the model under test's reply in a sample
  (an :class:`~inspect_ai.log.EvalSample` from a log, or the
  :class:`~inspect_ai.solver.TaskState` a scorer receives), exactly as
  empties' Go classifier does; :func:`choose_reply` says which output is the
  reply (the first or the final generation of the model under test).

``python -m empties classify PATH...`` classifies every sample of a folder of
logs. What the empty-responses study itself runs (its evals' settings, the
replay solver, the re-run runner) is in :mod:`empties.study`, which this
module does not import.
"""

from .classify import CLASSES, ClassName, ReplyClass, classify, classify_reply, is_non_answer
from .reply import REPLY_RULES, Reply, ReplyRule, choose_reply
from .scorer import Touch, class_aware, non_answer_score
from .vocabulary import vocabulary

from ._version import __version__
INSPECT_AI_TESTED = ("0.3.278", "0.3.285")
"""The oldest and the newest inspect_ai release the package is tested with (the
range it declares, ``inspect_ai>=0.3.278``; the newest is the one empties pins)."""

__all__ = [
    "CLASSES",
    "INSPECT_AI_TESTED",
    "REPLY_RULES",
    "ClassName",
    "Reply",
    "ReplyClass",
    "ReplyRule",
    "Touch",
    "choose_reply",
    "class_aware",
    "classify",
    "classify_reply",
    "is_non_answer",
    "non_answer_score",
    "vocabulary",
    "__version__",
]
