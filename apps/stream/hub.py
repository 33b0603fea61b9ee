"""Shared pollers for the quote stream: one per active symbol per process, not per connection.

A :class:`StreamHub` lives in each event loop that serves streams (one per server process).
Connections register their symbols; the first subscriber of a symbol starts its
:class:`Poller`, the last one leaving stops it. Pollers wake at wall-clock multiples of the
interval (the same instants in every process, so a connection can merge updates from
several processes by cycle number) and the pollers that wake together are served by one
:meth:`StreamHub.run_cycle`: one leadership claim, one batch call through the quotes service
(and so through the data cache), then one message per symbol to that symbol's channel-layer
group. A cycle's failure becomes an error message for its symbols; the pollers keep going.
"""

from __future__ import annotations

import asyncio
import os
import time
import weakref
from collections.abc import Callable
from typing import Any

from channels.layers import get_channel_layer
from django.conf import settings

from apps.core.errors import error_body
from apps.stream.events import quote_group
from apps.stream.leadership import Leadership, make_leadership
from marketdata.errors import MarketDataError, NotFound
from marketdata.logs import get_logger

log = get_logger("apps.stream.hub")

# Pollers waking for the same cycle within this window share one claim and one batch call.
COALESCE_SECONDS = 0.02
MESSAGE_TYPE = "stream.update"

Fetch = Callable[[list[str]], dict[str, dict[str, Any]]]


def current_cycle(interval: float) -> int:
    """The number of the cycle now running: wall-clock time in whole intervals."""
    return int(time.time() // interval)


def default_fetch(symbols: list[str]) -> dict[str, dict[str, Any]]:
    from apps.quotes.services import stream_quotes

    return stream_quotes(symbols)


def failure_body(exc: BaseException) -> dict[str, Any]:
    """An error message's reason: the REST error body plus the HTTP status it would have."""
    if isinstance(exc, MarketDataError):
        return {**error_body(exc), "status": exc.status_code}
    return {"detail": "Internal error while fetching quotes", "status": 500}


class Poller:
    """The background task for one symbol: every cycle, ask the hub to poll it."""

    def __init__(self, hub: StreamHub, symbol: str) -> None:
        self.hub = hub
        self.symbol = symbol
        self.subscribers = 0
        self.task = hub.loop.create_task(self._run(), name=f"stream-poller:{symbol}")

    async def _run(self) -> None:
        interval = self.hub.interval
        cycle = current_cycle(interval) + 1
        while True:
            delay = cycle * interval - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
            await self.hub.poll(cycle, self.symbol)
            # A cycle that overran the interval skips the cycles it missed.
            cycle = max(cycle + 1, current_cycle(interval) + 1)


class StreamHub:
    """This event loop's connections, pollers and cycles."""

    def __init__(self, loop: asyncio.AbstractEventLoop, interval: float,
                 leadership: Leadership | None = None, fetch: Fetch = default_fetch) -> None:
        self.loop = loop
        self.interval = interval
        self.leadership = leadership or make_leadership(interval)
        self.fetch = fetch
        self.layer = get_channel_layer()
        self.pollers: dict[str, Poller] = {}
        self.connections = 0
        self.leading: set[str] = set()
        self.cycles_run = 0
        self.closing: asyncio.Future[None] = loop.create_future()
        self._cycles: dict[int, tuple[set[str], asyncio.Future[None]]] = {}
        self._background: set[asyncio.Task[Any]] = set()

    # -- connections ----------------------------------------------------------------------
    def connect(self, symbols: list[str]) -> None:
        """A connection subscribes: start the pollers its symbols do not have yet."""
        self.connections += 1
        for symbol in symbols:
            poller = self.pollers.get(symbol)
            if poller is None:
                poller = self.pollers[symbol] = Poller(self, symbol)
            poller.subscribers += 1

    def disconnect(self, symbols: list[str]) -> None:
        """A connection leaves: stop the pollers it was the last subscriber of."""
        self.connections -= 1
        stopped = []
        for symbol in symbols:
            poller = self.pollers.get(symbol)
            if poller is None:
                continue
            poller.subscribers -= 1
            if poller.subscribers <= 0:
                del self.pollers[symbol]
                poller.task.cancel()
                stopped.append(symbol)
        self.leading.difference_update(stopped)
        if stopped:  # hand the symbols to another process at once rather than at expiry
            self._spawn(self.leadership.release(stopped))

    def _spawn(self, coro: Any) -> None:
        task = self.loop.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # -- cycles ---------------------------------------------------------------------------
    async def poll(self, cycle: int, symbol: str) -> None:
        """Add a symbol to a cycle's batch and wait until that cycle has published."""
        entry = self._cycles.get(cycle)
        if entry is None:
            done: asyncio.Future[None] = self.loop.create_future()
            entry = self._cycles[cycle] = (set(), done)
            self.loop.call_later(COALESCE_SECONDS, self._start_cycle, cycle)
        entry[0].add(symbol)
        # Shielded: a poller stopped mid-cycle must not cancel the others' shared batch.
        await asyncio.shield(entry[1])

    def _start_cycle(self, cycle: int) -> None:
        symbols, done = self._cycles.pop(cycle)
        task = self.loop.create_task(self.run_cycle(cycle, sorted(symbols)))
        task.add_done_callback(lambda t: done.done() or done.set_result(None))

    async def run_cycle(self, cycle: int, symbols: list[str]) -> None:
        """Claim, fetch and publish one cycle for the symbols this process leads."""
        led = sorted(await self.leadership.claim(symbols))
        self.leading = set(led) & set(self.pollers)
        self.cycles_run += 1
        if not led:
            return
        try:
            quotes = await asyncio.to_thread(self.fetch, led)
            failure = None
        except Exception as exc:
            quotes, failure = {}, failure_body(exc)
            if not isinstance(exc, MarketDataError):
                log.exception("stream poll failed", symbols=led)
            else:
                log.warning("stream poll failed", error=exc.detail, status_code=exc.status_code,
                            provider=getattr(exc, "provider", None), symbols=len(led))
        messages = []
        for symbol in led:
            message: dict[str, Any] = {"type": MESSAGE_TYPE, "cycle": cycle, "symbol": symbol}
            if symbol in quotes:
                message["quote"] = quotes[symbol]
            else:
                message["error"] = failure or failure_body(
                    NotFound(f"No quote returned for {symbol}"))
            messages.append(self.layer.group_send(quote_group(symbol), message))
        results = await asyncio.gather(*messages, return_exceptions=True)
        errors = [r for r in results if isinstance(r, BaseException)]
        if errors:
            log.warning("stream publish failed", failures=len(errors),
                        error=f"{type(errors[0]).__name__}: {errors[0]}")

    # -- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        """Server shutdown: every open stream ends its response now."""
        if not self.closing.done():
            self.closing.set_result(None)

    def stats(self) -> dict[str, Any]:
        return {"connections": self.connections, "pollers": len(self.pollers),
                "leading": len(self.leading),
                "subscriptions": sum(p.subscribers for p in list(self.pollers.values())),
                "interval_seconds": self.interval, "pid": os.getpid()}


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, StreamHub] = \
    weakref.WeakKeyDictionary()


def get_hub() -> StreamHub:
    """The running event loop's hub (created on first use with the current settings)."""
    loop = asyncio.get_running_loop()
    hub = _hubs.get(loop)
    if hub is None:
        hub = _hubs[loop] = StreamHub(loop, float(settings.STREAM_INTERVAL_SECONDS))
    return hub


def stream_stats() -> dict[str, Any]:
    """Totals over this process's hubs (safe to call from any thread)."""
    hubs = list(_hubs.values())
    totals = {"connections": 0, "pollers": 0, "leading": 0, "subscriptions": 0}
    for hub in hubs:
        for key, value in hub.stats().items():
            if key in totals:
                totals[key] += value
    return {**totals, "interval_seconds": float(settings.STREAM_INTERVAL_SECONDS),
            "pid": os.getpid()}


def begin_shutdown() -> None:
    """Ask every hub to end its streams; safe from a signal handler or another thread."""
    for hub in list(_hubs.values()):
        if not hub.loop.is_closed():
            hub.loop.call_soon_threadsafe(hub.close)
