"""Yahoo's price streamer: the PricingData decoder on hand-assembled wire bytes, the frame
envelope, and the subscription's life (subscribe on connect, differences, the 15 s renewal,
reconnection after the upstream closes, backoff, nothing held while nothing is followed)."""

from __future__ import annotations

import asyncio
import base64
import struct
from decimal import Decimal

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from marketdata.providers.yahoo import streamer
from marketdata.providers.yahoo.streamer import (
    PricingDecodeError,
    PricingStream,
    decode_pricing,
    parse_frame,
    shortest_float32,
)


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def zigzag(value: int) -> int:
    return (value << 1) ^ (value >> 63)


def key(tag: int, wire: int) -> bytes:
    return varint(tag << 3 | wire)


def text(tag: int, value: str) -> bytes:
    data = value.encode()
    return key(tag, 2) + varint(len(data)) + data


def f32(tag: int, value: float) -> bytes:
    return key(tag, 5) + struct.pack("<f", value)


# An equity tick as the streamer sends it: id, price, time, currency, exchange, quoteType
# EQUITY (8), marketHours REGULAR_MARKET (1), changePercent, dayVolume, change (negative),
# priceHint; zeros and empty strings absent.
EQUITY_TICK = (text(1, "AAPL") + f32(2, 187.42) + key(3, 0) + varint(zigzag(1732724412000))
               + text(4, "USD") + text(5, "NMS") + key(6, 0) + varint(8) + key(7, 0) + varint(1)
               + f32(8, -0.6512) + key(9, 0) + varint(zigzag(41_093_027)) + f32(12, -1.23)
               + key(27, 0) + varint(zigzag(2)))


def test_an_equity_tick_decodes_to_the_tick_members_it_carries():
    assert decode_pricing(EQUITY_TICK) == {
        "id": "AAPL", "price": 187.42, "time": 1732724412000, "currency": "USD",
        "exchange": "NMS", "quoteType": "EQUITY", "marketHours": "REGULAR_MARKET",
        "changePercent": -0.6512, "dayVolume": 41_093_027, "change": -1.23, "priceHint": 2}


def test_crypto_members_doubles_negative_integers_and_the_put_enum():
    payload = (text(1, "BTC-USD") + f32(2, 91234.5) + key(6, 0) + varint(41)
               + key(20, 0) + varint(1) + key(19, 0) + varint(zigzag(-5))
               + key(28, 0) + varint(zigzag(25_000_000_000)) + text(30, "BTC")
               + text(31, "CoinMarketCap") + key(32, 1) + struct.pack("<d", 19_800_000.0)
               + key(33, 1) + struct.pack("<d", 1.806e12))
    assert decode_pricing(payload) == {
        "id": "BTC-USD", "price": 91234.5, "quoteType": "CRYPTOCURRENCY", "optionsType": "PUT",
        "openInterest": -5, "vol24hr": 25_000_000_000, "fromCurrency": "BTC",
        "lastMarket": "CoinMarketCap", "circulatingSupply": 19_800_000.0,
        "marketCap": 1.806e12}


def test_unknown_tags_and_mismatched_wire_types_are_skipped_and_unknown_enums_kept():
    payload = (text(1, "X") + text(40, "future member") + key(41, 5) + b"\0\0\0\0"
               + key(2, 0) + varint(3)  # price as a varint: not the schema's, skipped
               + key(6, 0) + varint(99))
    assert decode_pricing(payload) == {"id": "X", "quoteType": "99"}


@pytest.mark.parametrize("payload", [
    text(1, "AAPL")[:-1],  # a string cut short
    key(2, 5) + b"\0\0",  # a float cut short
    key(3, 0) + b"\xff",  # a varint that never ends
    key(1, 3),  # a group: not in proto3
])
def test_truncated_or_malformed_payloads_are_refused(payload):
    with pytest.raises(PricingDecodeError):
        decode_pricing(payload)


@given(st.binary(max_size=200))
def test_any_bytes_decode_or_are_refused_never_crash(payload):
    try:
        decode_pricing(payload)
    except PricingDecodeError:
        pass


@given(st.floats(width=32, allow_nan=False, allow_infinity=False))
# float32's extremes: a short candidate for the maximum (3.403e38) is past it and does not
# pack (it raised OverflowError before the fix); the smallest subnormal needs many digits.
@example(3.4028234663852886e+38)
@example(-3.4028234663852886e+38)
@example(1.401298464324817e-45)
# 1e15 is the shortest decimal of this float32, and Python writes it longer
# ('1000000000000000.0' against '999999986991104.0'): digits are what is compared.
@example(999999986991104.0)
def test_the_shortest_decimal_is_the_same_32_bit_float(value):
    short = shortest_float32(value)
    assert struct.unpack("<f", struct.pack("<f", short))[0] == value
    assert _significant_digits(short) <= _significant_digits(value)


def _significant_digits(value: float) -> int:
    return len(Decimal(repr(value)).normalize().as_tuple().digits)


def test_a_float_at_float32s_maximum_decodes():
    assert decode_pricing(f32(2, 3.4028234663852886e+38))["price"] == 3.4028235e+38


def frame(payload: bytes, **extra) -> str:
    return orjson.dumps({"type": "pricing", "message": base64.b64encode(payload).decode(),
                         **extra}).decode()


def test_frames_carry_base64_pricing_data_and_heartbeats_carry_no_tick():
    assert parse_frame(frame(EQUITY_TICK))["price"] == 187.42
    assert parse_frame(frame(text(1, "AAPL") + key(6, 0) + varint(7))) is None  # HEARTBEAT
    assert parse_frame('{"type": "status"}') is None
    assert parse_frame(frame(f32(2, 1.0))) is None  # no id: nothing to attribute it to
    with pytest.raises(PricingDecodeError):
        parse_frame("not json")
    with pytest.raises(PricingDecodeError):
        parse_frame('{"message": "***"}')


# -- the subscription ---------------------------------------------------------------------------
class FakeUpstream:
    """Connections a test drives: what the stream sent, frames to hand it, closes."""

    def __init__(self, refuse: int = 0) -> None:
        self.refuse = refuse
        self.connections: list[FakeConnection] = []

    def __call__(self, url: str) -> FakeConnection:
        connection = FakeConnection(refused=len(self.connections) < self.refuse)
        self.connections.append(connection)
        return connection


class FakeConnection:
    def __init__(self, refused: bool) -> None:
        self.refused = refused
        self.sent: list[dict] = []
        self.inbox: asyncio.Queue = asyncio.Queue()

    async def __aenter__(self) -> FakeConnection:
        if self.refused:
            raise ConnectionRefusedError("refused")
        return self

    async def __aexit__(self, *exc) -> None:
        return None

    async def send(self, data: str) -> None:
        self.sent.append(orjson.loads(data))

    async def recv(self) -> str:
        item = await self.inbox.get()
        if isinstance(item, BaseException):
            raise item
        return item


@pytest.fixture
def quick(monkeypatch):
    monkeypatch.setattr(streamer, "BACKOFF_FIRST_SECONDS", 0.01)
    monkeypatch.setattr(streamer, "BACKOFF_MAX_SECONDS", 0.04)


async def until(condition, timeout: float = 5.0) -> None:
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.005)


def test_subscribes_on_connect_and_sends_differences_at_once(quick):
    async def scenario():
        upstream, ticks = FakeUpstream(), []
        stream = PricingStream(ticks.append, connect=upstream)
        stream.follow(["MSFT", "AAPL"])
        await until(lambda: upstream.connections and upstream.connections[0].sent)
        connection = upstream.connections[0]
        stream.follow(["AAPL", "BTC-USD"])
        await until(lambda: len(connection.sent) >= 3, timeout=2)  # not at the 15 s renewal
        connection.inbox.put_nowait(frame(EQUITY_TICK))
        connection.inbox.put_nowait(frame(text(1, "MSFT") + f32(2, 1.0)))  # unfollowed
        await until(lambda: stream.ticks)
        fresh = stream.fresh("AAPL", 60), stream.fresh("BTC-USD", 60)
        stream.close()
        return connection.sent, ticks, fresh

    sent, ticks, fresh = asyncio.run(scenario())
    assert sent == [{"subscribe": ["AAPL", "MSFT"]}, {"unsubscribe": ["MSFT"]},
                    {"subscribe": ["BTC-USD"]}]
    assert [t["id"] for t in ticks] == ["AAPL"]
    assert fresh == (True, False)


def test_a_quiet_subscription_is_renewed(quick, monkeypatch):
    monkeypatch.setattr(streamer, "RESUBSCRIBE_SECONDS", 0.1)

    async def scenario():
        upstream = FakeUpstream()
        stream = PricingStream(lambda tick: None, connect=upstream)
        stream.follow(["AAPL", "MSFT"])
        await until(lambda: upstream.connections and len(upstream.connections[0].sent) >= 3)
        stream.close()
        return upstream.connections[0].sent

    assert asyncio.run(scenario())[:3] == [{"subscribe": ["AAPL", "MSFT"]}] * 3


def test_reconnects_after_refusals_and_after_the_upstream_closes(quick):
    async def scenario():
        upstream, ticks = FakeUpstream(refuse=2), []
        stream = PricingStream(ticks.append, connect=upstream)
        stream.follow(["AAPL"])
        await until(lambda: len(upstream.connections) == 3 and stream.connected)
        failures = stream.failures
        upstream.connections[2].inbox.put_nowait(ConnectionError("closed by the upstream"))
        await until(lambda: len(upstream.connections) == 4 and stream.connected)
        subscribed = upstream.connections[3].sent
        await until(lambda: subscribed)
        stream.close()
        return failures, subscribed, stream.connected

    failures, subscribed, connected = asyncio.run(scenario())
    assert failures == 2
    assert subscribed[0] == {"subscribe": ["AAPL"]}, "the new session subscribes again"
    assert connected is False


def test_a_stream_following_nothing_holds_no_connection(quick):
    async def scenario():
        upstream = FakeUpstream()
        stream = PricingStream(lambda tick: None, connect=upstream)
        stream.follow([])
        await asyncio.sleep(0.05)
        assert upstream.connections == []
        stream.follow(["AAPL"])
        await until(lambda: stream.connected)
        stream.follow([])
        await until(lambda: not stream.connected, timeout=2)  # at once, not at the renewal
        await asyncio.sleep(0.05)
        return len(upstream.connections), stream.fresh("AAPL", 60)

    assert asyncio.run(scenario()) == (1, False)


def test_bad_frames_are_counted_and_skipped(quick):
    async def scenario():
        upstream, ticks = FakeUpstream(), []
        stream = PricingStream(ticks.append, connect=upstream)
        stream.follow(["AAPL"])
        await until(lambda: upstream.connections and stream.connected)
        inbox = upstream.connections[0].inbox
        for item in ("garbage", '{"message": "%%%"}', frame(EQUITY_TICK)):
            inbox.put_nowait(item)
        await until(lambda: ticks)
        stream.close()
        return stream.stats()

    stats = asyncio.run(scenario())
    assert stats["bad_frames"] == 2 and stats["ticks"] == 1


def test_the_handshake_goes_where_the_host_map_says(settings):
    from marketdata import http

    settings.UPSTREAM_HOST_MAP = "*.yahoo.com=http://127.0.0.1:9"
    connector = http.open_websocket(streamer.STREAMER_URL,
                                    headers=streamer.HANDSHAKE_HEADERS)
    assert connector.uri == "ws://127.0.0.1:9/?version=2"
    headers = dict(connector.additional_headers)
    assert headers[http.UPSTREAM_HOST_HEADER] == "streamer.finance.yahoo.com"
    assert headers["Origin"] == "https://finance.yahoo.com"
    settings.UPSTREAM_HOST_MAP = ""
    assert http.open_websocket(streamer.STREAMER_URL).uri == streamer.STREAMER_URL
