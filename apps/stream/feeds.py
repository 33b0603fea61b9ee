"""WebSocket ``/v2/feeds/stream``: new items of publishers' feeds as they appear.

A :class:`FeedHub` per process polls the feeds its connections hold, one task for all of
them, every ``FEEDS_STREAM_INTERVAL_SECONDS`` (300 by default), through the same data cache
as ``GET /v2/feeds`` (so a fleet on Redis makes one upstream call per feed per cache
period). A feed's first poll only records what is there (that history is ``GET
/v2/feeds``); every later poll pushes the items not seen before, oldest first, to each
connection holding that feed. A feed nobody holds is forgotten at once.

Client frames: ``{"subscribe": [slugs], "formType": "8-K"}`` (an empty list means the
default feeds; ``formType`` is the ``sec-filings`` feed's form) and ``{"unsubscribe":
[slugs]}``. Server frames: one per new item, ``{title, url, published, summary, source,
sentiment}``; errors as ``{"error", "status"}``.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any, Protocol

from django.conf import settings

from apps.feeds.serializers import SLUG_LIST
from apps.feeds.services import feed_item, source_entries
from apps.stream.frames import (
    FEED_MEMBERS,
    FrameError,
    LimitError,
    decode,
    error_frame,
    limit_frame,
    quoted,
    string_list,
)
from apps.stream.hub import PerLoop
from apps.stream.sockets import StreamSocket
from marketdata.errors import MarketDataError
from marketdata.logs import get_logger
from marketdata.records.feeds import (
    DEFAULT_FORM_TYPE,
    DEFAULT_SLUGS,
    FORM_TYPE_PATTERN,
    Publisher,
    find_publisher,
    publisher,
)
from marketdata.records.members import as_json

log = get_logger("apps.stream.feeds")

SEEN_PER_FEED = 2000  # URLs remembered per feed (oldest forgotten first)
FeedKey = tuple[str, str | None]  # (slug, form type for sec-filings, else None)


def feed_key(source: Publisher, form_type: str | None) -> FeedKey:
    return source.slug, (form_type or DEFAULT_FORM_TYPE) if source.takes_form_type else None


class FeedHolder(Protocol):
    """What holds feeds at the hub: a ``/v2/feeds/stream`` connection, a GraphQL
    ``feedStream`` subscription. ``notify`` is handed each new item (JSON) and must not
    wait."""

    def notify(self, frame: dict[str, Any]) -> None: ...


class FeedHub:
    """This event loop's feed subscriptions and their single poller."""

    def __init__(self, loop: asyncio.AbstractEventLoop, interval: float) -> None:
        self.loop = loop
        self.interval = interval
        self.holders: dict[FeedKey, set[FeedHolder]] = {}
        self.seen: dict[FeedKey, OrderedDict[str, None]] = {}
        self.polls = 0
        self._task: asyncio.Task[None] | None = None

    def hold(self, socket: FeedHolder, keys: list[FeedKey]) -> None:
        for key in keys:
            self.holders.setdefault(key, set()).add(socket)
        if self.holders and self._task is None:
            self._task = self.loop.create_task(self._run(), name="feeds-stream-poller")

    def release(self, socket: FeedHolder, keys: list[FeedKey]) -> None:
        for key in keys:
            holders = self.holders.get(key)
            if holders is None:
                continue
            holders.discard(socket)
            if not holders:
                del self.holders[key]
                self.seen.pop(key, None)
        if not self.holders and self._task is not None:
            self._task.cancel()
            self._task = None

    async def _run(self) -> None:
        while True:
            try:
                await self.poll()
            except Exception:  # the poller only stops when nobody holds a feed
                log.exception("feeds stream poll failed")
            await asyncio.sleep(self.interval)

    async def poll(self) -> None:
        """One round: every held feed fetched concurrently, new items pushed."""
        keys = list(self.holders)
        results = await asyncio.gather(
            *(asyncio.to_thread(source_entries, publisher(slug), form) for slug, form in keys),
            return_exceptions=True)
        self.polls += 1
        for key, result in zip(keys, results, strict=True):
            holders = self.holders.get(key)
            if not holders:
                continue
            if isinstance(result, BaseException):
                if not isinstance(result, MarketDataError):
                    log.error("feeds stream fetch failed", feed=key[0], exc_info=result)
                continue  # retried next round; the REST route reports failures
            first = key not in self.seen
            seen = self.seen.setdefault(key, OrderedDict())
            fresh = [entry for entry in reversed(result) if entry.url not in seen]
            for entry in fresh:
                seen[entry.url] = None
            while len(seen) > SEEN_PER_FEED:
                seen.popitem(last=False)
            if first or not fresh:
                continue
            # Scored once, for new items only.
            items = [as_json(feed_item(entry)) for entry in fresh]
            for socket in list(holders):
                for item in items:
                    socket.notify(item)


_hubs: PerLoop[FeedHub] = PerLoop(
    lambda loop: FeedHub(loop, float(settings.FEEDS_STREAM_INTERVAL_SECONDS)))


def get_feed_hub() -> FeedHub:
    return _hubs.current()


def sources_named(names: list[str]) -> list[Publisher]:
    """The publishers of these slugs, once each; FrameError naming the unknown ones."""
    found, unknown = [], []
    for name in names:
        source = find_publisher(name)
        if source is None:
            unknown.append(name)
        elif source not in found:
            found.append(source)
    if unknown:
        raise FrameError(f"Unknown feed source: {quoted(unknown)}. "
                         f"Valid sources: {SLUG_LIST}")
    return found


class FeedStreamSocket(StreamSocket):
    """``/v2/feeds/stream``: the feeds this connection holds."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.hub: FeedHub | None = None
        self.keys: list[FeedKey] = []

    async def opened(self) -> None:
        self.hub = get_feed_hub()

    async def closing(self) -> None:
        if self.hub is not None:
            self.hub.release(self, self.keys)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None
                      ) -> None:
        assert self.hub is not None
        limit = int(settings.WS_MAX_SYMBOLS)
        try:
            data = decode(text_data, FEED_MEMBERS)
            form_type = data.get("formType")
            if form_type is not None and (not isinstance(form_type, str)
                                          or not FORM_TYPE_PATTERN.fullmatch(form_type)):
                raise FrameError("'formType' must be a form type such as 8-K or 10-Q")
            subscribe = sources_named(string_list(data, "subscribe", limit, "WS_MAX_SYMBOLS"))
            if "subscribe" in data and not subscribe:
                subscribe = [publisher(slug) for slug in DEFAULT_SLUGS]
            unsubscribe = {s.slug for s in sources_named(string_list(data, "unsubscribe", limit,
                                                                "WS_MAX_SYMBOLS"))}
        except LimitError as exc:
            self.notify(exc.frame())
            return
        except FrameError as exc:
            self.notify(error_frame(str(exc)))
            return
        added = [k for k in (feed_key(s, form_type) for s in subscribe) if k not in self.keys]
        keys = [*self.keys, *added]
        removed = [k for k in keys if k[0] in unsubscribe]
        keys = [k for k in keys if k not in removed]
        if len(keys) > limit:
            self.notify(limit_frame(f"A connection holds at most {limit} feeds "
                                    "(WS_MAX_SYMBOLS)", "WS_MAX_SYMBOLS", limit))
            return
        self.keys = keys
        self.hub.hold(self, [k for k in added if k not in removed])
        self.hub.release(self, removed)
