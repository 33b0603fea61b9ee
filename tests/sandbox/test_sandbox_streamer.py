"""The simulated price streamer: its frames decode to the v7 quote at the same clock, it
ticks only when a quote moved, it follows subscribe/unsubscribe frames, and it is served in
process and by the sandbox server's WebSocket upgrade (a real websockets client), refused
while a fault covers it."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import orjson
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from marketdata.providers.yahoo.streamer import parse_frame
from marketdata.sandbox.core import PathFault, UpstreamSandbox
from marketdata.sandbox.instruments import get_instrument
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.yahoo import streamer
from marketdata.sandbox.yahoo.market import market_view
from marketdata.sandbox.yahoo.quote import quote_values
from tests.sandbox.servers import serving

SESSION = datetime(2026, 11, 24, 15, 0, tzinfo=UTC)  # a Tuesday, New York's session open


def fixed_clock(at: datetime):
    return lambda: at


@pytest.mark.parametrize("symbol", ["AAPL", "^GSPC", "EURUSD=X", "BTC-USD", "SPY", "GC=F"])
def test_a_frame_decodes_to_the_quote_the_v7_endpoint_gives_at_that_time(symbol):
    now = int(SESSION.timestamp())
    values = quote_values(market_view(get_series(get_instrument(symbol)), now))
    tick = parse_frame(streamer.pricing_frame(streamer.tick_of(symbol, now)))
    assert tick["id"] == symbol
    assert tick["price"] == pytest.approx(values["regularMarketPrice"], rel=1e-7)  # float32
    assert tick["time"] == values["regularMarketTime"] * 1000
    assert tick["previousClose"] == pytest.approx(values["regularMarketPreviousClose"],
                                                  rel=1e-7)
    assert tick["priceHint"] == values["priceHint"]


def test_a_session_follows_its_frames_and_ticks_only_what_moved():
    clock = {"now": SESSION}
    session = streamer.StreamerSession(lambda: clock["now"])
    session.receive('{"subscribe": ["aapl", "MSFT", "ZZZZZZ"]}')
    session.receive("not json")
    first = [parse_frame(f)["id"] for f in session.due()]
    assert first == ["AAPL", "MSFT"]  # unknown symbols are ignored, as Yahoo does
    assert session.due() == []  # the same minute: nothing moved
    clock["now"] = SESSION + timedelta(minutes=1)
    session.receive('{"unsubscribe": ["MSFT"]}')
    assert [parse_frame(f)["id"] for f in session.due()] == ["AAPL"]


def test_a_closed_market_is_quiet():
    saturday = datetime(2026, 11, 28, 15, 0, tzinfo=UTC)
    clock = {"now": saturday}
    session = streamer.StreamerSession(lambda: clock["now"])
    session.receive('{"subscribe": ["AAPL"]}')
    assert len(session.due()) == 1  # the first frame: the last price
    clock["now"] = saturday + timedelta(hours=1)
    assert session.due() == []


def test_the_in_process_connection_is_refused_while_a_fault_covers_the_streamer():
    sandbox = UpstreamSandbox(clock=fixed_clock(SESSION))
    sandbox.configure(faults=[PathFault("wss://", 1.0, 0)])

    async def scenario():
        async with streamer.InProcessConnection(streamer.STREAMER_URL, sandbox):
            pass

    with pytest.raises(ConnectionRefusedError):
        asyncio.run(scenario())
    sandbox.configure(faults=[PathFault("wss://", 0.5, 0)])  # only certain failure refuses
    assert not sandbox.streamer_refused(streamer.STREAMER_URL)


@pytest.fixture
def server() -> Iterator[tuple[str, UpstreamSandbox]]:
    start, launched = SESSION, time.monotonic()
    sandbox = UpstreamSandbox(
        clock=lambda: start + timedelta(seconds=(time.monotonic() - launched) * 60))
    with serving(sandbox) as port:
        yield f"ws://127.0.0.1:{port}", sandbox


HEADERS = {"X-Upstream-Host": "streamer.finance.yahoo.com"}


@pytest.mark.slow("ticks at the streamer's real cadence over a socket")
def test_the_server_streams_ticks_over_a_real_websocket(server):
    base, _ = server

    async def scenario():
        async with connect(f"{base}/?version=2", additional_headers=HEADERS) as socket:
            await socket.send(orjson.dumps({"subscribe": ["AAPL", "BTC-USD"]}).decode())
            ticks = [parse_frame(await asyncio.wait_for(socket.recv(), 5)) for _ in range(4)]
            await socket.send(orjson.dumps({"unsubscribe": ["AAPL"]}).decode())
            await asyncio.sleep(streamer.TICK_PERIOD_SECONDS * 1.5)
            while True:  # drain what was sent before the unsubscribe landed
                try:
                    await asyncio.wait_for(socket.recv(), 0.01)
                except TimeoutError:
                    break
            later = [parse_frame(await asyncio.wait_for(socket.recv(), 5))["id"]
                     for _ in range(2)]
            return ticks, later

    ticks, later = asyncio.run(scenario())
    assert {t["id"] for t in ticks} == {"AAPL", "BTC-USD"}
    assert all(t["price"] > 0 and t["time"] > 0 for t in ticks)
    assert later == ["BTC-USD", "BTC-USD"]


def test_the_server_refuses_the_upgrade_under_a_fault_and_other_hosts(server):
    base, sandbox = server

    async def handshake(headers):
        async with connect(f"{base}/?version=2", additional_headers=headers):
            pass

    with pytest.raises(InvalidStatus) as refused:
        asyncio.run(handshake({"X-Upstream-Host": "query1.finance.yahoo.com"}))
    assert refused.value.response.status_code == 404
    sandbox.configure(faults=[PathFault("wss://streamer.finance.yahoo.com/", 1.0, 0)])
    with pytest.raises(InvalidStatus) as refused:
        asyncio.run(handshake(HEADERS))
    assert refused.value.response.status_code == 503


@pytest.mark.slow("ticks at the streamer's real cadence over a socket")
def test_an_open_connection_is_dropped_when_the_fault_begins(server):
    base, sandbox = server

    async def scenario():
        async with connect(f"{base}/?version=2", additional_headers=HEADERS) as socket:
            await socket.send('{"subscribe": ["BTC-USD"]}')
            await asyncio.wait_for(socket.recv(), 5)
            sandbox.configure(fail_rate=1.0)
            with pytest.raises(ConnectionClosed):
                for _ in range(10):
                    await asyncio.wait_for(socket.recv(), 5)

    asyncio.run(scenario())
