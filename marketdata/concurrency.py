"""Fan-out of blocking provider calls onto a shared thread pool.

Each task runs in a copy of the caller's context, so the correlation id (structlog context
variables) and the request's cache report follow the work into the pool's threads.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

_POOL_SIZE = 32
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _get_pool() -> ThreadPoolExecutor:
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                _pool = ThreadPoolExecutor(max_workers=_POOL_SIZE,
                                           thread_name_prefix="upstream")
    return _pool


def run_parallel(fn: Callable[[T], R], items: Iterable[T]) -> list[R | BaseException]:
    """Apply ``fn`` to every item concurrently; results (or raised exceptions) in order.

    A single item runs inline: no thread hop for the common one-symbol request.
    """
    items = list(items)
    if len(items) <= 1:
        out: list[R | BaseException] = []
        for item in items:
            try:
                out.append(fn(item))
            except Exception as exc:  # noqa: BLE001 - returned to the caller to decide
                out.append(exc)
        return out
    pool = _get_pool()
    futures = [pool.submit(contextvars.copy_context().run, fn, item) for item in items]
    results: list[R | BaseException] = []
    for future in futures:
        try:
            results.append(future.result())
        except Exception as exc:  # noqa: BLE001
            results.append(exc)
    return results
