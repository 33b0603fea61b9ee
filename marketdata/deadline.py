"""The request deadline: one point in time by which the current request must be answered.

Set once per request (``apps.core.middleware``, from the moment the request arrived at the
ASGI front, so a wait for a worker thread counts) and read by everything that may wait:
the upstream client (attempt timeouts shrink to the time left; no retry or backoff past
it; a lane's slot is waited for only within it), the cache (single-flight waits) and
fallbacks (a primary provider gets only a share of it). It lives in a context variable,
so it follows fan-out tasks into pool threads (:mod:`marketdata.concurrency` copies the
caller's context).

Work outside a request (stream pollers, management commands) has no deadline; the
upstream client then bounds each call by ``REQUEST_DEADLINE_SECONDS`` from its start.

The stale budget: a request that holds a stale copy of an upstream answer waits for the
upstream at most ``STALE_GRACE_SECONDS`` before it serves the copy (:mod:`marketdata.cache`).
That budget belongs to the whole answer, not to each upstream call behind it: the
middleware gives each request one :class:`StaleBudget` (in a context variable, so the
fan-out's pool threads share it), which starts at the request's first wait with a stale
copy in hand; every later such wait, in sequence or in parallel, ends when it ends. An
answer built from many calls (press releases: ticker table, filing list, one index and one
exhibit per filing) is then served stale within the same short budget as a single call,
instead of waiting the grace once per call (issue 39: 6.5 s and 9.9 s instead of ~2 s).
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

from django.conf import settings

# Where config.asgi stamps a request's arrival (a time.monotonic() value) in its ASGI scope;
# the deadline counts from there.
ARRIVAL_KEY = "marketdata.arrival"

# Kept at the end of a request's deadline for answering: waits on an upstream end this much
# earlier, so the answer they lead to (a 504, say) is sent by the deadline, not after it.
ANSWER_MARGIN_SECONDS = 0.1

_deadline: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "request_deadline", default=None)


def default_seconds() -> float:
    """``REQUEST_DEADLINE_SECONDS`` (10 by default)."""
    return float(getattr(settings, "REQUEST_DEADLINE_SECONDS", 10.0))


def stale_grace_seconds() -> float:
    """How long a request with a stale copy in hand waits for the upstream
    (``STALE_GRACE_SECONDS``, 2 by default)."""
    return float(getattr(settings, "STALE_GRACE_SECONDS", 2.0))


class StaleBudget:
    """The time one request may wait for upstreams while it holds stale copies: ``seconds``
    from its first such wait (:meth:`ends`), shared by every wait of the request."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.started: float | None = None
        self._lock = threading.Lock()

    def ends(self, now: float) -> float:
        """When a wait starting ``now`` must end: the budget's end (started now by the
        first wait)."""
        with self._lock:
            if self.started is None:
                self.started = now
            return self.started + self.seconds


_stale_budget: contextvars.ContextVar[StaleBudget | None] = contextvars.ContextVar(
    "stale_budget", default=None)


def stale_wait_until(now: float) -> float:
    """When a wait for an upstream that starts ``now`` (a monotonic time) with a stale
    copy in hand must end: the request's stale budget's end, or ``now`` plus the grace
    outside a request (no budget)."""
    budget = _stale_budget.get()
    if budget is None:
        return now + stale_grace_seconds()
    return budget.ends(now)


def current_stale_budget() -> StaleBudget | None:
    return _stale_budget.get()


@contextmanager
def stale_budget(budget: StaleBudget | None = None) -> Iterator[StaleBudget]:
    """Run the block (one request) with ``budget``, by default a fresh one of
    ``STALE_GRACE_SECONDS``."""
    if budget is None:
        budget = StaleBudget(stale_grace_seconds())
    token = _stale_budget.set(budget)
    try:
        yield budget
    finally:
        _stale_budget.reset(token)


def current() -> float | None:
    """The deadline as a ``time.monotonic()`` value, or None outside a request."""
    return _deadline.get()


def remaining() -> float | None:
    """Seconds left before the deadline (may be negative), or None when there is none."""
    at = _deadline.get()
    return None if at is None else at - time.monotonic()


def set_deadline(at: float | None) -> contextvars.Token:
    """Set the deadline (a monotonic time) for the current context; reset with the token."""
    return _deadline.set(at)


def reset(token: contextvars.Token) -> None:
    _deadline.reset(token)


@contextmanager
def within(seconds: float) -> Iterator[float]:
    """Run the block with a deadline at most ``seconds`` from now (never later than the
    one already in force). Yields the effective deadline."""
    at = time.monotonic() + max(0.0, seconds)
    outer = _deadline.get()
    if outer is not None:
        at = min(at, outer)
    token = _deadline.set(at)
    try:
        yield at
    finally:
        _deadline.reset(token)


@contextmanager
def share(fraction: float) -> Iterator[float]:
    """Run the block with ``fraction`` of the time left (for a primary provider that has a
    fallback: the fallback keeps the rest). Without a deadline, of the default budget."""
    left = remaining()
    budget = default_seconds() if left is None else max(0.0, left)
    with within(budget * fraction) as at:
        yield at
