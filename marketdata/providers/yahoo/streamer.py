"""Yahoo's price streamer: one WebSocket per process that pushes ticks as they happen.

``wss://streamer.finance.yahoo.com/?version=2`` takes ``{"subscribe": [...]}`` and
``{"unsubscribe": [...]}`` frames and answers with JSON frames whose ``message`` is a
base64 protobuf ``PricingData``: tags 1-33 are the WebSocket stream's tick members in order
(prices as 32-bit floats, integers as zigzag ``sint64``, supply and market cap as doubles,
three enums). The decoder here is hand-written (a few wire types, one message) rather than
a protobuf runtime and generated code for one message.

:class:`PricingStream` keeps the subscription: it sends the symbols it follows on connect,
the differences as they change, and everything again every 15 s (the streamer forgets
quiet subscriptions); it reconnects after any close or failure, the upstream's own close
frames included, with jittered exponential backoff (3 s doubling to 60 s, reset after a
session that lasted a minute), and holds no connection while it follows nothing. It says
whether it is connected and when each symbol last ticked, so the stream's pollers poll
only what the streamer is not delivering (:mod:`apps.stream.hub`).
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import random
import struct
import time
from collections.abc import Callable, Iterable
from typing import Any

import orjson

from marketdata.http import open_websocket
from marketdata.logs import get_logger
from marketdata.records.quotes import TICK_KINDS, TICK_MEMBERS

log = get_logger("marketdata.providers.yahoo.streamer")

STREAMER_URL = "wss://streamer.finance.yahoo.com/?version=2"
# What Yahoo's own pages send with the handshake.
HANDSHAKE_HEADERS = {"Origin": "https://finance.yahoo.com"}
RESUBSCRIBE_SECONDS = 15.0
BACKOFF_FIRST_SECONDS = 3.0
BACKOFF_MAX_SECONDS = 60.0
BACKOFF_JITTER = 0.2
STABLE_SESSION_SECONDS = 60.0

# PricingData's fields by tag: (tick member, wire decoder kind); the members are
# TICK_MEMBERS in tag order.
_STRING, _FLOAT, _SINT, _ENUM, _DOUBLE = "string", "float", "sint", "enum", "double"
FIELDS: dict[int, tuple[str, str]] = dict(enumerate(zip(TICK_MEMBERS, TICK_KINDS, strict=True),
                                                    start=1))
ENUMS: dict[str, dict[int, str]] = {
    "quoteType": {0: "NONE", 5: "ALT_SYMBOL", 7: "HEARTBEAT", 8: "EQUITY", 9: "INDEX",
                  11: "MUTUAL_FUND", 12: "MONEY_MARKET", 13: "OPTION", 14: "CURRENCY",
                  15: "WARRANT", 17: "BOND", 18: "FUTURE", 20: "ETF", 23: "COMMODITY",
                  28: "ECN_QUOTE", 41: "CRYPTOCURRENCY", 42: "INDICATOR", 1000: "INDUSTRY"},
    "marketHours": {0: "PRE_MARKET", 1: "REGULAR_MARKET", 2: "POST_MARKET",
                    3: "EXTENDED_HOURS_MARKET"},
    "optionsType": {0: "CALL", 1: "PUT"},
}
_WIRE = {_STRING: 2, _FLOAT: 5, _SINT: 0, _ENUM: 0, _DOUBLE: 1}


class PricingDecodeError(ValueError):
    """A streamer frame that is not a well-formed PricingData."""


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if pos >= len(data) or shift > 63:
            raise PricingDecodeError("truncated varint")
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7


def shortest_float32(value: float) -> float:
    """The shortest decimal that is the same 32-bit float: what the upstream meant (a
    price of 187.42 arrives as 187.4199981689453)."""
    if value != value or value in (float("inf"), float("-inf")):
        return value
    for digits in range(1, 10):
        candidate = float(f"{value:.{digits}g}")
        try:
            same = struct.unpack("<f", struct.pack("<f", candidate))[0] == value
        except OverflowError:
            # Near float32's maximum a rounded candidate (3.403e38) lies past it: not the
            # same float, so try more digits (9 always give ``value`` back).
            continue
        if same:
            return candidate
    return value


def decode_pricing(data: bytes) -> dict[str, Any]:
    """A PricingData message -> the tick members it carries (absent ones are left out:
    protobuf 3 does not send zeros and empty strings). Unknown tags are skipped."""
    out: dict[str, Any] = {}
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        tag, wire = key >> 3, key & 7
        number, chunk = 0, b""
        if wire == 0:
            number, pos = _varint(data, pos)
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            chunk, pos = data[pos:pos + width], pos + width
        elif wire == 2:
            size, pos = _varint(data, pos)
            chunk, pos = data[pos:pos + size], pos + size
        else:
            raise PricingDecodeError(f"unsupported wire type {wire}")
        if pos > len(data):
            raise PricingDecodeError("truncated field")
        field = FIELDS.get(tag)
        if field is None or _WIRE[field[1]] != wire:
            continue
        name, kind = field
        if kind == _STRING:
            out[name] = chunk.decode("utf-8", "replace")
        elif kind == _FLOAT:
            out[name] = shortest_float32(struct.unpack("<f", chunk)[0])
        elif kind == _DOUBLE:
            out[name] = struct.unpack("<d", chunk)[0]
        elif kind == _SINT:
            out[name] = (number >> 1) ^ -(number & 1)
        else:
            value = number - (1 << 64) if number >= 1 << 63 else number
            out[name] = ENUMS[name].get(value, str(value))
    return out


def parse_frame(text: str | bytes) -> dict[str, Any] | None:
    """One streamer frame -> its tick members, or None for a frame that carries no price
    (anything without a ``message``; a heartbeat)."""
    try:
        envelope = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise PricingDecodeError("frame is not JSON") from exc
    message = envelope.get("message") if isinstance(envelope, dict) else None
    if not isinstance(message, str) or not message:
        return None
    try:
        payload = base64.b64decode(message, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise PricingDecodeError("message is not base64") from exc
    tick = decode_pricing(payload)
    if not tick.get("id") or tick.get("quoteType") == "HEARTBEAT":
        return None
    return tick


class PricingStream:
    """The process's subscription to the streamer (see the module doc).

    ``on_tick`` is called in the event loop with each decoded tick of a followed symbol.
    """

    def __init__(self, on_tick: Callable[[dict[str, Any]], None], *,
                 url: str = STREAMER_URL,
                 connect: Callable[[str], Any] | None = None) -> None:
        self.on_tick = on_tick
        self.url = url
        self.connect = connect or (lambda target: open_websocket(
            target, headers=HANDSHAKE_HEADERS))
        self.symbols: frozenset[str] = frozenset()
        self.connected = False
        self.last_tick: dict[str, float] = {}  # symbol -> time.monotonic() of its last tick
        self.ticks = 0
        self.failures = 0  # connection attempts or sessions that ended in an error
        self.bad_frames = 0
        self._task: asyncio.Task[None] | None = None
        self._changed: asyncio.Event | None = None

    # -- what the hub calls ----------------------------------------------------------------
    def follow(self, symbols: Iterable[str]) -> None:
        """Subscribe to exactly ``symbols`` (the upstream hears the difference)."""
        wanted = frozenset(symbols)
        if wanted == self.symbols:
            return
        self.symbols = wanted
        for symbol in [s for s in self.last_tick if s not in wanted]:
            del self.last_tick[symbol]
        if self._changed is None:
            self._changed = asyncio.Event()
        self._changed.set()
        if wanted and (self._task is None or self._task.done()):
            self._task = asyncio.get_running_loop().create_task(self._run(),
                                                                 name="yahoo-streamer")

    def fresh(self, symbol: str, within: float) -> bool:
        """Connected, and ``symbol`` ticked in the last ``within`` seconds."""
        at = self.last_tick.get(symbol)
        return self.connected and at is not None and time.monotonic() - at <= within

    def close(self) -> None:
        self.symbols = frozenset()
        if self._task is not None:
            self._task.cancel()
            self._task = None
        self.connected = False

    def stats(self) -> dict[str, Any]:
        return {"source": "yahoo", "connected": self.connected, "symbols": len(self.symbols),
                "ticks": self.ticks, "failures": self.failures, "bad_frames": self.bad_frames}

    # -- the connection --------------------------------------------------------------------
    async def _run(self) -> None:
        delay = BACKOFF_FIRST_SECONDS
        while self.symbols:
            started = time.monotonic()
            try:
                async with self.connect(self.url) as connection:
                    self.connected = True
                    log.info("price streamer connected", symbols=len(self.symbols))
                    await self._session(connection)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - any failure means: reconnect later
                self.failures += 1
                # Loud once per outage, quiet while it lasts (the pollers serve meanwhile).
                level = log.warning if delay == BACKOFF_FIRST_SECONDS else log.debug
                level("price streamer unavailable; polling instead",
                      error=f"{type(exc).__name__}: {exc}",
                      retry_in=round(delay, 1))
            finally:
                self.connected = False
            if not self.symbols:
                break
            if time.monotonic() - started >= STABLE_SESSION_SECONDS:
                delay = BACKOFF_FIRST_SECONDS
            await asyncio.sleep(delay * random.uniform(1 - BACKOFF_JITTER, 1 + BACKOFF_JITTER))
            delay = min(delay * 2, BACKOFF_MAX_SECONDS)

    async def _session(self, connection: Any) -> None:
        """Subscribe, then keep the subscription current while a reader takes the ticks;
        returns when the connection ends (an error is raised) or nothing is followed."""
        assert self._changed is not None
        reader = asyncio.get_running_loop().create_task(self._read(connection),
                                                        name="yahoo-streamer-reader")
        sent: frozenset[str] = frozenset()
        try:
            while True:
                wanted = self.symbols
                if not wanted:
                    return
                self._changed.clear()
                gone, new = sent - wanted, wanted - sent
                if gone:
                    await connection.send(orjson.dumps({"unsubscribe": sorted(gone)}).decode())
                if new:
                    await connection.send(orjson.dumps({"subscribe": sorted(new)}).decode())
                sent = wanted
                changed = asyncio.ensure_future(self._changed.wait())
                done, _ = await asyncio.wait({reader, changed}, timeout=RESUBSCRIBE_SECONDS,
                                             return_when=asyncio.FIRST_COMPLETED)
                changed.cancel()
                if reader in done:
                    reader.result()  # the connection's error
                    raise ConnectionError("the streamer closed the connection")
                if not done:  # quiet for 15 s: renew the whole subscription
                    await connection.send(orjson.dumps({"subscribe": sorted(sent)}).decode())
        finally:
            reader.cancel()

    async def _read(self, connection: Any) -> None:
        while True:
            text = await connection.recv()
            try:
                tick = parse_frame(text)
            except PricingDecodeError as exc:
                self.bad_frames += 1
                log.debug("price streamer frame skipped", error=str(exc))
                continue
            if tick is None or tick["id"] not in self.symbols:
                continue
            self.ticks += 1
            self.last_tick[tick["id"]] = time.monotonic()
            self.on_tick(tick)


def open_pricing_stream(on_tick: Callable[[dict[str, Any]], None]) -> PricingStream:
    """The capability layer's fetcher for pushed ticks (``quote_push``)."""
    return PricingStream(on_tick)
