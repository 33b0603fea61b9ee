"""Fan-out of blocking provider calls onto a shared thread pool (``run_parallel``), and
dedicated bounded pools whose batches end at a deadline (``DeadlinePool``).

Each task runs in a copy of the caller's context, so the correlation id (structlog context
variables) and the request's cache report follow the work into the pool's threads.
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from marketdata import cache_report, lanes
from marketdata.errors import (
    IncompleteAnswer,
    MarketDataError,
    NotFound,
    UpstreamError,
    telling_failure,
)
from marketdata.logs import get_logger

log = get_logger("marketdata.concurrency")

T = TypeVar("T")
R = TypeVar("R")

class LazyPool:
    """A bounded thread pool, created on first use. Every task runs in a copy of the
    submitting caller's context. ``max_workers`` may be a function, read when the pool is
    created (a size from settings)."""

    def __init__(self, max_workers: int | Callable[[], int], thread_name_prefix: str) -> None:
        self.max_workers = max_workers
        self.thread_name_prefix = thread_name_prefix
        self._pool: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> ThreadPoolExecutor:
        if self._pool is None:
            with self._lock:
                if self._pool is None:
                    size = self.max_workers if isinstance(self.max_workers, int) \
                        else self.max_workers()
                    self._pool = ThreadPoolExecutor(max_workers=size,
                                                    thread_name_prefix=self.thread_name_prefix)
        return self._pool

    def submit(self, fn: Callable[..., R], *args: object) -> Future[R]:
        return self._executor().submit(contextvars.copy_context().run, fn, *args)


def _outcome(future: Future[R]) -> R | BaseException:
    """A finished future's result, or the exception it raised."""
    try:
        return future.result()
    except Exception as exc:  # noqa: BLE001 - returned to the caller to decide
        return exc


def _fan_out_threads() -> int:
    """As many as the request threads (``WEB_THREADS``): the lanes' shares, which bound
    how many threads one upstream may hold, are fractions of that number in both pools."""
    from django.conf import settings

    return int(getattr(settings, "WEB_THREADS", 64))


_SHARED = LazyPool(max_workers=_fan_out_threads, thread_name_prefix="upstream")


def run_parallel(fn: Callable[[T], R], items: Iterable[T], *,
                 max_parallel: int | None = None) -> list[R | BaseException]:
    """Apply ``fn`` to every item concurrently; results (or raised exceptions) in order.

    A single item runs inline: no thread hop for the common one-symbol request.
    ``max_parallel``: at most that many items in flight at once (a new one starts as one
    finishes), so a long fan-out (a file per trading day) holds that many of the shared
    pool's threads, not one per item.

    Items refused by a full upstream lane (:class:`marketdata.lanes.LaneFull`) run again
    once the others have finished: a large fan-out fills its lane with its own items, and
    the rest get in as they leave. When a round serves none of them, the lane is held by
    other requests: the refusal is raised, and the request is parked (its served items
    are in the cache for its next run).
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
    if max_parallel is not None and len(items) > max_parallel:
        return _run_bounded(fn, items, max(1, max_parallel))
    results: list[R | BaseException | None] = [None] * len(items)
    pending = list(range(len(items)))
    while True:
        futures = [(index, _SHARED.submit(fn, items[index])) for index in pending]
        refused: list[int] = []
        full: lanes.LaneFull | None = None
        for index, future in futures:
            try:
                results[index] = future.result()
            except lanes.LaneFull as exc:
                refused.append(index)
                full = exc
            except Exception as exc:  # noqa: BLE001 - returned to the caller to decide
                results[index] = exc
        if full is None:
            return results  # type: ignore[return-value]  # every slot is filled now
        if len(refused) == len(pending):
            raise full
        pending = refused


def _run_bounded(fn: Callable[[T], R], items: list[T],
                 limit: int) -> list[R | BaseException]:
    """:func:`run_parallel` with at most ``limit`` items in flight: a sliding window over
    the items. An item a full lane refused waits until one of this fan-out's own items
    has left (then it is queued again first); when none of them is in flight to leave,
    the lane is held by other requests and the refusal is raised (the request is parked),
    as in :func:`run_parallel`."""
    results: list[R | BaseException | None] = [None] * len(items)
    pending: deque[int] = deque(range(len(items)))
    refused: list[int] = []
    in_flight: dict[Future[R], int] = {}
    full: lanes.LaneFull | None = None
    while pending or in_flight or refused:
        while pending and len(in_flight) < limit:
            index = pending.popleft()
            in_flight[_SHARED.submit(fn, items[index])] = index
        if not in_flight:
            assert full is not None  # only refused items are left
            raise full
        done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
        left = False
        for future in done:
            index = in_flight.pop(future)
            try:
                results[index] = future.result()
                left = True
            except lanes.LaneFull as exc:
                refused.append(index)
                full = exc
            except Exception as exc:  # noqa: BLE001 - returned to the caller to decide
                results[index] = exc
                left = True
        if left and refused:
            pending.extendleft(reversed(refused))
            refused = []
    return results  # type: ignore[return-value]  # every slot is filled now


class BatchTimeout(TimeoutError):
    """A task of a :class:`DeadlinePool` batch had not finished when the batch's deadline
    passed. ``started`` tells a task that was still running (its thread is abandoned, the
    result ignored) from one still queued (cancelled, never run)."""

    def __init__(self, timeout: float, started: bool) -> None:
        self.timeout = timeout
        self.started = started
        super().__init__(f"timed out after {float(timeout)} s"
                         + ("" if started else " (never started: the pool was busy)"))


class DeadlineBatch(Generic[R]):
    """Tasks submitted to a :class:`DeadlinePool`, all due at one deadline (by default
    ``timeout`` seconds after submission). The caller may do other work before collecting
    :meth:`results`."""

    def __init__(self, futures: list[Future[R]], timeout: float, deadline: float) -> None:
        self._futures = futures
        self.timeout = timeout
        self.deadline = deadline

    def results(self) -> list[R | BaseException]:
        """Results (or raised exceptions, or :class:`BatchTimeout`) in order, returned
        by the deadline at the latest: tasks still queued then are cancelled, tasks still
        running are abandoned."""
        wait(self._futures, timeout=max(0.0, self.deadline - time.monotonic()))
        out: list[R | BaseException] = []
        for future in self._futures:
            if not future.done() and future.cancel():
                out.append(BatchTimeout(self.timeout, started=False))
            elif not future.done():
                out.append(BatchTimeout(self.timeout, started=True))
            else:
                outcome = _outcome(future)  # solved on its own (see run_parallel)
                out.append(outcome)
        return out


class DeadlinePool(LazyPool):
    """A dedicated, bounded pool whose batches end at a deadline.

    Unlike :func:`run_parallel` (which waits for every task), a batch's results are
    collected when every task finished or when ``timeout`` seconds have passed since the
    batch was submitted, whichever comes first: tasks still queued then are cancelled
    (never run), tasks still running are abandoned (a thread cannot be stopped; it finishes
    in the background and its result is dropped). Either way their slot in the results
    holds a :class:`BatchTimeout`.

    Use it for work that itself fans out on the shared pool (``run_parallel``): running such
    work on the shared pool could leave every shared thread waiting on tasks queued behind
    it. Each task runs in a copy of the caller's context, like ``run_parallel``.
    """

    def start(self, calls: Sequence[Callable[[], R]], timeout: float,
              deadline: float | None = None) -> DeadlineBatch[R]:
        """Submit every ``calls[i]()``; collect with :meth:`DeadlineBatch.results`. The
        batch is due ``timeout`` seconds from now, or at ``deadline`` (a ``time.monotonic``
        value) when the caller's budget started earlier."""
        if deadline is None:
            deadline = time.monotonic() + timeout
        futures = [self.submit(call) for call in calls]
        return DeadlineBatch(futures, timeout, deadline)

    def run(self, calls: Sequence[Callable[[], R]],
            timeout: float) -> list[R | BaseException]:
        """Call every ``calls[i]()`` concurrently; results (or raised exceptions, or
        :class:`BatchTimeout`) in order, within ``timeout`` seconds."""
        return self.start(calls, timeout).results()


@dataclass
class PartialResult(Generic[T, R]):
    """What a fan-out could serve: values in input order, the items left out and why.

    ``left_out`` has every item that was not served, in input order; of those,
    ``not_found`` are the ones the upstream does not know (a normal answer) and
    ``failures`` the ones that failed otherwise (an upstream error, an unusable answer).
    """

    values: list[tuple[T, R]] = field(default_factory=list)
    left_out: list[tuple[T, MarketDataError]] = field(default_factory=list)

    @property
    def not_found(self) -> list[tuple[T, MarketDataError]]:
        return [(item, e) for item, e in self.left_out if isinstance(e, NotFound)]

    @property
    def failures(self) -> list[tuple[T, MarketDataError]]:
        return [(item, e) for item, e in self.left_out if not isinstance(e, NotFound)]

    @property
    def upstream_failed(self) -> bool:
        return any(isinstance(e, UpstreamError) for _, e in self.left_out)

    def telling_failure(self) -> MarketDataError | None:
        """The upstream failure to report when nothing could be served (see
        :func:`marketdata.errors.telling_failure`: the upstream's own answers first, this
        server's own limits next, breaker refusals last); None when no item failed
        upstream."""
        return telling_failure([e for _, e in self.left_out if isinstance(e, UpstreamError)])

    def raise_if_nothing_served(self) -> None:
        """A v2 batch of which nothing was served because of an upstream failure: raise
        it (a 5xx/429 naming the provider, not a 200 listing every item as an error)."""
        if not self.values and self.upstream_failed:
            failure = self.telling_failure()
            if failure is not None:
                raise failure

    def raise_if_empty(self, nothing: Callable[[], MarketDataError]) -> None:
        """Nothing served: raise the telling upstream failure, else ``nothing()``."""
        if not self.values:
            raise self.telling_failure() or nothing()

    def errors(self, label: Callable[[T], str] = str) -> list[dict[str, str]]:
        """``[{symbol, message}]`` for every item left out, in input order (v2 batches)."""
        return [{"symbol": label(item), "message": e.detail} for item, e in self.left_out]


def gather_partial(fn: Callable[[T], R], items: Iterable[T], *,
                   what: str = "item", label: Callable[[T], str] = str,
                   log_fields: Callable[[T], dict[str, Any]] | None = None,
                   accept: Callable[[R], bool] | None = None,
                   max_parallel: int | None = None) -> PartialResult[T, R]:
    """Serve what you can: ``fn`` over ``items`` concurrently (see :func:`run_parallel`),
    sorted into values and items left out.

    Domain errors (:class:`MarketDataError`) leave the item out and are logged at WARNING
    (``<what> left out``, with ``log_fields(item)`` or ``{what: label(item)}``); anything
    else is a bug and is raised. ``accept`` may refuse a value (e.g. an answer without a
    price): that item fails with :class:`IncompleteAnswer`. When an item fails upstream the
    request's answer is marked partial, so no cache keeps it. ``max_parallel`` bounds the
    items in flight (:func:`run_parallel`).
    """
    items = list(items)
    result: PartialResult[T, R] = PartialResult()
    outcomes = run_parallel(fn, items, max_parallel=max_parallel)
    for item, outcome in zip(items, outcomes, strict=True):
        if not isinstance(outcome, BaseException):
            if accept is None or accept(outcome):
                result.values.append((item, outcome))
                continue
            outcome = IncompleteAnswer(f"No usable data for {label(item)}")
        elif not isinstance(outcome, MarketDataError):
            raise outcome
        fields = log_fields(item) if log_fields else {what: label(item)}
        log.warning(f"{what} left out", **fields, reason=outcome.detail,
                    error=type(outcome).__name__)
        result.left_out.append((item, outcome))
    if result.upstream_failed:
        cache_report.note_incomplete()
    return result


def batch_by_symbol(fetch: Callable[[str], Any], symbols: Iterable[str],
                    member: str | None, *, what: str,
                    ) -> tuple[list[Any], list[dict[str, str]]]:
    """A v2 batch: ``[{symbol, <member>: answer}]`` (the answer itself when ``member`` is
    None) in request order, and ``[{symbol, message}]`` for the symbols left out. When none
    was served because of an upstream failure, that failure is raised."""
    fetched = gather_partial(fetch, symbols, what=what)
    fetched.raise_if_nothing_served()
    items = [answer if member is None else {"symbol": symbol, member: answer}
             for symbol, answer in fetched.values]
    return items, fetched.errors()
