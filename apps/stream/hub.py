"""Shared pollers for the quote stream: one per active symbol per process, not per connection.

A :class:`StreamHub` lives in each event loop that serves streams (one per server process).
Connections register with it; the first subscriber of a symbol starts its :class:`Poller`
and puts the hub's channel in that symbol's channel-layer group, the last one leaving
stops both. Pollers wake at wall-clock multiples of the interval (the same instants in
every process, so cycle numbers agree and a connection can drop a second leader's duplicate
by cycle number); each connection keeps the latest quotes and writes them on its own
schedule (:mod:`apps.stream.services`), not at the pollers' instants. The pollers that
wake together are served by one :meth:`StreamHub.run_cycle`: one leadership claim, one
batch call through the quotes service (and so through the data cache), then one message
per symbol to the symbol's group. A failure becomes an error
message for its symbols; the pollers keep going.

Where a push source answers (Yahoo's price streamer through the ``quote_push``
capability: one upstream connection per process, following exactly the symbols this process
leads), its ticks replace the polls: a led symbol that ticked within
``STREAM_PUSH_FRESH_SECONDS`` is left out of the cycle's batch, and the ticks that arrive
within :data:`PUSH_FLUSH_SECONDS` go to the groups together, each merged over the symbol's
previous message. A symbol the streamer does not tick (a quiet market, a streamer outage)
is polled as before, so the stream never depends on the streamer.

A message's order is ``(cycle, pushed)``: the cycle it belongs to, and for a pushed tick
its publication time in milliseconds (0 for a poll). Connections drop a message not newer
than the last they took: a second leader's duplicate of a cycle, or a poll that was
overtaken by a pushed tick.

The groups' members are hubs, not connections: a message crosses the channel layer once
per process and the hub hands it to its local subscribers with a function call. Measured
with 1,000 connections on 100 symbols, a layer message per connection (5,000 per cycle)
kept the event loop busy for over a second per cycle; see bench/README.md.
"""

from __future__ import annotations

import asyncio
import collections
import os
import time
import weakref
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from channels.layers import get_channel_layer
from django.conf import settings

from apps.core.errors import error_body
from apps.stream.events import quote_group
from apps.stream.leadership import Leadership, lease_seconds, make_leadership
from marketdata import outages
from marketdata.capabilities import quotes as quote_data
from marketdata.errors import MarketDataError, NotFound
from marketdata.logs import get_logger

log = get_logger("apps.stream.hub")

# A takeover claim waits this long past the end of the lock it waits for.
TAKEOVER_DELAY = 0.05
# Pollers waking for the same cycle within this window share one claim and one batch call.
COALESCE_SECONDS = 0.02
MESSAGE_TYPE = "stream.update"
# Channel-layer calls in flight at once per hub (each holds a Redis connection).
LAYER_CONCURRENCY = 8
# Seconds to wait for group and lock clean-up (Redis) while a subscription ends.
RELEASE_TIMEOUT = 2.0
# Channel layers end group memberships older than their group expiry (a day by default).
REJOIN_SECONDS = 3600.0
# Messages already on their way when a channel stopped being read arrive within this time.
LATE_MESSAGE_SECONDS = 1.0
# Pushed ticks arriving within this window are published together (the newest per symbol).
PUSH_FLUSH_SECONDS = 0.25

# What this process's streams moved since it started (summed over its hubs and sockets),
# for /v1/health: messages sent to the groups, messages handed to local subscribers,
# WebSocket frames written, and frames replaced by a newer one before a slow client took them.
traffic: collections.Counter[str] = collections.Counter()
TRAFFIC_KEYS = ("messages_published", "messages_dispatched", "frames_sent", "frames_replaced")

# A cycle's batch call: by symbol, the members of that symbol's message (``quote`` for the
# SSE stream, ``tick`` for the WebSocket stream); a symbol left out failed.
Fetch = Callable[[list[str]], dict[str, dict[str, Any]]]


async def bounded_gather(coros: list[Any], limit: int = LAYER_CONCURRENCY) -> list[Any]:
    """Await layer calls at most ``limit`` at a time; results (or exceptions) in order.

    channels-redis takes a pooled connection per call in flight: hundreds at once exhaust
    the pool ("Too many connections") and fail them all.
    """
    gate = asyncio.Semaphore(limit)

    async def one(coro: Any) -> Any:
        try:
            async with gate:
                return await coro
        finally:
            coro.close()  # never started (cancelled at the gate): no "never awaited" warning

    return await asyncio.gather(*(one(c) for c in coros), return_exceptions=True)


def current_cycle(interval: float) -> int:
    """The number of the cycle now running: wall-clock time in whole intervals."""
    return int(time.time() // interval)


def default_fetch(symbols: list[str]) -> dict[str, dict[str, Any]]:
    from apps.quotes.services import stream_payloads

    return stream_payloads(symbols)


def message_order(message: dict[str, Any]) -> tuple[int, int] | None:
    """Where a message stands among a symbol's messages (see the module doc); None for a
    malformed one."""
    cycle, pushed = message.get("cycle"), message.get("pushed", 0)
    if not isinstance(cycle, int) or not isinstance(pushed, int):
        return None
    return cycle, pushed


def failure_body(exc: BaseException) -> dict[str, Any]:
    """An error message's reason: the REST error body plus the HTTP status it would have."""
    if isinstance(exc, MarketDataError):
        return {**error_body(exc), "status": exc.status_code}
    return {"detail": "Internal error while fetching quotes", "status": 500}


class Subscriber(Protocol):
    """What the hub needs of a connection."""

    symbols: list[str]

    def deliver(self, message: dict[str, Any]) -> None: ...

    def close(self) -> None: ...


class Poller:
    """The background task for one symbol: every cycle, ask the hub to poll it."""

    def __init__(self, hub: StreamHub, symbol: str) -> None:
        self.hub = hub
        self.symbol = symbol
        self.task = hub.loop.create_task(self._run(), name=f"stream-poller:{symbol}")

    async def _run(self) -> None:
        interval = self.hub.interval
        cycle = current_cycle(interval) + 1
        joined_at = time.monotonic()
        while True:
            delay = cycle * interval - time.time()
            if delay > 0:
                await asyncio.sleep(delay)
            try:
                await self.hub.poll(cycle, self.symbol)
                if self.symbol not in self.hub.joined:  # the layer failed when it was added
                    await self.hub.sync_groups()
                elif time.monotonic() - joined_at >= REJOIN_SECONDS:
                    await self.hub.rejoin(self.symbol)
                    joined_at = time.monotonic()
            except Exception:  # a poller only stops when its last subscriber leaves
                log.exception("stream poller error", symbol=self.symbol)
            # A cycle that overran the interval skips the cycles it missed.
            cycle = max(cycle + 1, current_cycle(interval) + 1)


class StreamHub:
    """This event loop's connections, pollers, group memberships and cycles."""

    def __init__(self, loop: asyncio.AbstractEventLoop, interval: float,
                 leadership: Leadership | None = None, fetch: Fetch = default_fetch,
                 layer: Any = None,
                 push: Callable[[Callable[[dict[str, Any]], None]],
                                quote_data.TickPush | None] = quote_data.tick_push) -> None:
        self.loop = loop
        self.interval = interval
        self.leadership = leadership or make_leadership(interval)
        self.fetch = fetch
        self.layer = layer or get_channel_layer()
        self.connections: set[Subscriber] = set()
        self.subscribers: dict[str, set[Subscriber]] = {}
        self.pollers: dict[str, Poller] = {}
        self.leading: set[str] = set()
        self.cycles_run = 0
        self.closing = False
        self._detaching: set[asyncio.Task[None]] = set()
        self.channel: str | None = None
        self._receiver: asyncio.Task[None] | None = None
        self.joined: set[str] = set()  # symbols whose group has this hub's channel
        # The newest message of each subscribed symbol: what a connection that subscribes
        # later starts from, without an upstream call.
        self.latest: dict[str, dict[str, Any]] = {}
        # Group joins and leaves go to the layer in the order they were decided in.
        self._membership = asyncio.Lock()
        self._cycles: dict[int, tuple[set[str], asyncio.Future[None]]] = {}
        self._takeovers: set[asyncio.Task[None]] = set()
        self._make_push: Callable[[Callable[[dict[str, Any]], None]],
                                  quote_data.TickPush | None] | None = push
        self.push: quote_data.TickPush | None = None  # made at the first cycle that leads
        self._pushed: dict[str, dict[str, Any]] = {}  # ticks waiting for the next flush
        self._flush: asyncio.TimerHandle | None = None
        self._publishing: set[asyncio.Task[None]] = set()

    # -- connections ----------------------------------------------------------------------
    async def connect(self, subscriber: Subscriber) -> None:
        """Subscribe a connection to its ``symbols``; new symbols get a poller and a group
        membership."""
        if self.closing:
            subscriber.close()
            return
        self.connections.add(subscriber)
        await self.add_symbols(subscriber, list(subscriber.symbols))

    async def disconnect(self, subscriber: Subscriber) -> None:
        """Unsubscribe a connection: stop what only it used, at once."""
        self.connections.discard(subscriber)
        await self.remove_symbols(subscriber, list(subscriber.symbols))

    async def add_symbols(self, subscriber: Subscriber, symbols: list[str]) -> None:
        """Count ``subscriber`` in for ``symbols`` (a set per symbol: adding a symbol twice
        counts once, so one removal always undoes it)."""
        new = False
        for symbol in symbols:
            if symbol not in self.subscribers:
                self.subscribers[symbol] = set()
                self.pollers[symbol] = Poller(self, symbol)
                new = True
            self.subscribers[symbol].add(subscriber)
        if new:
            await self.sync_groups()

    async def remove_symbols(self, subscriber: Subscriber, symbols: list[str]) -> None:
        """Count ``subscriber`` out of ``symbols``; a symbol nobody holds any more stops its
        poller, leaves its group and hands its leadership over at once."""
        emptied = []
        for symbol in symbols:
            subscribers = self.subscribers.get(symbol)
            if subscribers is None or subscriber not in subscribers:
                continue
            subscribers.discard(subscriber)
            if not subscribers:
                del self.subscribers[symbol]
                self.pollers.pop(symbol).task.cancel()
                self.latest.pop(symbol, None)
                emptied.append(symbol)
        if not emptied:
            return
        self.leading.difference_update(emptied)
        if self.push is not None:
            self.push.follow(self.leading)
        try:
            # Handed to another process at once rather than at the lock's expiry.
            await asyncio.wait_for(self.leadership.release(emptied), RELEASE_TIMEOUT)
        except Exception as exc:  # noqa: BLE001 - the locks expire on their own
            outages.failed(exc, "stream leadership release")  # logged once per outage
        await self.sync_groups()

    async def sync_groups(self) -> None:
        """Make the layer's groups match the symbols subscribed now.

        Connections come and go while a Redis call is in flight, so each change does not
        apply its own delta: whoever holds the lock applies the difference between what is
        joined and what is wanted, and the callers after it usually find nothing to do.
        """
        async with self._membership:
            wanted = set(self.subscribers)
            if wanted and self._receiver is None:
                self.channel = await self.layer.new_channel(prefix="md.hub.")
                self._receiver = self.loop.create_task(self._receive(self.channel),
                                                       name="stream-receiver")
            try:
                for symbol in sorted(wanted - self.joined):
                    await self.layer.group_add(quote_group(symbol), self.channel)
                    self.joined.add(symbol)
            except Exception as exc:  # noqa: BLE001 - each poller retries its own symbol
                outages.failed(exc, "stream layer subscribe")  # logged once per outage
            leave = sorted(self.joined - wanted)
            if leave:
                self.joined.difference_update(leave)
                try:
                    results = await asyncio.wait_for(bounded_gather(
                        [self.layer.group_discard(quote_group(s), self.channel)
                         for s in leave]), timeout=RELEASE_TIMEOUT)
                    for result in results:
                        if isinstance(result, BaseException):
                            raise result
                except Exception as exc:  # noqa: BLE001 - Redis groups also expire on their own
                    outages.failed(exc, "stream layer unsubscribe")
            if not wanted and self._receiver is not None:
                receiver, channel = self._receiver, self.channel
                self._receiver = self.channel = None
                receiver.cancel()
                # Let the receive unwind first: channels-redis cleans up its own per-channel
                # buffer and helper tasks when cancelled, and fails half-way (leaving a task
                # waiting forever) if that buffer is already gone.
                await asyncio.wait({receiver}, timeout=RELEASE_TIMEOUT)
                forget_channel(self.layer, channel)
                # messages already on their way when the last subscriber left
                self.loop.call_later(LATE_MESSAGE_SECONDS, forget_channel, self.layer, channel)

    async def rejoin(self, symbol: str) -> None:
        """Renew a group membership before the layer's group expiry (a day) ends it."""
        async with self._membership:
            if symbol in self.joined and self.channel is not None:
                await self.layer.group_add(quote_group(symbol), self.channel)

    async def _receive(self, channel: str) -> None:
        """Hand each symbol's message to this process's subscribers of that symbol.

        Runs while ``channel`` is the hub's channel: channels-redis can turn a cancelled
        receive into a return or another error, so the cancel alone is not relied on.
        """
        while self.channel == channel:
            try:
                message = await self.layer.receive(channel)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - a layer outage must not end the streams
                if self.channel != channel:
                    return
                outages.failed(exc, "stream layer receive")  # logged once per outage
                await asyncio.sleep(1.0)
                continue
            outages.succeeded("stream layer receive")
            if message.get("type") == MESSAGE_TYPE:
                self.dispatch(message)

    def dispatch(self, message: dict[str, Any]) -> None:
        """Give a symbol's message to this process's subscribers of that symbol.

        ``deliver`` only records the message (each connection writes on its own task), so a
        slow client never holds the others' delivery."""
        symbol = message.get("symbol")
        subscribers = self.subscribers.get(symbol)
        if not subscribers:
            return
        traffic["messages_dispatched"] += 1
        if "error" not in message:
            known = self.latest.get(symbol)
            order = message_order(message)
            if order is not None and (known is None or (message_order(known) or (-1, 0)) < order):
                self.latest[symbol] = message
        for subscriber in list(subscribers):
            subscriber.deliver(message)

    async def prime(self, symbols: list[str]) -> list[str]:
        """Make sure there is a recent message for each of ``symbols`` before they are added
        (one batch call through the data cache for those without one): a new subscriber
        gets its first tick at once, not at the next cycle. The symbols without a quote;
        :class:`~marketdata.errors.MarketDataError` when the call fails (subscribe anyway:
        the pollers retry every cycle)."""
        missing = [s for s in symbols if s not in self.latest]
        if not missing:
            return []
        found = await asyncio.to_thread(self.fetch, missing)
        for symbol, members in found.items():
            if symbol not in self.latest:
                self.latest[symbol] = {"type": MESSAGE_TYPE, "cycle": -1, "symbol": symbol,
                                       **members}
        return [s for s in missing if s not in found]

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
        task = self.loop.create_task(self.run_cycle(cycle, sorted(symbols)),
                                     name="stream-cycle")

        def finished(task: asyncio.Task[None]) -> None:
            if not task.cancelled() and task.exception() is not None:
                log.error("stream cycle failed", cycle=cycle, exc_info=task.exception())
            if not done.done():
                done.set_result(None)

        task.add_done_callback(finished)

    def _schedule_takeover(self, cycle: int) -> None:
        lease = lease_seconds(self.interval)
        ending = {s: left for s, left in self.leadership.others_expire_in.items()
                  if left < lease - self.interval / 2}
        if not ending:
            return

        def retry() -> None:
            wanted = sorted(s for s in ending if s in self.pollers)
            if wanted:
                task = self.loop.create_task(self.run_cycle(cycle, wanted, takeover=True),
                                             name="stream-takeover")
                self._takeovers.add(task)
                task.add_done_callback(self._takeovers.discard)

        self.loop.call_later(max(ending.values()) + TAKEOVER_DELAY, retry)

    async def run_cycle(self, cycle: int, symbols: list[str], takeover: bool = False) -> None:
        """Claim, fetch and publish one cycle for the symbols this process leads.

        A symbol whose lock another process failed to renew at this cycle's start (it has
        less than the lease minus half an interval left) is claimed again as soon as that
        lock ends: its leader is likely gone, and this cycle is then polled late, not
        skipped (``takeover``: that second attempt, which schedules none of its own)."""
        claimed = await self.leadership.claim(symbols)
        if not takeover:
            self._schedule_takeover(cycle)
        led = sorted(claimed)
        # A busy loop can split a cycle's pollers into several batches: each batch decides
        # only for its own symbols (the push source must not drop the others meanwhile).
        self.leading = ((self.leading - set(symbols)) | claimed) & set(self.pollers)
        self.cycles_run += 1
        push = self.push_source()
        if push is not None:
            push.follow(self.leading)
            within = max(float(settings.STREAM_PUSH_FRESH_SECONDS), 2 * self.interval)
            led = [s for s in led if not push.fresh(s, within)]
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
                message.update(quotes[symbol])
            else:
                message["error"] = failure or failure_body(
                    NotFound(f"No quote returned for {symbol}"))
            messages.append(message)
        await self.publish(messages)

    async def publish(self, messages: list[dict[str, Any]]) -> None:
        """Send symbols' messages to their groups (every process's hub); when the layer
        fails, this process's own subscribers still get them."""
        traffic["messages_published"] += len(messages)
        results = await bounded_gather(
            [self.layer.group_send(quote_group(m["symbol"]), m) for m in messages])
        unsent = [m for m, r in zip(messages, results, strict=True)
                  if isinstance(r, BaseException)]
        if not unsent:
            outages.succeeded("stream layer publish")
        else:
            error = next(r for r in results if isinstance(r, BaseException))
            outages.failed(error, "stream layer publish")  # logged once per outage
            # The layer is down, not the data: this process's own subscribers still get it.
            for message in unsent:
                self.dispatch(message)

    # -- pushed ticks ---------------------------------------------------------------------
    def push_source(self) -> quote_data.TickPush | None:
        """This hub's push source, made on first use (None when there is none)."""
        if self.push is None and self._make_push is not None:
            make, self._make_push = self._make_push, None
            try:
                self.push = make(self.on_push)
            except Exception:  # the pollers serve without it
                log.exception("stream push source failed to start; polling only")
        return self.push

    def on_push(self, tick: dict[str, Any]) -> None:
        """A pushed tick of a symbol this process leads: kept for the next flush."""
        symbol = tick.get("id")
        if not isinstance(symbol, str) or symbol not in self.leading:
            return
        self._pushed[symbol] = tick  # each tick is the whole quote: the newest replaces
        if self._flush is None:
            self._flush = self.loop.call_later(PUSH_FLUSH_SECONDS, self._flush_pushed)

    def _flush_pushed(self) -> None:
        from apps.quotes.services import pushed_payload

        self._flush = None
        ticks, self._pushed = self._pushed, {}
        cycle, now_ms = current_cycle(self.interval), int(time.time() * 1000)
        messages = [{"type": MESSAGE_TYPE, "cycle": cycle, "pushed": now_ms, "symbol": symbol,
                     **pushed_payload(tick, self.latest.get(symbol))}
                    for symbol, tick in ticks.items() if symbol in self.leading]
        if messages:
            task = self.loop.create_task(self.publish(messages), name="stream-push")
            self._publishing.add(task)
            task.add_done_callback(self._publishing.discard)

    # -- lifecycle ------------------------------------------------------------------------
    def close(self) -> None:
        """Server shutdown: every open stream ends its response now."""
        self.closing = True
        if self.push is not None:
            self.push.close()
        for subscriber in list(self.connections):
            subscriber.close()

    def detach_later(self, subscriber: Subscriber) -> None:
        """At shutdown: unsubscribe in a task of its own, so the response ends now and not
        after the channel layer's group leaves (a Redis round trip each, 20 at once when
        20 streams close)."""
        task = self.loop.create_task(self.disconnect(subscriber))
        self._detaching.add(task)
        task.add_done_callback(self._detaching.discard)

    def stats(self) -> dict[str, int]:
        push = self.push.stats() if self.push is not None else {}
        return {"connections": len(self.connections), "pollers": len(self.pollers),
                "leading": len(self.leading),
                "subscriptions": sum(len(s) for s in list(self.subscribers.values())),
                "push_connected": int(bool(push.get("connected"))),
                "pushed_ticks": int(push.get("ticks", 0))}


def forget_channel(layer: Any, channel: str | None) -> None:
    """Drop what a channel layer still holds for a channel nobody will read again.

    Both layers keep messages that reach a finished channel (the in-memory layer in its
    queues until they expire, channels-redis in a per-process receive buffer with no expiry
    at all), so the hub clears its channel when it stops receiving, and once more after the
    messages that were already in flight have landed.
    """
    for holder in ("channels", "receive_buffer"):  # InMemoryChannelLayer, RedisChannelLayer
        buffers = getattr(layer, holder, None)
        if isinstance(buffers, dict):
            buffers.pop(channel, None)


T = TypeVar("T")


class PerLoop(weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, T]):
    """One ``T`` per event loop (a server process has one; tests run several in turn), made
    by ``factory(loop)`` on first use from that loop and forgotten with the loop."""

    def __init__(self, factory: Callable[[asyncio.AbstractEventLoop], T]) -> None:
        super().__init__()
        self.factory = factory

    def current(self) -> T:
        loop = asyncio.get_running_loop()
        item = self.get(loop)
        if item is None:
            item = self[loop] = self.factory(loop)
        return item


_hubs: PerLoop[StreamHub] = PerLoop(
    lambda loop: StreamHub(loop, float(settings.STREAM_INTERVAL_SECONDS)))


def get_hub() -> StreamHub:
    """The running event loop's hub (created on first use with the current settings)."""
    return _hubs.current()


def stream_stats() -> dict[str, Any]:
    """Totals over this process's hubs (safe to call from any thread)."""
    totals = dict.fromkeys(("connections", "pollers", "leading", "subscriptions",
                            "push_connected", "pushed_ticks"), 0)
    for hub in list(_hubs.values()):
        for key, value in hub.stats().items():
            totals[key] += value
    return {**totals, **{key: traffic[key] for key in TRAFFIC_KEYS},
            "interval_seconds": float(settings.STREAM_INTERVAL_SECONDS), "pid": os.getpid()}


def begin_shutdown() -> None:
    """Ask every hub to end its streams; safe from a signal handler or another thread."""
    for hub in list(_hubs.values()):
        if not hub.loop.is_closed():
            hub.loop.call_soon_threadsafe(hub.close)
