"""wss://streamer.finance.yahoo.com/?version=2: Yahoo's price streamer, simulated.

Why: the service's quote stream takes its ticks from this streamer when it answers and
polls when it does not; both paths must run offline. A :class:`StreamerSession` is one
client connection's state: the symbols it subscribed to (``{"subscribe": [...]}``,
``{"unsubscribe": [...]}``, unknown symbols ignored as Yahoo does) and the last tick sent
for each. Every :data:`TICK_PERIOD_SECONDS` it yields one frame per subscribed symbol whose
quote moved since its last frame (the same view as v7 quote at the sandbox clock), so a
closed market goes quiet as the real streamer does. Frames are JSON with a base64
protobuf ``PricingData`` (the wire schema is the provider module's, the one message both
ends share); zero members are left out, as protobuf 3 does.

Served two ways: in process (:class:`InProcessConnection`, named by the
``UPSTREAM_WEBSOCKETS`` setting in sandbox mode) and by the sandbox server's WebSocket
upgrade (marketdata.sandbox.server). The server refuses the handshake (503) while
:meth:`UpstreamSandbox.streamer_refused` says so (``fail_rate`` 1.0, or a path fault
failing every call whose prefix the streamer's URL starts with: ``{"path_prefix":
"wss://", "fail_rate": 1.0}``), and drops open connections then.
"""

from __future__ import annotations

import asyncio
import base64
import struct
from collections.abc import Callable
from datetime import datetime
from typing import Any

import orjson

from marketdata.providers.yahoo.streamer import ENUMS, FIELDS
from marketdata.records.quotes import TICK_MARKET_HOURS, tick_quote_type
from marketdata.sandbox.instruments import CRYPTO, get_instrument
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.yahoo.market import market_view
from marketdata.sandbox.yahoo.quote import quote_values

STREAMER_URL = "wss://streamer.finance.yahoo.com/"
STREAMER_HOST = "streamer.finance.yahoo.com"
TICK_PERIOD_SECONDS = 1.0
MAX_SYMBOLS = 2000  # per connection; more are ignored

_ENUM_NUMBERS = {name: {label: number for number, label in values.items()}
                 for name, values in ENUMS.items()}


def _varint(value: int) -> bytes:
    out = bytearray()
    value &= (1 << 64) - 1
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode_pricing(tick: dict[str, Any]) -> bytes:
    """Tick members -> PricingData bytes (members that are None, zero or empty are left
    out)."""
    out = bytearray()
    for tag, (name, kind) in FIELDS.items():
        value: Any = tick.get(name)
        if value in (None, 0, 0.0, ""):
            continue
        if kind == "string":
            data = str(value).encode()
            out += _varint(tag << 3 | 2) + _varint(len(data)) + data
        elif kind == "float":
            out += _varint(tag << 3 | 5) + struct.pack("<f", float(value))
        elif kind == "double":
            out += _varint(tag << 3 | 1) + struct.pack("<d", float(value))
        elif kind == "sint":
            number = int(value)
            out += _varint(tag << 3) + _varint((number << 1) ^ (number >> 63))
        else:
            out += _varint(tag << 3) + _varint(_ENUM_NUMBERS[name][value])
    return bytes(out)


def pricing_frame(tick: dict[str, Any]) -> str:
    """The streamer's JSON frame around one tick."""
    message = base64.b64encode(encode_pricing(tick)).decode()
    return orjson.dumps({"type": "pricing", "message": message}).decode()


def tick_of(symbol: str, now: int) -> dict[str, Any] | None:
    """What the streamer says about ``symbol`` at ``now`` (None: no such instrument)."""
    inst = get_instrument(symbol)
    if inst is None:
        return None
    values = quote_values(market_view(get_series(inst), now))
    tick = {
        "id": inst.symbol, "price": values["regularMarketPrice"],
        "time": int(values["regularMarketTime"]) * 1000, "currency": values["currency"],
        "exchange": values["exchange"], "quoteType": tick_quote_type(inst.kind),
        "marketHours": TICK_MARKET_HOURS.get(values["marketState"]),
        "changePercent": values["regularMarketChangePercent"],
        "dayVolume": values.get("regularMarketVolume"),
        "dayHigh": values["regularMarketDayHigh"], "dayLow": values["regularMarketDayLow"],
        "change": values["regularMarketChange"], "shortName": values["shortName"],
        "openPrice": values.get("regularMarketOpen"),
        "previousClose": values["regularMarketPreviousClose"],
        "priceHint": values["priceHint"],
    }
    if inst.kind == CRYPTO:
        tick.update(vol24hr=values.get("volume24Hr"),
                    volAllCurrencies=values.get("volumeAllCurrencies"),
                    fromCurrency=values.get("fromCurrency"), lastMarket=values.get("lastMarket"),
                    circulatingSupply=values.get("circulatingSupply"),
                    marketCap=values.get("marketCap"))
    return tick


class StreamerSession:
    """One client connection: its subscriptions and what it was last sent."""

    def __init__(self, clock: Callable[[], datetime]) -> None:
        self.clock = clock
        self.symbols: set[str] = set()
        self._sent: dict[str, tuple[Any, Any]] = {}  # symbol -> (price, time) last sent

    def receive(self, text: str) -> None:
        """A client frame: subscribe or unsubscribe (anything else is ignored)."""
        try:
            frame = orjson.loads(text)
        except orjson.JSONDecodeError:
            return
        if not isinstance(frame, dict):
            return
        for symbol in frame.get("unsubscribe") or []:
            if isinstance(symbol, str):
                self.symbols.discard(symbol.upper())
                self._sent.pop(symbol.upper(), None)
        for symbol in frame.get("subscribe") or []:
            if isinstance(symbol, str) and len(self.symbols) < MAX_SYMBOLS:
                self.symbols.add(symbol.upper())

    def due(self) -> list[str]:
        """The frames of the subscribed symbols whose quote moved since their last frame."""
        now = int(self.clock().timestamp())
        frames = []
        for symbol in sorted(self.symbols):
            tick = tick_of(symbol, now)
            if tick is None:
                continue
            mark = (tick["price"], tick["time"])
            if self._sent.get(symbol) == mark:
                continue
            self._sent[symbol] = mark
            frames.append(pricing_frame(tick))
        return frames


class InProcessConnection:
    """The sandbox mode's streamer connection: websockets' client interface (``send``,
    ``recv``, async ``with``) over a :class:`StreamerSession`, no socket."""

    def __init__(self, url: str, sandbox: Any = None) -> None:
        if sandbox is None:
            from marketdata.sandbox import get_sandbox

            sandbox = get_sandbox()
        self.sandbox = sandbox
        self.session = StreamerSession(sandbox.clock)
        self._pending: list[str] = []

    async def __aenter__(self) -> InProcessConnection:
        if self.sandbox.streamer_refused(STREAMER_URL):
            raise ConnectionRefusedError("sandbox streamer: handshake refused (503)")
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def send(self, text: str) -> None:
        self.session.receive(text)

    async def recv(self) -> str:
        while not self._pending:
            await asyncio.sleep(TICK_PERIOD_SECONDS)
            if self.sandbox.streamer_refused(STREAMER_URL):
                raise ConnectionResetError("sandbox streamer: connection dropped")
            # In a thread: a few hundred quotes take a while, and this is the server's loop.
            self._pending = await asyncio.to_thread(self.session.due)
        return self._pending.pop(0)


def connect(url: str) -> InProcessConnection:
    """``UPSTREAM_WEBSOCKETS["sandbox"]``: the in-process streamer for ``url``."""
    return InProcessConnection(url)
