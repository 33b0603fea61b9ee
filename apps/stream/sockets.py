"""WebSocket ``/v2/stream``: live ticks and price alerts from the shared pollers.

The frame protocol is served at ``/docs/websockets`` (docs/api-notes.md, "WebSocket streams"). In
short: the client sends ``{"subscribe": [...]}``, ``{"unsubscribe": [...]}`` and
``{"alerts": [...]}`` frames (:mod:`apps.stream.frames`); the server sends a tick frame
when a subscribed symbol's quote changes, alert frames in alert mode, and
``{"error", "status"}`` frames for bad frames and failed updates.

Ticks come from the same hub as the SSE stream (:mod:`apps.stream.hub`): one poller per
symbol per process, one leader per symbol across the fleet, one batch call per cycle. A
connection is a :class:`~apps.stream.hub.Subscriber`: the hub hands it each message with a
function call, the connection keeps the newest tick per symbol and its own task writes
them. A client that reads slowly misses the ticks that were replaced while it was busy
(counted in ``dropped``), never delaying anyone else; one that stops reading altogether is
closed after ``WS_SEND_TIMEOUT_SECONDS``.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

import orjson
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from apps.core import origins
from apps.ratelimit import limits
from apps.ratelimit.counters import BucketTake, OwnBucket
from apps.stream import admission
from apps.stream.alerts import AlertBook
from apps.stream.frames import FrameError, LimitError, error_frame, limit_frame, quote_frame
from apps.stream.hub import (
    PerLoop,
    StreamHub,
    failure_body,
    get_hub,
    message_order,
    traffic,
)
from marketdata import outages
from marketdata.errors import MarketDataError
from marketdata.logs import get_logger

log = get_logger("apps.stream.sockets")

# Frames of other kinds (errors, alerts) waiting for a slow client; older ones go first.
NOTICE_BACKLOG = 256
POLICY_VIOLATION = 1008  # WebSocket close code: the peer broke the rules (stopped reading)
TICK_JSON = "tick_json"  # a message's tick as JSON (bytes), added by its first subscriber
# The server's way to write several frames in one socket write (config.protocol), if any.
SEND_MANY_EXTENSION = "marketdata.websocket.send_many"
# Writers are woken together once the ticks stop coming for this long (at most
# WAKE_MAX_DELAY_SECONDS after the first): a writer then finds a cycle's ticks for its
# symbols at once and writes them in one go, and none runs in the middle of the hub's
# dispatch of a cycle (25,000 frames a cycle at 5,000 connections).
WAKE_COALESCE_SECONDS = 0.005
WAKE_MAX_DELAY_SECONDS = 0.05


class WriterWakes:
    """The writers to wake at the end of the current coalescing window, one per loop."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.pending: list[StreamSocket] = []
        self.timer: asyncio.TimerHandle | None = None
        self.first = self.last = 0.0

    def add(self, socket: StreamSocket) -> None:
        socket.wake_pending = True
        self.pending.append(socket)
        self.last = self.loop.time()
        if self.timer is None:
            self.first = self.last
            self.timer = self.loop.call_at(self.last + WAKE_COALESCE_SECONDS, self.fire)

    def fire(self) -> None:
        due = min(self.last + WAKE_COALESCE_SECONDS, self.first + WAKE_MAX_DELAY_SECONDS)
        if self.loop.time() < due:  # ticks still coming: wait for the pause
            self.timer = self.loop.call_at(due, self.fire)
            return
        pending, self.pending, self.timer = self.pending, [], None
        for socket in pending:
            socket.wake_pending = False
            if not socket.flush():  # the socket cannot take them now: its task waits
                socket._wake.set()


writer_wakes: PerLoop[WriterWakes] = PerLoop(WriterWakes)


async def handshake_refusal(scope: dict[str, Any], meta: dict[str, str]
                            ) -> tuple[int, dict[str, Any], dict[str, str]] | None:
    """Why a handshake is refused (status, v2 error body, headers), or None to accept.

    A ``Host`` or a browser ``Origin`` the streams do not serve (:mod:`apps.core.origins`:
    400, 403), and one token of the v2 bucket per handshake (429 with Retry-After), as for
    an HTTP request under /v2/. ``meta``: the client's (:func:`client_meta`)."""
    refused = origins.refusal(scope)
    if refused is not None:
        return refused[0], error_frame(refused[1], refused[0]), {}
    config = limits.bucket_config()
    if config.enabled and not limits.is_admin(meta):
        try:
            take = await limits.take_v2_async(limits.client_ip(meta), config)
        except Exception as exc:  # noqa: BLE001 - as the HTTP path: counters down, let it in
            outages.failed(exc, "rate-limit counters")  # logged once per outage
            return None
        outages.succeeded("rate-limit counters")
        if not take.allowed:
            body = {**limits.v2_rate_limit_body(take), "status": 429}
            return 429, body, {"retry-after": str(take.retry_after)}
    return None


def client_meta(scope: dict[str, Any]) -> dict[str, str]:
    """What the limits read of a handshake's client (peer, ``x-api-key``,
    ``x-forwarded-for``); ASGI header names are lower case."""
    return limits.asgi_meta(scope.get("client"), dict(scope.get("headers", ())))


class StreamSocket(AsyncWebsocketConsumer):
    """What both WebSocket streams share: the handshake checks, and an outbox written by
    one task per connection, so nothing a client does (or fails to do) waits on another.

    No channel-layer channel per connection: the hub receives for the whole process.
    """

    channel_layer_alias = "no layer: the hub receives for every connection"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.notices: deque[bytes] = deque()  # error and alert frames (JSON), oldest first
        self.notice_bytes = 0
        self.latest: dict[str, bytes] = {}  # newest unsent frame (JSON) per key
        self.wake_pending = False  # in the writers' coalescing window (WriterWakes)
        # The server's way to write several frames at once (set at the handshake), if any.
        self.send_many: Callable[[list[bytes]], bool] | None = None
        self.dropped = 0
        self.closed = False
        self.lease: admission.Lease | None = None
        self.frame_bucket = OwnBucket(int(settings.WS_FRAME_BURST),
                                      float(settings.WS_FRAMES_PER_SECOND))
        self.refused_in_a_row = 0
        self._wake = asyncio.Event()
        self._writer: asyncio.Task[None] | None = None

    # -- handshake and lifecycle -------------------------------------------------------------
    async def websocket_connect(self, message: dict[str, Any]) -> None:
        meta = client_meta(self.scope)
        refusal = await handshake_refusal(self.scope, meta)
        if refusal is None:
            try:
                self.lease = admission.admit(limits.client_ip(meta))
            except admission.TooManyStreams as exc:
                refusal = 429, error_frame(exc.detail, 429), {}
        if refusal is not None:
            await self.refuse(*refusal)
            raise StopConsumer()
        await self.accept(self.subprotocol())
        self.send_many = self.scope.get("extensions", {}).get(SEND_MANY_EXTENSION,
                                                                {}).get("send")
        self._writer = asyncio.get_running_loop().create_task(self._write(),
                                                              name="ws-writer")
        await self.opened()

    async def refuse(self, status: int, body: dict[str, Any], headers: dict[str, str]) -> None:
        """Deny the handshake with an HTTP answer and a JSON body where the server can
        (the ASGI ``websocket.http.response`` extension), else a plain 403."""
        if "websocket.http.response" not in self.scope.get("extensions", {}):
            await self.close()
            return
        payload = orjson.dumps(body)
        await self.base_send({"type": "websocket.http.response.start", "status": status,
                              "headers": [(b"content-type", b"application/json"),
                                          (b"content-length", str(len(payload)).encode()),
                                          *((k.encode(), v.encode())
                                            for k, v in headers.items())]})
        await self.base_send({"type": "websocket.http.response.body", "body": payload})

    async def websocket_disconnect(self, message: dict[str, Any]) -> None:
        # Not the base class's: it would hop to a thread to close database connections
        # this consumer never opens.
        self.closed = True
        if self._writer is not None:
            self._writer.cancel()
        if self.lease is not None:
            self.lease.release()
        self.notices.clear()
        self.latest.clear()
        await self.closing()
        raise StopConsumer()

    async def websocket_receive(self, message: dict[str, Any]) -> None:
        """A client frame, if the connection's frame bucket has a token for it.

        Refused frames change nothing and are answered with a 429 error frame; a client
        that sends ``WS_FRAME_BURST`` more while refused is closed (1008): it is not
        reading its answers."""
        if self.closed:
            return  # closing: what is still in flight changes nothing
        refused = await self.take_frame()
        if refused is not None:
            if not self.closed:
                self.notify(error_frame(
                    f"Too many frames: at most {settings.WS_FRAMES_PER_SECOND:g} per second "
                    f"(WS_FRAMES_PER_SECOND), {settings.WS_FRAME_BURST} at once "
                    "(WS_FRAME_BURST); this frame was not applied", 429,
                    retryAfter=refused.retry_after))
            return
        await super().websocket_receive(message)

    async def take_frame(self) -> BucketTake | None:
        """Take a client frame's token from the connection's frame bucket: None when
        there was one; else the refusal, after closing the connection (1008, ``closed``
        set) when this is ``WS_FRAME_BURST`` more frames refused in a row: the client is
        not reading its answers."""
        take = self.frame_bucket.take()
        if take.allowed:
            self.refused_in_a_row = 0
            return None
        self.refused_in_a_row += 1
        if self.refused_in_a_row > self.frame_bucket.capacity:
            log.info("websocket client ignored its frame limit; closed",
                     path=self.scope.get("path"))
            self.closed = True
            await self.close(code=POLICY_VIOLATION)
        return take

    def subprotocol(self) -> str | None:
        """The subprotocol to accept (of those the client offered); None: none."""
        return None

    async def opened(self) -> None:
        """After the handshake."""

    async def closing(self) -> None:
        """After the client left (or the server closed)."""

    # -- outgoing frames ---------------------------------------------------------------------
    def notify(self, frame: dict[str, Any]) -> None:
        """Queue a frame that must not be merged with others (an error, an alert). At most
        ``NOTICE_BACKLOG`` frames and ``WS_SEND_QUEUE_BYTES`` wait; past either, the oldest
        go (counted in ``dropped``)."""
        payload = orjson.dumps(frame)
        self.notices.append(payload)
        self.notice_bytes += len(payload)
        limit = int(settings.WS_SEND_QUEUE_BYTES)
        while len(self.notices) > 1 and (len(self.notices) > NOTICE_BACKLOG
                                         or self.notice_bytes > limit):
            self.notice_bytes -= len(self.notices.popleft())
            self.dropped += 1
        self._wake.set()

    def offer(self, key: str, payload: bytes) -> None:
        """Queue the newest frame (JSON) for ``key``; one not yet written is replaced
        (dropped). The writer wakes at the end of the coalescing window."""
        if self.latest.pop(key, None) is not None:
            self.dropped += 1
            traffic["frames_replaced"] += 1
        self.latest[key] = payload
        if not self.wake_pending and not self._wake.is_set():
            writer_wakes.current().add(self)

    def flush(self) -> bool:
        """Write everything queued now in one socket write through the server's extension
        (``send_many``), if it can take it at once; False when the writer's task must do it
        frame by frame. Most wakes end here, without waking the task: at 5,000 connections
        a task switch per connection per wake was most of what was left of the fan-out's
        cost."""
        if self.closed or self.send_many is None:
            return False
        if not (self.notices or self.latest):
            return True
        payloads = [*self.notices, *self.latest.values()]
        if not self.send_many(payloads):
            return False
        self.notices.clear()
        self.notice_bytes = 0
        self.latest.clear()
        traffic["frames_sent"] += len(payloads)
        return True

    def close_soon(self) -> None:
        """The hub's shutdown: end the connection from its own task."""
        self.closed = True
        self._wake.set()

    async def _write(self) -> None:
        timeout = float(settings.WS_SEND_TIMEOUT_SECONDS)
        loop = asyncio.get_running_loop()
        try:
            while True:
                await self._wake.wait()
                self._wake.clear()
                if self.flush():
                    continue
                # Else frame by frame through websocket.send, which waits for room.
                # One deadline moved forward per frame (asyncio.wait_for would cost a task
                # per frame: thousands per cycle with thousands of connections).
                async with asyncio.timeout(None) as deadline:
                    while (self.notices or self.latest) and not self.closed:
                        if self.notices:
                            payload = self.notices.popleft()
                            self.notice_bytes -= len(payload)
                        else:
                            payload = self.latest.pop(next(iter(self.latest)))
                        deadline.reschedule(loop.time() + timeout)
                        await self.base_send({"type": "websocket.send",
                                              "text": payload.decode()})
                        traffic["frames_sent"] += 1
                if self.closed:
                    await self.close(code=1001)  # going away: the server shuts down
                    return
        except TimeoutError:
            log.info("websocket client stopped reading; closed", path=self.scope.get("path"))
            self.closed = True
            await self.close(code=POLICY_VIOLATION)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - a send to a client already gone
            log.debug("websocket send failed", error=f"{type(exc).__name__}: {exc}")


def failure_frame(body: dict[str, Any], symbols: list[str]) -> dict[str, Any]:
    """A poller's failure body (``detail``, ``status``, [provider, code]) as a v2 frame."""
    frame = error_frame(str(body.get("detail") or body.get("error") or "Update failed"),
                        int(body.get("status") or 502), symbols=symbols)
    if body.get("provider"):
        frame["provider"] = body["provider"]
    return frame


class QuoteStreamSocket(StreamSocket):
    """``/v2/stream``: the connection's subscriptions, alert rules and last ticks."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hub: StreamHub | None = None
        self.member = HubMember(self)
        self.symbols: list[str] = []  # what the hub counts this connection in for
        self.explicit: list[str] = []  # subscribed by name (rule symbols are implied)
        self.book: AlertBook | None = None
        self._order: dict[str, tuple[int, int]] = {}  # order of the last message taken
        self._last: dict[str, dict[str, Any]] = {}  # last tick sent or checked, per symbol
        self._failing: set[str] = set()
        # Symbols added, per connection: each new one may cost an upstream fetch at once
        # (its first quote), so a connection adds no more per interval than it may hold.
        self.additions = OwnBucket(int(settings.WS_MAX_SYMBOLS),
                                   int(settings.WS_MAX_SYMBOLS)
                                   / float(settings.STREAM_INTERVAL_SECONDS))

    async def opened(self) -> None:
        self.hub = get_hub()
        if self.hub.closing:
            self.close_soon()
            return
        self.hub.connections.add(self.member)

    async def closing(self) -> None:
        if self.hub is not None:
            if self.hub.closing:
                self.hub.detach_later(self.member)
            else:
                await self.hub.disconnect(self.member)

    # -- client frames -----------------------------------------------------------------------
    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None
                      ) -> None:
        limit = int(settings.WS_MAX_SYMBOLS)
        try:
            frame = quote_frame(text_data, limit, int(settings.WS_MAX_ALERT_RULES))
        except LimitError as exc:
            self.notify(exc.frame())
            return
        except FrameError as exc:
            self.notify(error_frame(str(exc)))
            return
        explicit = [*self.explicit, *(s for s in frame.subscribe if s not in self.explicit)]
        book = self.book
        if frame.alerts is not None:
            book = AlertBook(frame.alerts) if frame.alerts else None
        explicit = [s for s in explicit if s not in frame.unsubscribe]
        wanted = list(dict.fromkeys([*explicit, *(book.symbols if book else [])]))
        if len(wanted) > limit:
            self.notify(limit_frame(f"A connection holds at most {limit} symbols "
                                    f"(WS_MAX_SYMBOLS); this frame would make it "
                                    f"{len(wanted)}", "WS_MAX_SYMBOLS", limit))
            return
        added = [s for s in wanted if s not in self.symbols]
        if added:
            take = self.additions.take(len(added))
            if not take.allowed:
                self.notify(error_frame(
                    f"Too many new symbols: a connection adds at most {limit} per "
                    f"{settings.STREAM_INTERVAL_SECONDS:g} s (WS_MAX_SYMBOLS per "
                    "STREAM_INTERVAL_SECONDS, what its pollers would fetch); this frame "
                    "was not applied", 429, retryAfter=take.retry_after))
                return
        unknown = await self._start(added)
        if unknown:
            self.notify(error_frame(f"No quote found for {', '.join(unknown)}", 404,
                                    symbols=unknown))
            explicit = [s for s in explicit if s not in unknown]
            if book is not None and any(r.symbol in unknown for r in book.rules):
                kept = [r for r in book.rules if r.symbol not in unknown]
                book = AlertBook(kept) if kept else None
            wanted = [s for s in wanted if s not in unknown]
            added = [s for s in added if s not in unknown]
        removed = [s for s in self.symbols if s not in wanted]
        new_book = book is not self.book and book is not None
        self.explicit, self.book, self.symbols = explicit, book, wanted
        if new_book:  # new rules meet the newest tick at once, not the next trade
            assert book is not None
            for symbol in book.symbols:
                if symbol in self._last:
                    for alert in book.check(self._last[symbol]):
                        self.notify(alert)
        assert self.hub is not None
        if added:
            await self.hub.add_symbols(self.member, added)
        if removed:
            await self.hub.remove_symbols(self.member, removed)
            for symbol in removed:
                self._order.pop(symbol, None)
                self._last.pop(symbol, None)
                self._failing.discard(symbol)
                self.latest.pop(symbol, None)
        for symbol in added:  # the newest tick at once, not at the next cycle
            message = self.hub.latest.get(symbol) if self.hub else None
            if message is not None:
                self.deliver(message)

    async def _start(self, symbols: list[str]) -> list[str]:
        """Make sure the hub has a recent message for each new symbol (one batch call
        through the data cache for those it lacks); the symbols without a quote."""
        assert self.hub is not None
        try:
            return await self.hub.prime(symbols)
        except MarketDataError as exc:
            # Subscribed anyway: the pollers retry every cycle.
            self.notify(failure_frame(failure_body(exc),
                                      [s for s in symbols if s not in self.hub.latest]))
            return []

    # -- the hub's messages ------------------------------------------------------------------
    def deliver(self, message: dict[str, Any]) -> None:
        symbol, order = message.get("symbol"), message_order(message)
        if symbol not in self.symbols or order is None:
            return
        if order <= self._order.get(symbol, (-2, 0)):
            return  # a second leader's duplicate, or a late message
        self._order[symbol] = order
        if "error" in message:
            if symbol not in self._failing:  # once per failing streak, not every cycle
                self._failing.add(symbol)
                self.notify(failure_frame(message["error"], [symbol]))
            return
        self._failing.discard(symbol)
        tick = message.get("tick")
        if tick is None or tick == self._last.get(symbol):
            return  # nothing traded since the last frame
        self._last[symbol] = tick
        if self.book is not None:
            for alert in self.book.check(tick):
                self.notify(alert)
        elif symbol in self.explicit:
            # Encoded once per process: the hub hands every subscriber the same message.
            payload = message.get(TICK_JSON)
            if payload is None:
                payload = message[TICK_JSON] = orjson.dumps(tick)
            self.offer(symbol, payload)



class HubMember:
    """A connection as the hub sees it (:class:`~apps.stream.hub.Subscriber`): the
    consumer's own ``close`` is a coroutine with another meaning, so the hub gets this."""

    def __init__(self, socket: QuoteStreamSocket) -> None:
        self.socket = socket

    @property
    def symbols(self) -> list[str]:
        return self.socket.symbols

    def deliver(self, message: dict[str, Any]) -> None:
        self.socket.deliver(message)

    def close(self) -> None:
        self.socket.close_soon()
