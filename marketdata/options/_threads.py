"""A compiled per-contract kernel run over a chain in chunks, one per core: the kernels
release the GIL (``nogil=True``) and compute each contract on its own, so chunks of a chain
are independent and the answer is the same, element for element, as one call's.

Why: an American IV costs a dozen BS2002 prices a contract and the analytic American
greeks about 1.6 (70 ms and 12 ms of CPU for a 2,000-contract chain on a loaded 2-core
machine); on this project's 2-core machines a chain takes about half that when the other
core is free (bench/README.md, issue 45). One pool per process, as many threads as cores, so
concurrent requests share the cores rather than multiplying threads; a chain under
:data:`MIN_CHUNK` contracts a core is one call (the pool's hand-off costs more).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise
from typing import Any

import numpy as np

MIN_CHUNK = 128  # contracts a thread is worth starting for
_pool: ThreadPoolExecutor | None = None
_lock = threading.Lock()


def cores() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else os.cpu_count() or 1)


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=cores(), thread_name_prefix="option-kernel")
        return _pool


def chunked(kernel: Callable[..., np.ndarray], arrays: Sequence[np.ndarray],
            scalars: Sequence[Any], axis: int) -> np.ndarray:
    """``kernel(*arrays, *scalars)``, the arrays (one contract an element) cut into as many
    contiguous chunks as there are cores and the results joined along ``axis``."""
    n = arrays[0].size
    parts = min(cores(), n // MIN_CHUNK)
    if parts <= 1:
        return kernel(*arrays, *scalars)
    bounds = np.linspace(0, n, parts + 1).astype(int)
    futures = [_executor().submit(kernel, *(a[lo:hi] for a in arrays), *scalars)
               for lo, hi in pairwise(bounds)]
    return np.concatenate([future.result() for future in futures], axis=axis)
