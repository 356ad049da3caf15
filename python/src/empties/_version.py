"""The package's version (one place: pyproject.toml's is checked against it)."""

__version__ = "0.1.0"
