"""One connection's quote stream: subscribe, keep the latest quotes, write SSE on its own clock.

The hub's shared pollers hand the connection one message per symbol per poll; a
:class:`Snapshot` keeps the latest quote of each symbol and the failures since the last
event. The connection writes on its own schedule, not the pollers': the first ``quote``
event at once, then one event an interval after the previous one was written, so two
events are never closer than the interval whenever the pollers publish. Each event carries
the latest quotes the pollers have, in request order, followed by one ``error`` event per
distinct reason for the symbols whose update failed since the last event. The stream never
ends on an upstream failure; it ends when the client leaves (the ASGI handler cancels it
and ``finally`` unsubscribes) or the server shuts down.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import orjson

from apps.stream.events import HEARTBEAT, sse_event, sse_retry
from apps.stream.hub import get_hub, message_order


class Snapshot:
    """One connection's view of its symbols: the latest quote of each, and what failed.

    Messages no newer than one a symbol has already reported are dropped (a duplicate from
    a second leader, or a late one; :func:`~apps.stream.hub.message_order`).
    """

    def __init__(self, symbols: list[str], initial: dict[str, dict[str, Any]]) -> None:
        self.symbols = symbols
        self.latest = dict(initial)
        self._reported: dict[str, tuple[int, int]] = dict.fromkeys(symbols, (-1, 0))
        self.failing: dict[str, dict[str, Any]] = {}  # symbols whose latest update failed
        self._new_failures: set[str] = set()  # ... and failed since the last event

    def add(self, message: dict[str, Any]) -> None:
        """Take one poller message."""
        symbol, order = message.get("symbol"), message_order(message)
        if symbol not in self._reported or order is None or order <= self._reported[symbol]:
            return
        self._reported[symbol] = order
        if "quote" in message:
            self.latest[symbol] = message["quote"]
            self.failing.pop(symbol, None)
            self._new_failures.discard(symbol)
        else:
            self.failing[symbol] = message.get("error") or {"detail": "Update failed"}
            self._new_failures.add(symbol)

    def quotes(self) -> list[dict[str, Any]]:
        return [self.latest[s] for s in self.symbols if s in self.latest]

    def event(self) -> bytes:
        """What a scheduled event writes: the latest quotes (unless every symbol's latest
        update failed), then one error event per reason for the failures since the last."""
        out = b""
        if len(self.failing) < len(self.symbols):
            out += sse_event("quote", self.quotes())
        reasons: dict[bytes, tuple[dict[str, Any], list[str]]] = {}
        for symbol in self.symbols:  # request order within each reason
            if symbol in self._new_failures:
                body = self.failing[symbol]
                key = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
                reasons.setdefault(key, (body, []))[1].append(symbol)
        for body, symbols in reasons.values():
            out += sse_event("error", {**body, "symbols": symbols})
        self._new_failures.clear()
        return out


class Connection:
    """One open stream as the hub sees it: takes messages, wakes the response on close."""

    def __init__(self, symbols: list[str], initial: dict[str, dict[str, Any]]) -> None:
        self.symbols = symbols
        self.snapshot = Snapshot(symbols, initial)
        self.wake = asyncio.Event()
        self.closed = False

    def deliver(self, message: dict[str, Any]) -> None:
        self.snapshot.add(message)  # written at the connection's next event, not now

    def close(self) -> None:
        self.closed = True
        self.wake.set()

    async def sleep(self, seconds: float) -> None:
        """Wait ``seconds``, or less if the connection closes."""
        timer = asyncio.get_running_loop().call_later(max(0.0, seconds), self.wake.set)
        try:
            await self.wake.wait()
        finally:
            timer.cancel()
            self.wake.clear()  # closing is also a flag, checked after every wait


class ReaderWatch:
    """Whether a stream's client still reads, from the server's view of its connection
    (``config.protocol``'s connection extension: the bytes written and not yet taken).

    A reading client takes each event within a round trip, so between two writes (an
    interval apart) its unsent bytes fall to 0. A client whose unsent bytes never did for
    ``timeout`` seconds has stopped reading: it is dropped (a reset, so the kernel's queue
    for it goes too) and its stream ends."""

    def __init__(self, connection: dict[str, Any] | None, timeout: float,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.unsent = connection.get("unsent_bytes") if connection else None
        self.drop = connection.get("drop") if connection else None
        self.timeout = timeout
        self.clock = clock
        self.since: float | None = None  # when unsent bytes were first seen, still there

    def stalled(self) -> bool:
        """Called before each write: True when the client is to be dropped (done)."""
        if self.unsent is None:
            return False
        if self.unsent() == 0:
            self.since = None
            return False
        now = self.clock()
        if self.since is None:
            self.since = now
            return False
        if now - self.since < self.timeout:
            return False
        if self.drop is not None:
            self.drop()
        return True


async def quote_events(symbols: list[str], initial: dict[str, dict[str, Any]],
                       interval: float, heartbeat: float,
                       on_close: Callable[[], None] | None = None,
                       reader: ReaderWatch | None = None) -> AsyncIterator[bytes]:
    """The response body of one stream: the first event at once, then one per interval.

    Each event is due one interval after the previous one was taken by the server (a
    client that reads slowly gets them further apart, never closer). ``: keep-alive`` goes
    out when nothing was written for ``heartbeat`` seconds. ``on_close`` runs when the
    stream ends, however it ends; ``reader`` ends it when the client stopped reading.
    """
    hub = get_hub()
    connection = Connection(symbols, initial)
    try:
        await hub.connect(connection)
        yield sse_retry(int(interval * 1000)) + sse_event("quote", connection.snapshot.quotes())
        last_event = last_write = time.monotonic()
        while not connection.closed:
            due = last_event + interval
            now = time.monotonic()
            if now < due:
                if now >= last_write + heartbeat:
                    if reader is not None and reader.stalled():
                        return
                    yield HEARTBEAT
                    last_write = time.monotonic()
                else:
                    await connection.sleep(min(due, last_write + heartbeat) - now)
                continue
            out = connection.snapshot.event()
            if out:
                if reader is not None and reader.stalled():
                    return
                yield out
                last_write = time.monotonic()
            last_event = time.monotonic()
    finally:
        if on_close is not None:
            on_close()
        if hub.closing:
            hub.detach_later(connection)
        else:
            await hub.disconnect(connection)
