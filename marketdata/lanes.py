"""Lanes: how many threads one upstream endpoint, and one provider, may hold at once.

Why: the views are synchronous, so a request waiting on an upstream holds a worker thread
for as long as it waits. Threads are the scarce resource of a worker (``WEB_THREADS``
serve every request that is not a cache hit), so one slow or hanging upstream endpoint
must never hold them all: it would freeze every other provider and endpoint with it.

A lane counts its *occupants*: threads inside it, whether their call is in flight or
waiting for a slot. Each lane has

- a **capacity**: calls in flight at once (what the upstream and our sockets see);
- a **share**: occupants at most (what our threads see), below the thread pool's size.

Every upstream call enters two lanes, its endpoint's (Yahoo's ``chart``) and its
provider's (``yahoo``): an endpoint's capacity is below its provider's, so a slow endpoint
leaves slots for the provider's others, and both shares are below the pool's size, so a
hanging provider leaves threads for the rest. A provider's *own lanes* (Yahoo's cookie and
crumb handshake, ``auth.*``) do not count against the provider's lane at all: the calls
every other call depends on never queue behind them. Threads waiting for another thread's
answer (single-flight waiters, the handshake lock) occupy the provider's lane too
(``UpstreamClient.waiting``), with no slot.

A request thread that finds a share full does not wait for room. In a request that may be
*parked* (:func:`parking`; the serving front sets it), :class:`LaneFull` unwinds the
request without an answer: the front holds it on the event loop, with no thread, until an
occupant leaves (:meth:`Lane.when_room`), then runs it again, at the latest at its
deadline. A fan-out task of such a request raises it too, and the fan-out helper runs the
items a full lane refused again once their siblings have left it
(:func:`marketdata.concurrency.run_parallel`): a request's own fan-out never parks it.
Work outside a request (health checks, stream pollers, background refreshes) runs on
pools of its own, so it waits for room, within its deadline, then gets an
:class:`~marketdata.errors.UpstreamBusy` (503).
"""

from __future__ import annotations

import contextvars
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from marketdata import deadline
from marketdata.errors import UpstreamBusy


class LaneFull(BaseException):
    """A lane's share is full and the current request may be parked.

    A BaseException so that no ``except Exception`` on the way (views, DRF, Django's
    handler, fan-out helpers) turns it into an answer: it unwinds the whole request to the
    serving front, which parks it. ``busy`` is the error to answer with where a request
    cannot be parked."""

    def __init__(self, lane: Lane, busy: UpstreamBusy) -> None:
        super().__init__(busy.detail)
        self.lane = lane
        self.busy = busy


_parking: contextvars.ContextVar[bool] = contextvars.ContextVar("lanes_parking",
                                                                 default=False)


@contextmanager
def parking(allowed: bool) -> Iterator[None]:
    """Whether a full lane parks the current request (:class:`LaneFull`) in the block, or
    (not allowed) the thread waits for room within its deadline and then gets a 503.
    Fan-out tasks inherit it (they run in a copy of the caller's context)."""
    token = _parking.set(allowed)
    try:
        yield
    finally:
        _parking.reset(token)


def parking_allowed() -> bool:
    return _parking.get()


class Lane:
    """Occupants (at most ``share``) and in-flight slots (``capacity``) of one lane."""

    def __init__(self, name: str, label: str, provider: str, capacity: int,
                 share: int) -> None:
        self.name = name
        self.label = label  # for messages: "Yahoo Finance (chart)"
        self.provider = provider
        self.capacity = max(1, capacity)
        self.share = max(1, share)
        self._slots = threading.BoundedSemaphore(self.capacity)
        self._lock = threading.Lock()
        self._room = threading.Condition(self._lock)
        self._occupants = 0
        self._in_flight = 0
        self._parked: deque[Callable[[], None]] = deque()

    # -- occupants ------------------------------------------------------------------------
    def admit(self, timeout: float = 0.0) -> bool:
        """Count one more occupant, unless the share is full (and stays full for
        ``timeout`` seconds)."""
        with self._room:
            if self._occupants >= self.share:
                if timeout <= 0 or not self._room.wait_for(
                        lambda: self._occupants < self.share, timeout):
                    return False
            self._occupants += 1
            return True

    def leave(self) -> None:
        """One occupant less; a thread waiting for room, and a parked request (if any), are
        told there is room."""
        with self._room:
            self._occupants -= 1
            self._room.notify()
            wake = self._parked.popleft() if self._parked else None
        if wake is not None:
            wake()

    def pass_on(self) -> None:
        """A woken request was answered: when the room it was woken for is still free
        (its new run did not need the lane after all), wake the next parked one."""
        with self._lock:
            wake = self._parked.popleft() if self._parked and \
                self._occupants < self.share else None
        if wake is not None:
            wake()

    def when_room(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback`` (from any thread) once an occupant leaves, or at once when the
        share has room now. Returns a function that withdraws the callback."""
        with self._lock:
            if self._occupants < self.share:
                ready = True
            else:
                ready = False
                self._parked.append(callback)
        if ready:
            callback()

        def withdraw() -> None:
            with self._lock:
                try:
                    self._parked.remove(callback)
                except ValueError:
                    pass

        return withdraw

    # -- in-flight slots ------------------------------------------------------------------
    def acquire_slot(self, timeout: float) -> bool:
        if not self._slots.acquire(timeout=max(0.0, timeout)):
            return False
        with self._lock:
            self._in_flight += 1
        return True

    def release_slot(self) -> None:
        with self._lock:
            self._in_flight -= 1
        self._slots.release()

    def snapshot(self) -> LaneState:
        with self._lock:
            return LaneState(self.provider, self.name, self._occupants, self._in_flight,
                             len(self._parked), self.capacity, self.share)

    def busy(self) -> UpstreamBusy:
        return UpstreamBusy(self.provider, f"{self.label} is busy: {self.share} requests of "
                            "this server are already waiting on it; retry later")


@dataclass(frozen=True)
class LaneState:
    """A lane as shown in ``/v1/health`` and ``/metrics``."""

    provider: str
    lane: str
    occupants: int
    in_flight: int
    parked: int
    capacity: int
    share: int

    def as_dict(self) -> dict[str, object]:
        return {"provider": self.provider, "lane": self.lane, "occupants": self.occupants,
                "in_flight": self.in_flight, "parked": self.parked,
                "capacity": self.capacity, "share": self.share}


class Ticket:
    """The lanes one call occupies (entered in order, left in reverse)."""

    def __init__(self, lanes: tuple[Lane, ...]) -> None:
        self.lanes = lanes
        self._left = False

    @contextmanager
    def slots(self, finish: float, on_timeout: Callable[[], BaseException]) -> Iterator[None]:
        """An in-flight slot in every lane of the ticket, waited for until ``finish`` (a
        ``time.monotonic()`` value); ``on_timeout()`` is raised when one does not come."""
        taken: list[Lane] = []
        try:
            for lane in self.lanes:
                if not lane.acquire_slot(finish - time.monotonic()):
                    raise on_timeout()
                taken.append(lane)
            yield
        finally:
            for lane in reversed(taken):
                lane.release_slot()

    def leave(self) -> None:
        if not self._left:
            self._left = True
            for lane in reversed(self.lanes):
                lane.leave()

    def __enter__(self) -> Ticket:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.leave()


def enter(*lanes: Lane) -> Ticket:
    """Occupy every lane (all or none). A full one raises :class:`LaneFull` in a request
    that may be parked; elsewhere the thread waits for room until the deadline in force
    (or ``REQUEST_DEADLINE_SECONDS``), then gets that lane's :class:`UpstreamBusy`."""
    admitted: list[Lane] = []
    parking_ok = _parking.get()
    until: float | None = None
    for lane in lanes:
        if lane.admit():
            admitted.append(lane)
            continue
        if not parking_ok:
            if until is None:
                until = deadline.current() or time.monotonic() + deadline.default_seconds()
            if lane.admit(until - time.monotonic()):
                admitted.append(lane)
                continue
        for done in reversed(admitted):
            done.leave()
        busy = lane.busy()
        raise LaneFull(lane, busy) if parking_ok else busy
    return Ticket(tuple(admitted))


@dataclass(frozen=True)
class LanePolicy:
    """How lanes are sized: ``provider_capacity`` calls in flight per provider (its own
    ``max_concurrency``, else ``UPSTREAM_MAX_CONCURRENCY``), shares in threads."""

    endpoint_share: int
    provider_share: int

    @staticmethod
    def endpoint_capacity(provider_capacity: int) -> int:
        """An endpoint may fill its provider's slots but a quarter (at least one slot is
        kept for the others, when there is more than one)."""
        if provider_capacity <= 1:
            return 1
        return provider_capacity - max(1, provider_capacity // 4)


class LaneSet:
    """Every lane of one upstream client, created on first use."""

    def __init__(self, policy: LanePolicy) -> None:
        self.policy = policy
        self._lanes: dict[tuple[str, str], Lane] = {}
        self._lock = threading.Lock()

    def _lane(self, provider: str, name: str, label: str, capacity: int,
              share: int) -> Lane:
        key = (provider, name)
        lane = self._lanes.get(key)
        if lane is None:
            with self._lock:
                lane = self._lanes.get(key)
                if lane is None:
                    lane = Lane(name, label, provider, capacity, share)
                    self._lanes[key] = lane
        return lane

    def provider_lane(self, provider: str, display_name: str, capacity: int) -> Lane:
        return self._lane(provider, "", display_name, capacity, self.policy.provider_share)

    def for_call(self, provider: str, display_name: str, endpoint: str, capacity: int,
                 own: bool) -> tuple[Lane, ...]:
        """The lanes a call to ``endpoint`` enters: its own lane alone (a handshake), else
        the endpoint's lane and the provider's."""
        label = f"{display_name} ({endpoint})"
        if own:
            return (self._lane(provider, endpoint, label, capacity,
                               self.policy.endpoint_share),)
        return (self._lane(provider, endpoint, label,
                           LanePolicy.endpoint_capacity(capacity), self.policy.endpoint_share),
                self.provider_lane(provider, display_name, capacity))

    def states(self) -> list[LaneState]:
        return sorted((lane.snapshot() for lane in list(self._lanes.values())),
                      key=lambda s: (s.provider, s.lane))
