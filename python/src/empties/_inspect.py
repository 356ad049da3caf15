"""The inspect_ai internals the package needs, each with a fallback if a release moves it.

inspect_ai's public API has no way to give a wrapper a scorer's registry entry
(its name, metrics and params: what makes the wrapper's score keep the
scorer's key and the task its metrics), nor to look a registered task up by
name without creating it. Both live in ``inspect_ai._util.registry``, imported
here and nowhere else (``tests/test_inspect_compat.py`` checks that, and that
the fallbacks behave as the real ones). The fallbacks restate what
inspect_ai 0.3.285 does: a registry entry is an attribute of the object.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.util import RegistryInfo, RegistryType, registry_create, registry_info

__all__ = ["REGISTRY_INFO", "REGISTRY_PARAMS", "RegistryInfo", "registered_info", "registry_info", "registry_lookup", "registry_params"]

try:
    from inspect_ai._util.registry import REGISTRY_INFO, REGISTRY_PARAMS, registry_lookup
except ImportError:  # pragma: no cover - a release that moved them; the test reloads this module without them
    REGISTRY_INFO = "__registry_info__"
    REGISTRY_PARAMS = "__registry_params__"

    def registry_lookup(type: RegistryType, name: str) -> object | None:
        """A factory that creates the registered object ``name`` (inspect_ai's public registry_create)."""

        def create(**kwargs: Any) -> object:
            return registry_create(type, name, **kwargs)  # type: ignore[arg-type]

        return create


def registry_params(o: object) -> dict[str, Any] | None:
    """The arguments a registered object was created with, or None."""
    params = getattr(o, REGISTRY_PARAMS, None)
    return params if isinstance(params, dict) else None


def registered_info(o: object) -> RegistryInfo | None:
    """The object's registry entry, or None when it has none."""
    try:
        return registry_info(o)
    except ValueError:
        return None
