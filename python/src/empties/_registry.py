"""What the package registers with inspect_ai (the ``inspect_ai`` entry point of pyproject.toml).

inspect_ai loads this module when a name in the ``empties/`` namespace is
looked up, so ``--solver empties/replay`` finds :func:`empties.study.replay.replay`
(registered as ``empties/replay``: inspect_ai names an object by its top-level
package, whatever the submodule).
"""

from .study.replay import replay

__all__ = ["replay"]
