"""Loaded first (``-p tests.xdist_isolation`` in pyproject's addopts): under pytest-xdist each
worker gets its own cache key prefix, so the workers sharing one Redis (CI) never see, or
delete, each other's keys (every test empties its prefix). The test databases are already
per worker (pytest-django). Runs before Django reads its settings."""

from __future__ import annotations

import os

_worker = os.environ.get("PYTEST_XDIST_WORKER")
if _worker:
    os.environ["CACHE_KEY_PREFIX"] = f"{os.environ.get('CACHE_KEY_PREFIX', 'marketdata')}-{_worker}"
