"""One connection's quote stream: subscribe, merge per-symbol updates per cycle, write SSE.

The connection's channel joins the group of each of its symbols. Pollers publish one message
per symbol per cycle; :class:`CycleMerger` turns a cycle's messages into one ``quote`` event
(the latest quote of every symbol, in request order) and, for symbols whose update failed,
one ``error`` event per distinct reason. The stream never ends on an upstream failure; it
ends when the client leaves (the task is cancelled and everything is released in
``finally``) or the server shuts down.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import orjson

from apps.stream.events import HEARTBEAT, quote_group, sse_event, sse_retry
from apps.stream.hub import MESSAGE_TYPE, get_hub
from marketdata.logs import get_logger

log = get_logger("apps.stream.services")

# Seconds to wait for a detached group operation (Redis) while a connection is torn down.
_RELEASE_TIMEOUT = 2.0


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


async def quote_events(symbols: list[str], initial: dict[str, dict[str, Any]],
                       interval: float, heartbeat: float) -> AsyncIterator[bytes]:
    """The response body of one stream: the first event at once, then one per cycle."""
    hub = get_hub()
    layer = hub.layer
    merger = CycleMerger(symbols, initial, window=min(2.0, interval / 2))
    groups = [quote_group(s) for s in symbols]
    channel = await layer.new_channel(prefix="md.stream.")
    hub.connect(symbols)
    joined: list[str] = []
    receive: asyncio.Future[dict[str, Any]] | None = None
    try:
        for group in groups:
            await layer.group_add(group, channel)
            joined.append(group)
        yield sse_retry(int(interval * 1000)) + sse_event("quote", merger.snapshot())
        last_write = time.monotonic()
        while not hub.closing.done():
            now = time.monotonic()
            wait = last_write + heartbeat - now
            if merger.deadline is not None:
                wait = min(wait, merger.deadline - now)
            if receive is None:
                receive = asyncio.ensure_future(layer.receive(channel))
            await asyncio.wait((receive, hub.closing), timeout=max(0.0, wait),
                               return_when=asyncio.FIRST_COMPLETED)
            out = b""
            now = time.monotonic()
            if receive.done():
                message, receive = receive.result(), None
                if message.get("type") == MESSAGE_TYPE:
                    out = merger.add(message, now)
            if merger.due(now):
                out += merger.flush()
            if not out and now - last_write >= heartbeat:
                out = HEARTBEAT
            if out:
                yield out
                last_write = time.monotonic()
    finally:
        if receive is not None:
            receive.cancel()
        hub.disconnect(symbols)
        try:
            await asyncio.wait_for(
                asyncio.gather(*(layer.group_discard(g, channel) for g in joined)),
                timeout=_RELEASE_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - Redis groups also expire on their own
            log.warning("stream unsubscribe failed", error=f"{type(exc).__name__}: {exc}")
