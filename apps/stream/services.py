"""One connection's quote stream: subscribe, merge per-symbol updates per cycle, write SSE.

The hub hands the connection one message per symbol per cycle; :class:`CycleMerger` turns a
cycle's messages into one ``quote`` event (the latest quote of every symbol, in request
order) and, for symbols whose update failed, one ``error`` event per distinct reason. The
stream never ends on an upstream failure; it ends when the client leaves (the ASGI handler
cancels it and ``finally`` unsubscribes) or the server shuts down.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import orjson

from apps.stream.events import HEARTBEAT, sse_event, sse_retry
from apps.stream.hub import get_hub


class CycleMerger:
    """Collects one connection's updates by cycle and says what to write.

    A cycle is written when every symbol has reported for it, when a message of a later
    cycle arrives, or ``window`` seconds after its first message (a symbol led by a slow
    process must not hold up the others). Messages for a cycle older than one a symbol has
    already reported are dropped (a duplicate or a late leader).
    """

    def __init__(self, symbols: list[str], initial: dict[str, dict[str, Any]],
                 window: float) -> None:
        self.symbols = symbols
        self.latest = dict(initial)
        self.window = window
        self._reported: dict[str, int] = dict.fromkeys(symbols, -1)
        self.cycle: int | None = None
        self.deadline: float | None = None
        self._fresh: set[str] = set()
        self._failed: dict[str, dict[str, Any]] = {}

    def add(self, message: dict[str, Any], now: float) -> bytes:
        """Take one poller message; the bytes to write now (often none)."""
        symbol, cycle = message.get("symbol"), message.get("cycle")
        if symbol not in self._reported or not isinstance(cycle, int) \
                or cycle <= self._reported[symbol]:
            return b""
        out = b""
        if self.cycle is not None and cycle > self.cycle:
            out += self.flush()
        self._reported[symbol] = cycle
        if self.cycle is not None and cycle < self.cycle:  # late: newer data, next event
            if "quote" in message:
                self.latest[symbol] = message["quote"]
            return out
        if self.cycle is None:
            self.cycle, self.deadline = cycle, now + self.window
        if "quote" in message:
            self.latest[symbol] = message["quote"]
            self._fresh.add(symbol)
        else:
            self._failed[symbol] = message.get("error") or {"detail": "Update failed"}
        if len(self._fresh) + len(self._failed) == len(self.symbols):
            out += self.flush()
        return out

    def due(self, now: float) -> bool:
        return self.deadline is not None and now >= self.deadline

    def flush(self) -> bytes:
        """The pending cycle's events: quotes if anything is fresh, then its failures."""
        out = b""
        if self._fresh:
            out += sse_event("quote", self.snapshot())
        reasons: dict[bytes, tuple[dict[str, Any], list[str]]] = {}
        for symbol in self.symbols:  # request order within each reason
            if symbol in self._failed:
                body = self._failed[symbol]
                key = orjson.dumps(body, option=orjson.OPT_SORT_KEYS)
                reasons.setdefault(key, (body, []))[1].append(symbol)
        for body, symbols in reasons.values():
            out += sse_event("error", {**body, "symbols": symbols})
        self.cycle = self.deadline = None
        self._fresh, self._failed = set(), {}
        return out

    def snapshot(self) -> list[dict[str, Any]]:
        return [self.latest[s] for s in self.symbols if s in self.latest]


class Connection:
    """One open stream as the hub sees it: takes messages, wakes the response when due."""

    def __init__(self, symbols: list[str], initial: dict[str, dict[str, Any]],
                 window: float) -> None:
        self.symbols = symbols
        self.merger = CycleMerger(symbols, initial, window)
        self.pending = bytearray()
        self.wake = asyncio.Event()
        self.closed = False

    def deliver(self, message: dict[str, Any]) -> None:
        started = self.merger.deadline is None
        self._write(self.merger.add(message, time.monotonic()))
        if started and self.merger.deadline is not None:  # a cycle began and is incomplete
            delay = self.merger.deadline - time.monotonic()
            asyncio.get_running_loop().call_later(max(0.0, delay), self._flush_if_due)

    def _flush_if_due(self) -> None:
        if self.merger.due(time.monotonic()):
            self._write(self.merger.flush())

    def _write(self, data: bytes) -> None:
        if data:
            self.pending += data
            self.wake.set()

    def close(self) -> None:
        self.closed = True
        self.wake.set()


async def quote_events(symbols: list[str], initial: dict[str, dict[str, Any]],
                       interval: float, heartbeat: float) -> AsyncIterator[bytes]:
    """The response body of one stream: the first event at once, then one per cycle."""
    hub = get_hub()
    connection = Connection(symbols, initial, window=min(2.0, interval / 2))
    loop = asyncio.get_running_loop()
    try:
        await hub.connect(connection)
        yield sse_retry(int(interval * 1000)) + sse_event("quote", connection.merger.snapshot())
        last_write = time.monotonic()
        while not connection.closed:
            if not connection.pending:
                timer = loop.call_later(max(0.0, last_write + heartbeat - time.monotonic()),
                                        connection.wake.set)
                try:
                    await connection.wake.wait()
                finally:
                    timer.cancel()
            connection.wake.clear()
            if connection.pending:
                out = bytes(connection.pending)
                connection.pending.clear()
            elif not connection.closed and time.monotonic() - last_write >= heartbeat:
                out = HEARTBEAT
            else:
                continue
            yield out
            last_write = time.monotonic()
    finally:
        await hub.disconnect(connection)
