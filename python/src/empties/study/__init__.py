"""The empty-responses study's side of the package: what empties' own runs use, not what an eval needs.

* :data:`EVALS` holds the ``class_aware`` settings of the study's evals, read
  from empties' eval profiles (``EVALS["xstest_safe"].wrap(scorer)``).
* :func:`replay` is a solver that sets a sample's reply to a given text
  without calling the model under test (``--solver empties/replay``), for
  grading a reply with the eval's own judge.
* :mod:`empties.study.rerun` runs the groups of an ``empties rerun`` plan
  (``python -m empties rerun SPEC``; imported only when it runs).

``import empties`` (the scorer and the classifier) does not import this module.
"""

from .evals import EVALS, EvalSettings, eval_settings, settings_for_task
from .replay import replay

__all__ = ["EVALS", "EvalSettings", "eval_settings", "replay", "settings_for_task"]
