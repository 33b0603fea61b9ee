"""WebSocket ``/v2/stream`` and ``/v2/feeds/stream`` in process (Channels' communicator):
subscribe, ticks, unsubscribe, alerts, bad frames, reference counts, slow clients, the
handshake's checks, and the feeds stream's new-item pushes."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import orjson
import pytest
from channels.layers import InMemoryChannelLayer

from apps.feeds.services import feed_item
from apps.stream import feeds as feed_stream
from apps.stream import hub as hub_module
from apps.stream.hub import MESSAGE_TYPE, StreamHub
from apps.stream.leadership import LocalLeadership
from apps.stream.sockets import WAKE_MAX_DELAY_SECONDS, QuoteStreamSocket, StreamSocket
from config.asgi import websocket_router
from marketdata.errors import UpstreamUnavailable
from marketdata.records.feeds import FeedEntry
from marketdata.records.members import as_json
from tests.ws import WebsocketCommunicator

HOST = [(b"host", b"testserver")]


def tick(symbol: str, price: float, volume: int = 100) -> dict[str, Any]:
    return {"id": symbol, "price": price, "time": 1, "changePercent": 0.1,
            "dayVolume": volume}


class Prices:
    """Stands in for the quotes service: a price per symbol; UNKNOWN has none."""

    def __init__(self) -> None:
        self.prices: dict[str, float] = {}
        self.calls: list[list[str]] = []
        self.failing = False

    def __call__(self, symbols: list[str]) -> dict[str, dict[str, Any]]:
        self.calls.append(list(symbols))
        if self.failing:
            raise UpstreamUnavailable("yahoo", "Yahoo Finance is unreachable")
        return {s: {"quote": {"symbol": s}, "tick": tick(s, self.prices.get(s, 10.0))}
                for s in symbols if s != "UNKNOWN"}


def install_hub(fetch: Prices) -> StreamHub:
    loop = asyncio.get_running_loop()
    # Pollers wake at wall-clock multiples of the interval: with 1e9 s they never do during
    # a test (a real cycle's number would make the test's own cycles look late).
    hub = StreamHub(loop, 1e9, LocalLeadership(), fetch, InMemoryChannelLayer())
    hub_module._hubs[loop] = hub
    return hub


async def publish(hub: StreamHub, fetch: Prices, cycle: int) -> None:
    """One poller cycle for every subscribed symbol, as the pollers would run it."""
    await hub.run_cycle(cycle, sorted(hub.subscribers))
    await asyncio.sleep(0.05)  # the layer's group messages reach the hub's receiver


async def frames(ws: WebsocketCommunicator, timeout: float = 0.3) -> list[Any]:
    """Every frame the server sends within ``timeout``."""
    return [orjson.loads(text) for text in await ws.pending(timeout)]


async def opened(path: str = "/v2/stream", headers=HOST) -> WebsocketCommunicator:
    ws = WebsocketCommunicator(websocket_router, path, headers=headers)
    connected, _ = await ws.connect()
    assert connected
    return ws


def run(scenario):
    return asyncio.run(asyncio.wait_for(scenario(), timeout=30))


@pytest.fixture(autouse=True)
def _no_open_streams_counted():
    """Every test starts with no stream counted against its address: a test that ends
    without the client's disconnect (a communicator never sends one by itself) would leave
    its place taken for the next test of this worker."""
    from apps.stream import admission

    admission._open.clear()


# -- /v2/stream --------------------------------------------------------------------------------
def test_subscribe_gets_the_newest_ticks_at_once_then_only_changes():
    async def scenario():
        fetch = Prices()
        hub = install_hub(fetch)
        ws = await opened()
        await ws.send_to(text_data='{"subscribe": ["aapl", "MSFT", "aapl"]}')
        first = await frames(ws)
        assert [f["id"] for f in first] == ["AAPL", "MSFT"]
        assert fetch.calls == [["AAPL", "MSFT"]]  # one batch for the new symbols
        await publish(hub, fetch, 1)
        assert await frames(ws) == []  # nothing traded: no frame
        fetch.prices["MSFT"] = 11.5
        await publish(hub, fetch, 2)
        assert await frames(ws) == [tick("MSFT", 11.5)]
        await ws.disconnect()
        await asyncio.sleep(0.05)
        assert hub.subscribers == {} and hub.pollers == {} and hub.connections == set()

    run(scenario)


def test_a_second_connection_starts_from_the_hubs_newest_message_without_a_call():
    async def scenario():
        fetch = Prices()
        hub = install_hub(fetch)
        one, two = await opened(), await opened()
        await one.send_to(text_data='{"subscribe": ["AAPL"]}')
        assert len(await frames(one)) == 1
        await publish(hub, fetch, 1)
        await two.send_to(text_data='{"subscribe": ["AAPL"]}')
        assert await frames(two) == [tick("AAPL", 10.0)]
        assert fetch.calls == [["AAPL"], ["AAPL"]]  # the first opening and one cycle
        assert len(hub.subscribers["AAPL"]) == 2
        await one.disconnect()
        assert len(hub.subscribers["AAPL"]) == 1
        await two.disconnect()

    run(scenario)


def test_unsubscribe_stops_the_symbol_and_frees_its_poller():
    async def scenario():
        fetch = Prices()
        hub = install_hub(fetch)
        ws = await opened()
        await ws.send_to(text_data='{"subscribe": ["AAPL", "MSFT"]}')
        await frames(ws)
        await ws.send_to(text_data='{"unsubscribe": ["aapl"]}')
        await asyncio.sleep(0.05)
        assert set(hub.subscribers) == {"MSFT"} and set(hub.pollers) == {"MSFT"}
        fetch.prices.update(AAPL=20.0, MSFT=30.0)
        await publish(hub, fetch, 1)
        assert [f["id"] for f in await frames(ws)] == ["MSFT"]
        await ws.disconnect()

    run(scenario)


@pytest.mark.parametrize("text, message", [
    ("hello", "A frame must be a JSON object"),
    ('{"subscribe": "AAPL"}', "'subscribe' must be a list of strings"),
    ('{"subscribe": ["AAPL"], "depth": 5}', "Unknown member: 'depth'"),
    ('{"alerts": [{"symbol": "AAPL", "condition": "nearby", "value": 1}]}',
     "alerts[0].condition must be one of"),
])
def test_a_bad_frame_gets_an_error_frame_and_the_connection_stays(text, message):
    async def scenario():
        fetch = Prices()
        install_hub(fetch)
        ws = await opened()
        await ws.send_to(text_data=text)
        error = (await frames(ws))[0]
        assert error["status"] == 400 and message in error["error"]
        await ws.send_to(bytes_data=b"\x00\x01")
        assert (await frames(ws))[0]["error"] == "Send text frames holding a JSON object"
        await ws.send_to(text_data='{"subscribe": ["AAPL"]}')  # still open, still works
        assert (await frames(ws))[0]["id"] == "AAPL"
        await ws.disconnect()

    run(scenario)


def test_an_unknown_symbol_is_a_404_frame_and_is_not_held():
    async def scenario():
        fetch = Prices()
        hub = install_hub(fetch)
        ws = await opened()
        await ws.send_to(text_data='{"subscribe": ["AAPL", "UNKNOWN"]}')
        got = await frames(ws)
        assert got[0] == {"error": "No quote found for UNKNOWN", "status": 404,
                          "symbols": ["UNKNOWN"]}
        assert [f.get("id") for f in got[1:]] == ["AAPL"]
        assert set(hub.subscribers) == {"AAPL"}
        await ws.disconnect()

    run(scenario)


def test_too_many_symbols_is_refused_whole(settings):
    settings.WS_MAX_SYMBOLS = 2

    async def scenario():
        hub = install_hub(Prices())
        ws = await opened()
        await ws.send_to(text_data='{"subscribe": ["A", "B"]}')
        await frames(ws)
        await ws.send_to(text_data='{"subscribe": ["C"]}')
        error = (await frames(ws))[0]
        assert error["status"] == 400 and "at most 2 symbols" in error["error"]
        assert set(hub.subscribers) == {"A", "B"}
        await ws.disconnect()

    run(scenario)


def test_alerts_replace_raw_ticks_fire_once_and_an_empty_list_brings_ticks_back():
    async def scenario():
        fetch = Prices()
        hub = install_hub(fetch)
        ws = await opened()
        await ws.send_to(text_data='{"subscribe": ["MSFT"]}')
        await frames(ws)
        # the rule's symbol is subscribed by the rule; the rule meets the newest tick now
        await ws.send_to(text_data='{"alerts": [{"symbol": "aapl", "condition": '
                                   '"crossesAbove", "value": 15}, {"symbol": "MSFT", '
                                   '"condition": "priceBelow", "value": 50}]}')
        got = await frames(ws)
        assert [(f["symbol"], f["condition"]) for f in got] == [("MSFT", {"priceBelow": 50})]
        assert set(hub.subscribers) == {"AAPL", "MSFT"}
        fetch.prices.update(AAPL=16.0, MSFT=12.0)
        await publish(hub, fetch, 1)
        got = await frames(ws)  # no raw ticks in alert mode; MSFT's rule already fired
        assert [(f["symbol"], f["previousPrice"], f["price"]) for f in got] == \
            [("AAPL", 10.0, 16.0)]
        assert got[0]["update"] == tick("AAPL", 16.0)
        await ws.send_to(text_data='{"alerts": []}')
        await asyncio.sleep(0.05)
        assert set(hub.subscribers) == {"MSFT"}  # AAPL was held by its rule only
        fetch.prices["MSFT"] = 13.0
        await publish(hub, fetch, 2)
        assert await frames(ws) == [tick("MSFT", 13.0)]
        await ws.disconnect()

    run(scenario)


def test_rules_sent_again_and_again_leave_nothing_behind():
    async def scenario():
        hub = install_hub(Prices())
        ws = await opened()
        rules = '{"alerts": [{"symbol": "AAPL", "condition": "priceAbove", "value": 1e9}]}'
        for _ in range(5):
            await ws.send_to(text_data=rules)
            await ws.send_to(text_data='{"subscribe": ["AAPL"]}')
        await frames(ws)
        assert len(hub.subscribers["AAPL"]) == 1
        await ws.disconnect()
        await asyncio.sleep(0.05)
        assert hub.subscribers == {} and hub.pollers == {}

    run(scenario)


def test_a_failing_update_is_one_error_frame_per_streak():
    async def scenario():
        fetch = Prices()
        hub = install_hub(fetch)
        ws = await opened()
        await ws.send_to(text_data='{"subscribe": ["AAPL"]}')
        await frames(ws)
        fetch.failing = True
        await publish(hub, fetch, 1)
        await publish(hub, fetch, 2)
        got = await frames(ws)
        assert got == [{"error": "Yahoo Finance is unreachable", "status": 503,
                        "symbols": ["AAPL"], "provider": "yahoo"}]
        fetch.failing = False
        fetch.prices["AAPL"] = 12.0
        await publish(hub, fetch, 3)
        assert await frames(ws) == [tick("AAPL", 12.0)]
        await ws.disconnect()

    run(scenario)


def test_a_duplicate_cycle_from_a_second_leader_is_dropped():
    async def scenario():
        hub = install_hub(Prices())
        ws = await opened()
        await ws.send_to(text_data='{"subscribe": ["AAPL"]}')
        await frames(ws)
        message = {"type": MESSAGE_TYPE, "cycle": 7, "symbol": "AAPL",
                   "tick": tick("AAPL", 99.0)}
        hub.dispatch(message)
        hub.dispatch({**message, "tick": tick("AAPL", 98.0)})
        assert await frames(ws) == [tick("AAPL", 99.0)]
        await ws.disconnect()

    run(scenario)


def test_a_slow_client_loses_replaced_ticks_not_the_newest():
    async def scenario():
        socket = StreamSocket()
        socket.offer("AAPL", b'{"price":1}')
        socket.offer("MSFT", b'{"price":5}')
        socket.offer("AAPL", b'{"price":2}')
        assert socket.dropped == 1
        assert list(socket.latest.items()) == [("MSFT", b'{"price":5}'),
                                               ("AAPL", b'{"price":2}')]
        assert socket.wake_pending and not socket._wake.is_set()  # woken with the others
        await asyncio.sleep(WAKE_MAX_DELAY_SECONDS + 0.02)
        assert socket._wake.is_set() and not socket.wake_pending

    run(scenario)


def test_a_client_that_stops_reading_is_closed_and_does_not_hold_the_others(settings,
                                                                          monkeypatch):
    settings.WS_SEND_TIMEOUT_SECONDS = 0.2
    sockets: list[QuoteStreamSocket] = []
    original = QuoteStreamSocket.opened

    async def remembered(self):
        sockets.append(self)
        await original(self)

    monkeypatch.setattr(QuoteStreamSocket, "opened", remembered)

    async def scenario():
        fetch = Prices()
        hub = install_hub(fetch)
        stuck, healthy = await opened(), await opened()
        for ws in (stuck, healthy):
            await ws.send_to(text_data='{"subscribe": ["AAPL"]}')
            await frames(ws)

        async def never(message):  # the client's receive window is full
            await asyncio.Event().wait()

        sockets[0].base_send = never
        for cycle, price in zip(itertools.count(1), (11.0, 12.0, 13.0), strict=False):
            fetch.prices["AAPL"] = price
            await publish(hub, fetch, cycle)
            assert (await frames(healthy, 0.1))[-1]["price"] == price
        await asyncio.sleep(0.3)
        assert sockets[0].closed and not sockets[1].closed
        await healthy.disconnect()

    run(scenario)


# -- the handshake -----------------------------------------------------------------------------
def test_an_origin_outside_cors_allowed_origins_is_refused(settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://dash.example"]
    settings.CORS_ALLOW_ALL_ORIGINS = False

    async def scenario():
        install_hub(Prices())
        ws = WebsocketCommunicator(websocket_router, "/v2/stream",
                                   headers=[*HOST, (b"origin", b"https://evil.example")])
        connected, _ = await ws.connect()
        assert not connected
        ok = await opened(headers=[*HOST, (b"origin", b"https://dash.example")])
        await ok.disconnect()

    run(scenario)


def test_each_handshake_takes_a_v2_token(settings):
    settings.V2_RATE_LIMIT_CAPACITY = 1
    settings.V2_RATE_LIMIT_REFILL_PER_SECOND = 0.001
    settings.V2_RATE_LIMIT_SCOPE = "ip"

    async def scenario():
        install_hub(Prices())
        first = await opened()
        second = WebsocketCommunicator(websocket_router, "/v2/stream", headers=HOST)
        connected, _ = await second.connect()
        assert not connected
        await first.disconnect()

    run(scenario)


def test_a_host_outside_stream_allowed_hosts_is_refused(settings):
    settings.STREAM_ALLOWED_HOSTS = ["api.example"]

    async def scenario():
        ws = WebsocketCommunicator(websocket_router, "/v2/stream", headers=HOST)
        connected, _ = await ws.connect()
        assert not connected

    run(scenario)


def test_another_path_has_no_stream():
    async def scenario():
        ws = WebsocketCommunicator(websocket_router, "/v2/streams", headers=HOST)
        connected, _ = await ws.connect()
        assert not connected

    run(scenario)


# -- /v2/feeds/stream --------------------------------------------------------------------------
def entry(url: str, source: str = "SEC") -> FeedEntry:
    return FeedEntry(title=url, url=url, published=None, summary=None, source=source)


def item(url: str, source: str = "SEC") -> dict[str, Any]:
    """The frame of :func:`entry`: the item of GET /v2/feeds."""
    return as_json(feed_item(entry(url, source)))


def test_the_feeds_stream_pushes_items_first_seen_after_joining(monkeypatch):
    served = {"sec": [entry("b"), entry("a")]}
    calls = []

    def source_entries(source, form_type):
        calls.append((source.slug, form_type))
        return list(served.get(source.slug, []))

    monkeypatch.setattr(feed_stream, "source_entries", source_entries)

    async def scenario():
        loop = asyncio.get_running_loop()
        hub = feed_stream._hubs[loop] = feed_stream.FeedHub(loop, 60.0)
        ws = await opened("/v2/feeds/stream")
        await ws.send_to(text_data='{"subscribe": ["nosuchfeed"]}')
        error = (await frames(ws))[0]
        assert error["status"] == 400 and "Unknown feed source: 'nosuchfeed'" in error["error"]
        await ws.send_to(text_data='{"subscribe": ["SEC"]}')
        await asyncio.sleep(0.1)  # the first poll records what is there
        assert await frames(ws) == [] and calls == [("sec", None)]
        served["sec"] = [entry("d"), entry("c"), entry("b"), entry("a")]
        await hub.poll()
        assert await frames(ws) == [item("c"), item("d")]  # oldest first
        await hub.poll()
        assert await frames(ws) == []
        await ws.send_to(text_data='{"unsubscribe": ["sec"]}')
        await asyncio.sleep(0.05)
        assert hub.holders == {} and hub._task is None
        await ws.disconnect()

    run(scenario)


def test_an_empty_subscribe_holds_the_default_feeds(monkeypatch):
    monkeypatch.setattr(feed_stream, "source_entries", lambda source, form_type: [])

    async def scenario():
        loop = asyncio.get_running_loop()
        hub = feed_stream._hubs[loop] = feed_stream.FeedHub(loop, 60.0)
        ws = await opened("/v2/feeds/stream")
        await ws.send_to(text_data='{"subscribe": [], "formType": "8-K"}')
        await asyncio.sleep(0.05)
        assert sorted(k[0] for k in hub.holders) == ["bloomberg", "federal-reserve",
                                                     "marketwatch", "sec"]
        await ws.send_to(text_data='{"subscribe": ["sec-filings"], "formType": "8-K"}')
        await asyncio.sleep(0.05)
        assert ("sec-filings", "8-K") in hub.holders
        await ws.disconnect()
        await asyncio.sleep(0.05)
        assert hub.holders == {}

    run(scenario)


# -- the limits of one client ------------------------------------------------------------------
def test_frames_past_the_bucket_are_refused_and_a_client_that_keeps_on_is_closed(settings):
    settings.WS_FRAME_BURST = 3
    settings.WS_FRAMES_PER_SECOND = 0.001

    async def scenario():
        install_hub(Prices())
        ws = await opened()
        for _ in range(3):
            await ws.send_to(text_data='{"unsubscribe": ["AAPL"]}')
        assert await frames(ws) == []  # three within the burst, applied
        await ws.send_to(text_data='{"subscribe": ["AAPL"]}')
        (refused,) = await frames(ws)
        assert refused["status"] == 429 and refused["retryAfter"] >= 1
        assert "WS_FRAMES_PER_SECOND" in refused["error"] and "not applied" in refused["error"]
        for _ in range(3):  # three more refused in a row: the burst again
            await ws.send_to(text_data='{"subscribe": ["AAPL"]}')
        await ws.send_to(text_data='{"subscribe": ["AAPL"]}')
        closing = [m for m in await _outputs(ws) if m["type"] == "websocket.close"]
        assert closing == [{"type": "websocket.close", "code": 1008}]

    run(scenario)


async def _outputs(ws: WebsocketCommunicator, settle: float = 0.3) -> list[dict[str, Any]]:
    await asyncio.sleep(settle)
    out = []
    while not ws.output_queue.empty():
        out.append(ws.output_queue.get_nowait())
    return out


def test_a_connection_adds_no_more_symbols_per_interval_than_it_may_hold(settings):
    settings.WS_MAX_SYMBOLS = 4
    settings.STREAM_INTERVAL_SECONDS = 1000

    async def scenario():
        fetch = Prices()
        install_hub(fetch)
        ws = await opened()
        await ws.send_to(text_data='{"subscribe": ["A", "B", "C", "D"]}')
        assert len(await frames(ws)) == 4
        await ws.send_to(text_data='{"unsubscribe": ["A", "B"]}')
        await ws.send_to(text_data='{"subscribe": ["E"]}')
        (refused,) = await frames(ws)
        assert refused["status"] == 429 and "WS_MAX_SYMBOLS" in refused["error"]
        assert fetch.calls == [["A", "B", "C", "D"]]  # the refused one fetched nothing
        await ws.send_to(text_data='{"subscribe": ["A", "B", "C", "D", "E"]}')
        (too_many,) = await frames(ws)
        assert too_many == {"error": "'subscribe' lists 5 items; at most 4 (WS_MAX_SYMBOLS)",
                            "status": 400, "limit": "WS_MAX_SYMBOLS", "maximum": 4}
        await ws.disconnect()

    run(scenario)


def test_alert_rules_per_connection_are_capped_by_their_own_setting(settings):
    settings.WS_MAX_ALERT_RULES = 2

    async def scenario():
        install_hub(Prices())
        ws = await opened()
        rules = [{"symbol": "AAPL", "condition": "priceAbove", "value": v} for v in (1, 2, 3)]
        await ws.send_to(text_data=orjson.dumps({"alerts": rules}).decode())
        (refused,) = await frames(ws)
        assert refused["limit"] == "WS_MAX_ALERT_RULES" and refused["maximum"] == 2
        await ws.disconnect()

    run(scenario)


def test_waiting_notices_are_bounded_in_bytes_the_oldest_going_first(settings):
    settings.WS_SEND_QUEUE_BYTES = 1000
    socket = QuoteStreamSocket()
    for n in range(50):
        socket.notify({"error": f"notice {n:02d}" + "." * 60, "status": 400})
    assert socket.notice_bytes <= 1000
    assert socket.notice_bytes == sum(len(text) for text in socket.notices)
    assert orjson.loads(socket.notices[-1])["error"].startswith("notice 49")
    assert socket.dropped == 50 - len(socket.notices)


def test_the_per_address_cap_refuses_the_handshake_with_a_json_429(settings):
    settings.STREAM_MAX_CONNECTIONS_PER_ADDRESS = 2

    async def scenario():
        install_hub(Prices())
        one = await opened()
        two = await opened("/v2/feeds/stream")
        third = WebsocketCommunicator(websocket_router, "/v2/stream", headers=HOST,
                                      http_response=True)
        await third.send_input({"type": "websocket.connect"})
        start = await third.receive_output(1)
        body = await third.receive_output(1)
        assert start["status"] == 429
        assert orjson.loads(body["body"])["status"] == 429
        await one.disconnect()
        again = await opened()  # a place came back
        await again.disconnect()
        await two.disconnect()

    run(scenario)
