"""Run one callable from many threads released at once (single-flight tests)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


def run_threads(n: int, target: Callable[[], Any]) -> list[tuple[str, Any]]:
    """[("ok", value) | ("error", exception)] per thread, in thread order."""
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def worker(i: int) -> None:
        barrier.wait(10)
        try:
            results[i] = ("ok", target())
        except Exception as exc:  # noqa: BLE001 - collected for the assertions
            results[i] = ("error", exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not any(thread.is_alive() for thread in threads)
    return results
