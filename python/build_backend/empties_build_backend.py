"""The package's build backend: setuptools, run on a copy of the source, so a build writes nothing into it.

setuptools writes its work (``build/``, ``src/empties.egg-info``) into the
folder it builds, so ``python -m build``, ``pip wheel ./python`` and ``pip
install ./python`` left it in ``python/``, and a read-only checkout could not
be built at all. Each hook here copies the source to a temporary folder, runs
setuptools' own hook there, and puts the result where the frontend asked.
An editable install (``pip install -e``) runs in place: it is made to point at
the source.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from setuptools import build_meta as _setuptools

# what is not copied: setuptools' own work, and the tools' caches
_IGNORE = shutil.ignore_patterns("build", "dist", "*.egg-info", "__pycache__", ".mypy_cache", ".pytest_cache")


@contextmanager
def _in_a_copy() -> Iterator[None]:
    source = os.getcwd()
    with tempfile.TemporaryDirectory(prefix="empties-build-") as tmp:
        work = os.path.join(tmp, "source")
        shutil.copytree(source, work, ignore=_IGNORE)
        os.chdir(work)
        try:
            yield
        finally:
            os.chdir(source)


def _abs(path: str | None) -> str | None:
    # the frontend names its folders relative to the source folder
    return os.path.abspath(path) if path is not None else None


def build_sdist(sdist_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    out = _abs(sdist_directory)
    with _in_a_copy():
        return str(_setuptools.build_sdist(out, config_settings))


def build_wheel(
    wheel_directory: str, config_settings: dict[str, Any] | None = None, metadata_directory: str | None = None
) -> str:
    out, metadata = _abs(wheel_directory), _abs(metadata_directory)
    with _in_a_copy():
        return str(_setuptools.build_wheel(out, config_settings, metadata))


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: dict[str, Any] | None = None) -> str:
    out = _abs(metadata_directory)
    with _in_a_copy():
        return str(_setuptools.prepare_metadata_for_build_wheel(out, config_settings))


def get_requires_for_build_sdist(config_settings: dict[str, Any] | None = None) -> list[str]:
    with _in_a_copy():  # setuptools runs egg_info to answer
        return list(_setuptools.get_requires_for_build_sdist(config_settings))


def get_requires_for_build_wheel(config_settings: dict[str, Any] | None = None) -> list[str]:
    with _in_a_copy():
        return list(_setuptools.get_requires_for_build_wheel(config_settings))


build_editable = _setuptools.build_editable
get_requires_for_build_editable = _setuptools.get_requires_for_build_editable
prepare_metadata_for_build_editable = _setuptools.prepare_metadata_for_build_editable
