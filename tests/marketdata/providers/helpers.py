"""Helpers for the Yahoo parser tests: list recordings and rebuild Yahoo's {raw, fmt} shape."""

from __future__ import annotations

from typing import Any

from tests.conftest import UPSTREAM_DIR


def recordings(folder: str, pattern: str = "*.json") -> list[str]:
    """Relative paths (for ``load_recording``) of the recordings in ``folder``; empty when the
    shared folder is absent (the parametrised test is then skipped)."""
    base = UPSTREAM_DIR / folder
    if not base.is_dir():
        return []
    return sorted(str(p.relative_to(UPSTREAM_DIR)) for p in base.glob(pattern))


def wrap_numbers(value: Any, skip: frozenset[str] = frozenset()) -> Any:
    """Every number -> ``{"raw": n, "fmt": "..."}`` (Yahoo's formatted=true shape); keys in
    ``skip`` keep their value as is."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float):
        return {"raw": value, "fmt": f"{value:,.2f}"}
    if isinstance(value, list):
        return [wrap_numbers(v, skip) for v in value]
    if isinstance(value, dict):
        return {k: v if k in skip else wrap_numbers(v, skip) for k, v in value.items()}
    return value


def numeric_leaves(value: Any, path: tuple = ()) -> list[tuple[tuple, float]]:
    """(path, number) for every number in a JSON value."""
    if isinstance(value, bool):
        return []
    if isinstance(value, int | float):
        return [(path, value)]
    if isinstance(value, list):
        return [leaf for i, v in enumerate(value) for leaf in numeric_leaves(v, (*path, i))]
    if isinstance(value, dict):
        return [leaf for k, v in value.items() for leaf in numeric_leaves(v, (*path, k))]
    return []


def at_path(value: Any, path: tuple) -> Any:
    for part in path:
        value = value[part]
    return value


def symbol_from_filename(name: str) -> str:
    """INDEX.md naming: ``^`` -> ``idx_``, ``=`` -> ``_``."""
    stem = name.rsplit("/", 1)[-1].removesuffix(".json")
    if stem.startswith("idx_"):
        stem = "^" + stem[4:]
    return stem.replace("_", "=")
