"""GraphQL subscriptions (``Subscription``): the frames of the WebSocket streams, from the same
hubs as ``/v2/stream`` and ``/v2/feeds/stream`` (:mod:`apps.stream`), served over WebSocket
at ``/graphql`` (:mod:`apps.graphql.ws`).

- ``priceStream(symbols)``: ``/v2/stream``'s ticks (``PriceTick``): the newest tick of each
  symbol at once, then one whenever its quote changes;
- ``priceAlerts(rules)``: its alert frames (``PriceAlert``) for rules ``{symbol, condition,
  value, repeat}`` with the conditions and semantics of :mod:`apps.stream.alerts`;
- ``feedStream(sources, formType)``: ``/v2/feeds/stream``'s new items (``FeedItem``).

A subscription is a subscriber of the process's hub, as a REST connection is: its symbols
are added to the hub when it starts (one batch call for those the hub has no message for)
and removed when it ends; no poller of its own. The REST connection's limits hold for the
WebSocket connection as a whole, summed over its subscriptions: ``WS_MAX_SYMBOLS`` symbols
(and as many feeds), ``WS_MAX_ALERT_RULES`` rules, ``WS_MAX_SYMBOLS`` new symbols per
``STREAM_INTERVAL_SECONDS``. A subscription that would pass one is refused with the REST
frame's members in ``extensions`` (``status``, ``limit``, ``maximum``, ``retryAfter``).

The payload types are read off the frames' declarations (:func:`apps.stream.frames.tick_schema`,
:func:`apps.stream.alerts.alert_schema`, the :class:`~marketdata.records.feeds.FeedItem`
record) by :class:`~apps.graphql.types.TypeBuilder`: a field is a frame's JSON member, same
name. An update that failed upstream, or symbols without a quote, come as a ``next`` whose
``errors`` carry the REST error frame's members (``status``, ``symbols``, ``provider``), once
per failing streak as in REST; the subscription goes on.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator, Callable
from typing import Any

from django.conf import settings
from graphql import (
    GraphQLArgument,
    GraphQLBoolean,
    GraphQLEnumType,
    GraphQLEnumValue,
    GraphQLError,
    GraphQLField,
    GraphQLFloat,
    GraphQLInputField,
    GraphQLInputObjectType,
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLString,
)

from apps.core.shapes import record_schema
from apps.graphql.execution import code_of
from apps.graphql.types import TypeBuilder
from apps.ratelimit.counters import OwnBucket
from apps.stream.alerts import CONDITIONS, AlertBook, Rule, alert_schema
from apps.stream.feeds import FeedHub, FeedKey, feed_key, get_feed_hub, sources_named
from apps.stream.frames import (
    FrameError,
    LimitError,
    error_frame,
    limit_frame,
    parse_rule,
    string_list,
    tick_schema,
)
from apps.stream.frames import (
    symbols as parse_symbols,
)
from apps.stream.hub import StreamHub, failure_body, get_hub, message_order
from apps.stream.sockets import NOTICE_BACKLOG, failure_frame
from marketdata.errors import MarketDataError
from marketdata.records.feeds import DEFAULT_SLUGS, FORM_TYPE_PATTERN, FeedItem, publisher


# -- errors --------------------------------------------------------------------------------------
def frame_error(frame: dict[str, Any]) -> GraphQLError:
    """A REST error frame ``{error, status, ...}`` as a GraphQL error: its message, and its
    other members in ``extensions`` with the status's ``code``."""
    status = int(frame.get("status") or 400)
    return GraphQLError(str(frame.get("error")), extensions={
        "code": code_of(status), **{k: v for k, v in frame.items() if k != "error"}})


class Failure:
    """An event that is an error frame (an update failed, symbols without a quote): its
    ``next`` has the error and null data."""

    def __init__(self, frame: dict[str, Any]) -> None:
        self.frame = frame


# -- one connection's subscriptions ----------------------------------------------------------
class _Member:
    """The connection as the quote hub counts it (``connections``): the hub's shutdown
    ends it. Its symbols are its subscriptions'."""

    def __init__(self, closed: Callable[[], None]) -> None:
        self._closed = closed

    @property
    def symbols(self) -> list[str]:
        return []

    def deliver(self, message: dict[str, Any]) -> None:
        """The subscriptions take their symbols' messages themselves."""

    def close(self) -> None:
        self._closed()


class Streams:
    """One WebSocket connection's subscriptions to the hubs, and what they hold together
    (the limits of a REST stream connection)."""

    def __init__(self, closed: Callable[[], None]) -> None:
        self.member = _Member(closed)
        self.hub: StreamHub | None = None
        self.quotes: set[QuoteSubscription] = set()
        self.feeds: set[FeedSubscription] = set()
        # New symbols per interval, as a REST connection (what its pollers would fetch).
        self.additions = OwnBucket(int(settings.WS_MAX_SYMBOLS),
                                   int(settings.WS_MAX_SYMBOLS)
                                   / float(settings.STREAM_INTERVAL_SECONDS))

    def open(self) -> bool:
        """Counted in by the quote hub; False when it is shutting down."""
        hub = get_hub()
        if hub.closing:
            return False
        self.hub = hub
        hub.connections.add(self.member)
        return True

    def symbols(self) -> set[str]:
        return {s for sub in self.quotes for s in sub.symbols}

    def rules(self) -> int:
        return sum(len(sub.book.rules) for sub in self.quotes if sub.book is not None)

    def feed_keys(self) -> set[FeedKey]:
        return {k for sub in self.feeds for k in sub.keys}

    async def close(self) -> None:
        """The connection ended: every subscription released."""
        for sub in [*self.quotes, *self.feeds]:
            await sub.release()
        if self.hub is not None:
            self.hub.connections.discard(self.member)

    async def start_quotes(self, sub: QuoteSubscription, wanted: list[str]) -> None:
        """Hold ``wanted`` for ``sub`` within the connection's limits (GraphQLError, nothing
        held, past one), its first ticks (or alerts) at once."""
        limit = int(settings.WS_MAX_SYMBOLS)
        held = self.symbols()
        total = held | set(wanted)
        if len(total) > limit:
            raise frame_error(limit_frame(
                f"A connection holds at most {limit} symbols (WS_MAX_SYMBOLS); this "
                f"subscription would make it {len(total)}", "WS_MAX_SYMBOLS", limit))
        added = [s for s in wanted if s not in held]
        if added:
            take = self.additions.take(len(added))
            if not take.allowed:
                raise frame_error(error_frame(
                    f"Too many new symbols: a connection adds at most {limit} per "
                    f"{settings.STREAM_INTERVAL_SECONDS:g} s (WS_MAX_SYMBOLS per "
                    "STREAM_INTERVAL_SECONDS, what its pollers would fetch)", 429,
                    retryAfter=take.retry_after))
        hub = self.hub
        if hub is None or hub.closing:
            raise frame_error(error_frame("The server is shutting down", 503))
        try:
            unknown = await hub.prime(wanted)
        except MarketDataError as exc:  # subscribed anyway: the pollers retry every cycle
            sub.push(Failure(failure_frame(failure_body(exc),
                                           [s for s in wanted if s not in hub.latest])))
            unknown = []
        if unknown:
            wanted = [s for s in wanted if s not in unknown]
            if sub.book is not None:
                sub.book = AlertBook([r for r in sub.book.rules if r.symbol not in unknown])
            frame = error_frame(f"No quote found for {', '.join(unknown)}", 404,
                                symbols=unknown)
            if not wanted:
                raise frame_error(frame)
            sub.push(Failure(frame))
        sub.symbols = wanted
        self.quotes.add(sub)
        await hub.add_symbols(sub, wanted)
        for symbol in wanted:  # the newest tick at once, not at the next cycle
            message = hub.latest.get(symbol)
            if message is not None:
                sub.deliver(message)


class Subscription:
    """One operation's events, waiting for the connection to take them."""

    def __init__(self, streams: Streams) -> None:
        self.streams = streams
        self.events: deque[Any] = deque()  # alerts, feed items and failures, oldest first
        self.wake = asyncio.Event()
        self.key: str | None = None  # the symbol of the tick just yielded (else None)
        self.released = False
        self.dropped = 0

    def push(self, event: Any) -> None:
        """An event that must not be merged with others; past ``NOTICE_BACKLOG`` waiting,
        the oldest goes."""
        self.events.append(event)
        while len(self.events) > NOTICE_BACKLOG:
            self.events.popleft()
            self.dropped += 1
        self.wake.set()

    def _take(self) -> Any:
        self.key = None
        return self.events.popleft() if self.events else None

    def _ready(self) -> bool:
        return bool(self.events)

    async def stream(self) -> AsyncIterator[Any]:
        """The events, as they come, for as long as the subscription runs."""
        while True:
            while not self._ready() and not self.released:
                self.wake.clear()
                await self.wake.wait()
            if self.released:
                return
            yield self._take()

    async def release(self) -> None:
        raise NotImplementedError


class QuoteSubscription(Subscription):
    """``priceStream`` (no book: ticks) or ``priceAlerts`` (a book: alerts), a subscriber of
    the quote hub (:class:`~apps.stream.hub.Subscriber`) taking messages as a REST
    connection does: a second leader's duplicate or a late message is dropped, a failure
    comes once per failing streak, a tick only when the quote changed, and a tick not yet
    taken is replaced by a newer one of its symbol."""

    def __init__(self, streams: Streams, book: AlertBook | None = None) -> None:
        super().__init__(streams)
        self.book = book
        self.symbols: list[str] = []
        self.latest: dict[str, dict[str, Any]] = {}  # the newest tick not yet taken
        self._order: dict[str, tuple[int, int]] = {}
        self._last: dict[str, dict[str, Any]] = {}
        self._failing: set[str] = set()

    def deliver(self, message: dict[str, Any]) -> None:
        symbol, order = message.get("symbol"), message_order(message)
        if symbol not in self.symbols or order is None or self.released:
            return
        assert isinstance(symbol, str)
        if order <= self._order.get(symbol, (-2, 0)):
            return
        self._order[symbol] = order
        if "error" in message:
            if symbol not in self._failing:
                self._failing.add(symbol)
                self.push(Failure(failure_frame(message["error"], [symbol])))
            return
        self._failing.discard(symbol)
        tick = message.get("tick")
        if tick is None or tick == self._last.get(symbol):
            return
        self._last[symbol] = tick
        if self.book is not None:
            for alert in self.book.check(tick):
                self.push(alert)
            return
        self.latest.pop(symbol, None)  # replaced: the newest goes last
        self.latest[symbol] = tick
        self.wake.set()

    def close(self) -> None:
        """The hub's shutdown ends the connection (its member), not each subscription."""

    def _ready(self) -> bool:
        return bool(self.events or self.latest)

    def _take(self) -> Any:
        if self.events:
            return super()._take()
        symbol = next(iter(self.latest))
        self.key = symbol
        return self.latest.pop(symbol)

    async def release(self) -> None:
        if self.released:
            return
        self.released = True
        self.wake.set()
        self.streams.quotes.discard(self)
        hub = self.streams.hub
        if hub is None or not self.symbols:
            return
        if hub.closing:
            hub.detach_later(self)
        else:
            await hub.remove_symbols(self, list(self.symbols))


class FeedSubscription(Subscription):
    """``feedStream``: a holder of feeds at the feed hub (new items pushed to it)."""

    def __init__(self, streams: Streams, hub: FeedHub, keys: list[FeedKey]) -> None:
        super().__init__(streams)
        self.hub = hub
        self.keys = keys

    def notify(self, frame: dict[str, Any]) -> None:
        if not self.released:
            self.push(frame)

    async def release(self) -> None:
        if self.released:
            return
        self.released = True
        self.wake.set()
        self.streams.feeds.discard(self)
        self.hub.release(self, self.keys)


class Operation:
    """The context of one subscription (``info.context``): the connection's streams, and
    the subscription once started."""

    def __init__(self, streams: Streams) -> None:
        self.streams = streams
        self.subscription: Subscription | None = None

    @property
    def key(self) -> str | None:
        """What the event just taken replaces when the client is slow (a tick's symbol);
        None: an event that must not be merged."""
        return self.subscription.key if self.subscription is not None else None

    async def release(self) -> None:
        if self.subscription is not None:
            await self.subscription.release()


# -- the fields ----------------------------------------------------------------------------------
def _checked(parse: Callable[[], Any]) -> Any:
    try:
        return parse()
    except LimitError as exc:
        raise frame_error(exc.frame()) from None
    except FrameError as exc:
        raise frame_error(error_frame(str(exc))) from None


async def _start(info: Any, sub: QuoteSubscription, wanted: list[str]) -> AsyncIterator[Any]:
    operation: Operation = info.context
    try:
        await operation.streams.start_quotes(sub, wanted)
    except BaseException:
        await sub.release()
        raise
    operation.subscription = sub
    return sub.stream()


async def subscribe_prices(_root: Any, info: Any, symbols: list[str]) -> AsyncIterator[Any]:
    limit = int(settings.WS_MAX_SYMBOLS)
    wanted: list[str] = _checked(lambda: parse_symbols(
        string_list({"symbols": symbols}, "symbols", limit, "WS_MAX_SYMBOLS"), "symbols"))
    if not wanted:
        raise frame_error(error_frame("'symbols' must list at least one symbol"))
    operation: Operation = info.context
    return await _start(info, QuoteSubscription(operation.streams), wanted)


async def subscribe_alerts(_root: Any, info: Any, rules: list[dict[str, Any]]
                           ) -> AsyncIterator[Any]:
    limit = int(settings.WS_MAX_ALERT_RULES)
    if not rules:
        raise frame_error(error_frame("'rules' must list at least one rule"))
    operation: Operation = info.context
    held = operation.streams.rules()
    if held + len(rules) > limit:
        raise frame_error(limit_frame(
            f"A connection holds at most {limit} alert rules (WS_MAX_ALERT_RULES); this "
            f"subscription would make it {held + len(rules)}", "WS_MAX_ALERT_RULES", limit))
    parsed: list[Rule] = _checked(lambda: [parse_rule(i, dict(raw), "rules")
                                           for i, raw in enumerate(rules)])
    book = AlertBook(parsed)
    return await _start(info, QuoteSubscription(operation.streams, book), book.symbols)


async def subscribe_feeds(_root: Any, info: Any, sources: list[str] | None = None,
                          formType: str | None = None) -> AsyncIterator[Any]:  # noqa: N803
    limit = int(settings.WS_MAX_SYMBOLS)
    if formType is not None and not FORM_TYPE_PATTERN.fullmatch(formType):
        raise frame_error(error_frame("'formType' must be a form type such as 8-K or 10-Q"))
    found = _checked(lambda: sources_named(
        string_list({"sources": sources or []}, "sources", limit, "WS_MAX_SYMBOLS")))
    if not found:
        found = [publisher(slug) for slug in DEFAULT_SLUGS]
    keys = list(dict.fromkeys(feed_key(source, formType) for source in found))
    operation: Operation = info.context
    streams = operation.streams
    total = streams.feed_keys() | set(keys)
    if len(total) > limit:
        raise frame_error(limit_frame(f"A connection holds at most {limit} feeds "
                                      "(WS_MAX_SYMBOLS)", "WS_MAX_SYMBOLS", limit))
    hub = get_feed_hub()
    sub = FeedSubscription(streams, hub, keys)
    streams.feeds.add(sub)
    hub.hold(sub, keys)
    operation.subscription = sub
    return sub.stream()


def payload(event: Any, _info: Any, **_arguments: Any) -> Any:
    """An event as the field's value; a failure as the field's error."""
    if isinstance(event, Failure):
        raise frame_error(event.frame)
    return event


def subscription_type() -> GraphQLObjectType:
    """The ``Subscription`` root type."""
    builder = TypeBuilder()
    builder.names.update({"AlertCondition", "PriceAlertRule"})
    tick = tick_schema()
    price_tick = builder.output(tick, "PriceTick")
    price_alert = builder.output(alert_schema(tick), "PriceAlert")
    feed_item = builder.output(record_schema(FeedItem), "FeedItem")
    condition = GraphQLEnumType("AlertCondition", {
        name: GraphQLEnumValue(name) for name in CONDITIONS},
        description="What a price alert rule waits for (`/docs/websockets`)")
    rule = GraphQLInputObjectType("PriceAlertRule", {
        "symbol": GraphQLInputField(GraphQLNonNull(GraphQLString)),
        "condition": GraphQLInputField(GraphQLNonNull(condition)),
        "value": GraphQLInputField(GraphQLNonNull(GraphQLFloat), description=(
            "The price, the percent change or the volume the condition compares with")),
        "repeat": GraphQLInputField(GraphQLBoolean, default_value=False, description=(
            "Fire again once the condition has been false on a later tick")),
    }, description="A price alert rule, as `/v2/stream`'s `alerts` take it")
    strings = GraphQLList(GraphQLNonNull(GraphQLString))
    return GraphQLObjectType("Subscription", {
        "priceStream": GraphQLField(price_tick, {
            "symbols": GraphQLArgument(GraphQLNonNull(strings), description=(
                "The symbols; a connection holds at most WS_MAX_SYMBOLS"))},
            subscribe=subscribe_prices, resolve=payload, description=(
                "`/v2/stream`'s ticks: each symbol's newest at once, then one whenever its "
                "quote changes")),
        "priceAlerts": GraphQLField(price_alert, {
            "rules": GraphQLArgument(GraphQLNonNull(GraphQLList(GraphQLNonNull(rule))),
                                     description=("The rules; a connection holds at most "
                                                  "WS_MAX_ALERT_RULES"))},
            subscribe=subscribe_alerts, resolve=payload, description=(
                "`/v2/stream`'s price alerts: one each time a rule fires (new rules meet "
                "the newest tick at once)")),
        "feedStream": GraphQLField(feed_item, {
            "sources": GraphQLArgument(strings, description=(
                "Feed slugs of `/v2/feeds` (none: its default feeds)")),
            "formType": GraphQLArgument(GraphQLString, description=(
                "The `sec-filings` feed's form (8-K by default)"))},
            subscribe=subscribe_feeds, resolve=payload, description=(
                "`/v2/feeds/stream`'s new items, oldest first, from the feeds' second poll "
                "on (what is there at the first is `feeds`' history)")),
    }, description="Live data over WebSocket (graphql-transport-ws at /graphql): the "
                   "WebSocket streams' frames, from the same shared pollers")
