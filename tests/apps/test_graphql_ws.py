"""GraphQL subscriptions over WebSocket (``/graphql``, graphql-transport-ws) in process: the
protocol's state machine (init, ack, ping, subscribe, complete and its close codes), the three
subscriptions on the REST streams' hubs, and the REST streams' bounds."""

from __future__ import annotations

import asyncio
from typing import Any

import orjson
import pytest
from graphql import GraphQLField, GraphQLObjectType, GraphQLSchema, GraphQLString

from apps.graphql import ws as graphql_ws
from apps.graphql.schema import Built
from apps.graphql.subscriptions import subscription_type
from apps.stream import admission
from apps.stream import feeds as feed_stream
from apps.stream.alerts import alert_frame, alert_schema
from apps.stream.frames import tick_schema
from config.asgi import websocket_router
from marketdata.records.quotes import TICK_MEMBERS
from tests.apps.test_stream_sockets import Prices, entry, install_hub, item, publish, tick
from tests.ws import WebsocketCommunicator

HOST = [(b"host", b"testserver")]
PROTOCOL = "graphql-transport-ws"
TICKS = "subscription($s: [String!]!) { priceStream(symbols: $s) { id price dayVolume } }"
ALERTS = ("subscription($r: [PriceAlertRule!]!) { priceAlerts(rules: $r) { symbol condition "
          "{ priceAbove crossesAbove } price previousPrice update { id price } } }")
FEEDS = "subscription($s: [String!]) { feedStream(sources: $s) { title url source } }"

_built: Built | None = None


async def small_schema(_scope: Any) -> Built:
    """A schema with the real Subscription type and a one-field Query (the real Query needs
    /openapi.json; the routing test below uses it)."""
    global _built
    if _built is None:
        query = GraphQLObjectType("Query", {"hello": GraphQLField(GraphQLString)})
        schema = GraphQLSchema(query=query, subscription=subscription_type())
        _built = Built(schema, {}, "")
    return _built


APP = graphql_ws.GraphQLSocket.as_asgi(schema=small_schema)


@pytest.fixture(autouse=True)
def _no_open_streams_counted():
    admission._open.clear()


def run(scenario):
    return asyncio.run(asyncio.wait_for(scenario(), timeout=10))


async def connected(app: Any = APP, headers=HOST, subprotocols=(PROTOCOL,),
                    init: bool = True) -> WebsocketCommunicator:
    ws = WebsocketCommunicator(app, "/graphql", headers=headers,
                               subprotocols=list(subprotocols))
    await ws.send_input({"type": "websocket.connect"})
    accepted = await ws.receive_output(1)
    assert accepted["type"] == "websocket.accept"
    if init:
        await send(ws, {"type": "connection_init", "payload": {}})
        assert await message(ws) == {"type": "connection_ack"}
    return ws


async def send(ws: WebsocketCommunicator, data: Any) -> None:
    await ws.send_to(text_data=data if isinstance(data, str) else orjson.dumps(data).decode())


async def message(ws: WebsocketCommunicator, timeout: float = 1) -> dict[str, Any]:
    """The next message, or ``{"close": code, "reason": ...}`` when the server closes."""
    out = await ws.receive_output(timeout)
    if out["type"] == "websocket.close":
        return {"close": out.get("code"), "reason": out.get("reason")}
    assert out["type"] == "websocket.send", out
    return orjson.loads(out["text"])


async def subscribe(ws: WebsocketCommunicator, op: str, query: str, **variables: Any) -> None:
    await send(ws, {"id": op, "type": "subscribe",
                    "payload": {"query": query, "variables": variables}})


async def barrier(ws: WebsocketCommunicator) -> None:
    """Every message sent before this one has been handled: the server reads in order, and
    answers this ping only after them."""
    await send(ws, {"type": "ping", "payload": {"barrier": True}})
    got = await message(ws)
    while got != {"type": "pong", "payload": {"barrier": True}}:
        got = await message(ws)


async def nothing_more(ws: WebsocketCommunicator) -> None:
    assert await ws.pending(0.1) == []


# -- the protocol ----------------------------------------------------------------------------
def test_connection_init_ack_and_ping_pong():
    async def scenario():
        install_hub(Prices())
        ws = await connected()
        await send(ws, {"type": "ping", "payload": {"n": 1}})
        assert await message(ws) == {"type": "pong", "payload": {"n": 1}}
        await send(ws, {"type": "ping"})
        assert await message(ws) == {"type": "pong"}
        await send(ws, {"type": "pong"})  # a client's pong is taken and not answered
        await nothing_more(ws)
        await ws.disconnect()

    run(scenario)


def test_without_the_subprotocol_the_connection_is_closed_with_4406():
    async def scenario():
        install_hub(Prices())
        ws = await connected(subprotocols=("graphql-ws",), init=False)
        assert (await message(ws))["close"] == 4406

    run(scenario)


def test_the_accept_names_the_subprotocol():
    async def scenario():
        install_hub(Prices())
        ws = WebsocketCommunicator(APP, "/graphql", headers=HOST, subprotocols=[PROTOCOL])
        await ws.send_input({"type": "websocket.connect"})
        assert (await ws.receive_output(1))["subprotocol"] == PROTOCOL
        await ws.disconnect()

    run(scenario)


def test_no_init_in_time_closes_with_4408(monkeypatch):
    monkeypatch.setattr(graphql_ws, "INIT_TIMEOUT_SECONDS", 0.05)

    async def scenario():
        install_hub(Prices())
        ws = await connected(init=False)
        assert await message(ws) == {"close": 4408,
                                     "reason": "Connection initialisation timeout"}

    run(scenario)


def test_a_second_init_closes_with_4429():
    async def scenario():
        install_hub(Prices())
        ws = await connected()
        await send(ws, {"type": "connection_init"})
        assert await message(ws) == {"close": 4429,
                                     "reason": "Too many initialisation requests"}

    run(scenario)


def test_subscribe_before_the_ack_closes_with_4401():
    async def scenario():
        install_hub(Prices())
        ws = await connected(init=False)
        await subscribe(ws, "1", TICKS, s=["AAPL"])
        assert await message(ws) == {"close": 4401, "reason": "Unauthorized"}

    run(scenario)


@pytest.mark.parametrize("data", [
    "hello", "[]", '{"id": "1"}', '{"type": "subscribe", "id": "", "payload": {}}',
    '{"type": "subscribe", "id": "1", "payload": {"query": 5}}',
    '{"type": "subscribe", "id": "1", "payload": {"query": "{a}", "variables": [1]}}',
    '{"type": "bogus"}', '{"type": "next", "id": "1", "payload": {}}',
    '{"type": "ping", "payload": 3}',
])
def test_an_invalid_message_closes_with_4400(data):
    async def scenario():
        install_hub(Prices())
        ws = await connected()
        await send(ws, data)
        assert (await message(ws))["close"] == 4400

    run(scenario)


def test_a_binary_message_closes_with_4400():
    async def scenario():
        install_hub(Prices())
        ws = await connected()
        await ws.send_to(bytes_data=b"\x00")
        assert (await message(ws))["close"] == 4400

    run(scenario)


def test_a_running_id_subscribed_again_closes_with_4409():
    async def scenario():
        install_hub(Prices())
        ws = await connected()
        await subscribe(ws, "op", TICKS, s=["AAPL"])
        assert (await message(ws))["type"] == "next"
        await subscribe(ws, "op", TICKS, s=["MSFT"])
        assert await message(ws) == {"close": 4409, "reason": "Subscriber for op already exists"}

    run(scenario)


def test_refused_operations_get_one_error_message_and_the_connection_stays():
    async def scenario():
        install_hub(Prices())
        ws = await connected()
        await subscribe(ws, "1", "{ hello }")
        refused = await message(ws)
        assert refused["type"] == "error" and refused["id"] == "1"
        assert "HTTP" in refused["payload"][0]["message"]
        await subscribe(ws, "2", "subscription { priceStream(symbols: 5) { id } }")
        refused = await message(ws)
        assert refused["payload"][0]["extensions"]["code"] == "GRAPHQL_VALIDATION_FAILED"
        await subscribe(ws, "3", "subscription { priceStream(symbols: [\"AAPL\"]) { id }")
        assert (await message(ws))["payload"][0]["extensions"]["code"] == \
            "GRAPHQL_PARSE_FAILED"
        await subscribe(ws, "4", TICKS, s=["not a symbol!"])
        refused = await message(ws)
        assert refused["payload"][0]["extensions"]["status"] == 400
        assert "malformed symbols" in refused["payload"][0]["message"]
        await subscribe(ws, "1", TICKS, s=["AAPL"])  # an id refused is free again
        assert (await message(ws))["payload"]["data"]["priceStream"]["id"] == "AAPL"
        await ws.disconnect()

    run(scenario)


def test_the_query_limits_of_http_apply(settings):
    settings.GRAPHQL_MAX_DEPTH = 1

    async def scenario():
        install_hub(Prices())
        ws = await connected()
        await subscribe(ws, "1", ALERTS, r=[{"symbol": "A", "condition": "priceAbove",
                                              "value": 1}])
        refused = await message(ws)
        assert refused["payload"][0]["extensions"]["code"] == "QUERY_TOO_DEEP"
        await ws.disconnect()

    run(scenario)


# -- the subscriptions ---------------------------------------------------------------------
def test_price_stream_ticks_at_once_then_changes_and_complete_releases_the_hub():
    async def scenario():
        fetch = Prices()
        hub = install_hub(fetch)
        ws = await connected()
        await subscribe(ws, "t", TICKS, s=["aapl", "MSFT", "AAPL"])
        first = [await message(ws), await message(ws)]
        assert [m["payload"]["data"]["priceStream"]["id"] for m in first] == ["AAPL", "MSFT"]
        assert first[0] == {"id": "t", "type": "next", "payload": {"data": {"priceStream": {
            "id": "AAPL", "price": 10.0, "dayVolume": 100}}}}
        assert fetch.calls == [["AAPL", "MSFT"]]
        assert set(hub.subscribers) == {"AAPL", "MSFT"}
        await publish(hub, fetch, 1)
        await nothing_more(ws)  # nothing traded
        fetch.prices["MSFT"] = 11.5
        await publish(hub, fetch, 2)
        assert (await message(ws))["payload"]["data"]["priceStream"]["price"] == 11.5
        await send(ws, {"id": "t", "type": "complete"})
        await barrier(ws)
        assert hub.subscribers == {} and hub.pollers == {}
        fetch.prices["MSFT"] = 12.0
        await publish(hub, fetch, 3)
        await nothing_more(ws)  # no `complete` back: the client ended it
        await ws.disconnect()
        assert hub.connections == set()

    run(scenario)


def test_two_subscriptions_share_the_hub_and_a_disconnect_releases_both():
    async def scenario():
        fetch = Prices()
        hub = install_hub(fetch)
        rest = WebsocketCommunicator(websocket_router, "/v2/stream", headers=HOST)
        assert (await rest.connect())[0]
        await rest.send_to(text_data='{"subscribe": ["AAPL"]}')
        await rest.receive_from()
        ws = await connected()
        await subscribe(ws, "1", TICKS, s=["AAPL"])
        await subscribe(ws, "2", TICKS, s=["AAPL", "NVDA"])
        got = [await message(ws) for _ in range(3)]
        assert sorted((m["id"], m["payload"]["data"]["priceStream"]["id"]) for m in got) == \
            [("1", "AAPL"), ("2", "AAPL"), ("2", "NVDA")]
        assert fetch.calls == [["AAPL"], ["NVDA"]]  # AAPL came from the hub's newest
        assert len(hub.subscribers["AAPL"]) == 3
        await ws.disconnect()
        assert set(hub.subscribers) == {"AAPL"} and len(hub.subscribers["AAPL"]) == 1
        await rest.disconnect()

    run(scenario)


def test_price_alerts_fire_on_the_newest_tick_at_once_and_as_rest_does():
    async def scenario():
        fetch = Prices()
        hub = install_hub(fetch)
        ws = await connected()
        await subscribe(ws, "a", ALERTS, r=[
            {"symbol": "aapl", "condition": "priceAbove", "value": 5},
            {"symbol": "AAPL", "condition": "crossesAbove", "value": 12, "repeat": True}])
        fired = await message(ws)
        assert fired["payload"]["data"]["priceAlerts"] == {
            "symbol": "AAPL", "condition": {"priceAbove": 5.0, "crossesAbove": None},
            "price": 10.0, "previousPrice": None, "update": {"id": "AAPL", "price": 10.0}}
        await nothing_more(ws)  # no tick without a rule firing
        fetch.prices["AAPL"] = 13.0
        await publish(hub, fetch, 1)
        crossed = (await message(ws))["payload"]["data"]["priceAlerts"]
        assert crossed["condition"]["crossesAbove"] == 12.0
        assert crossed["previousPrice"] == 10.0
        await ws.disconnect()
        assert hub.subscribers == {}

    run(scenario)


def test_alert_rules_are_checked_as_rest_checks_them():
    async def scenario():
        install_hub(Prices())
        ws = await connected()
        await subscribe(ws, "a", ALERTS, r=[{"symbol": "A", "condition": "nearby",
                                              "value": 1}])
        refused = (await message(ws))["payload"][0]
        assert refused["extensions"] == {"code": "BAD_REQUEST", "status": 400}
        assert "'AlertCondition'" in refused["message"]
        await subscribe(ws, "b", ALERTS, r=[{"symbol": "no symbol!", "condition":
                                              "priceAbove", "value": 1}])
        refused = await message(ws)
        assert refused["payload"][0]["message"] == "rules[0].symbol must be a symbol"
        await ws.disconnect()

    run(scenario)


def test_unknown_symbols_are_a_404_and_are_not_held():
    async def scenario():
        hub = install_hub(Prices())
        ws = await connected()
        await subscribe(ws, "1", TICKS, s=["UNKNOWN"])
        refused = await message(ws)
        assert refused["type"] == "error"
        assert refused["payload"][0]["extensions"] == {
            "code": "NOT_FOUND", "status": 404, "symbols": ["UNKNOWN"]}
        await subscribe(ws, "2", TICKS, s=["AAPL", "UNKNOWN"])
        partial = await message(ws)
        assert partial["payload"]["data"] == {"priceStream": None}
        assert partial["payload"]["errors"][0]["extensions"]["status"] == 404
        assert (await message(ws))["payload"]["data"]["priceStream"]["id"] == "AAPL"
        assert set(hub.subscribers) == {"AAPL"}
        await ws.disconnect()

    run(scenario)


def test_a_failing_update_is_one_error_per_streak():
    async def scenario():
        fetch = Prices()
        hub = install_hub(fetch)
        ws = await connected()
        await subscribe(ws, "1", TICKS, s=["AAPL"])
        await message(ws)
        fetch.failing = True
        await publish(hub, fetch, 1)
        failed = await message(ws)
        assert failed["payload"]["errors"][0]["extensions"]["code"] == "SERVICE_UNAVAILABLE"
        assert failed["payload"]["errors"][0]["extensions"]["symbols"] == ["AAPL"]
        await publish(hub, fetch, 2)
        await nothing_more(ws)
        fetch.failing = False
        fetch.prices["AAPL"] = 11.0
        await publish(hub, fetch, 3)
        assert (await message(ws))["payload"]["data"]["priceStream"]["price"] == 11.0
        await ws.disconnect()

    run(scenario)


def test_feed_stream_pushes_new_items_and_complete_releases_the_feed(monkeypatch):
    served = {"sec": [entry("b"), entry("a")]}
    monkeypatch.setattr(feed_stream, "source_entries",
                        lambda source, form_type: list(served.get(source.slug, [])))

    async def scenario():
        install_hub(Prices())
        loop = asyncio.get_running_loop()
        hub = feed_stream._hubs[loop] = feed_stream.FeedHub(loop, 60.0)
        ws = await connected()
        await subscribe(ws, "f", FEEDS, s=["nosuchfeed"])
        refused = await message(ws)
        assert "Unknown feed source: 'nosuchfeed'" in refused["payload"][0]["message"]
        await subscribe(ws, "f", FEEDS, s=["SEC"])
        await barrier(ws)
        await hub.poll()  # the first poll records the history
        served["sec"] = [entry("d"), entry("c"), entry("b"), entry("a")]
        await hub.poll()
        got = [(await message(ws))["payload"]["data"]["feedStream"] for _ in range(2)]
        wanted = [{k: item(url)[k] for k in ("title", "url", "source")} for url in "cd"]
        assert got == wanted  # oldest first
        await send(ws, {"id": "f", "type": "complete"})
        await barrier(ws)
        assert hub.holders == {}
        await subscribe(ws, "g", FEEDS)  # no sources: the default feeds
        await barrier(ws)
        assert sorted(k[0] for k in hub.holders) == ["bloomberg", "federal-reserve",
                                                     "marketwatch", "sec"]
        await ws.disconnect()
        assert hub.holders == {}

    run(scenario)


# -- the bounds ----------------------------------------------------------------------------
def test_subscriptions_per_connection_are_capped(settings):
    settings.GRAPHQL_WS_MAX_SUBSCRIPTIONS = 2

    async def scenario():
        install_hub(Prices())
        ws = await connected()
        for op, symbol in (("1", "A"), ("2", "B")):
            await subscribe(ws, op, TICKS, s=[symbol])
            assert (await message(ws))["type"] == "next"
        await subscribe(ws, "3", TICKS, s=["C"])
        refused = await message(ws)
        assert refused["type"] == "error" and refused["id"] == "3"
        assert refused["payload"][0]["extensions"]["limit"] == "GRAPHQL_WS_MAX_SUBSCRIPTIONS"
        await send(ws, {"id": "1", "type": "complete"})
        await subscribe(ws, "3", TICKS, s=["C"])
        assert (await message(ws))["id"] == "3"
        await ws.disconnect()

    run(scenario)


def test_symbols_and_rules_are_counted_over_the_connections_subscriptions(settings):
    settings.WS_MAX_SYMBOLS = 2
    settings.WS_MAX_ALERT_RULES = 1

    async def scenario():
        fetch = Prices()
        install_hub(fetch)
        ws = await connected()
        await subscribe(ws, "1", TICKS, s=["A", "B"])
        await message(ws)
        await message(ws)
        await subscribe(ws, "2", TICKS, s=["C"])
        refused = await message(ws)
        assert refused["payload"][0]["extensions"] == {
            "code": "BAD_REQUEST", "status": 400, "limit": "WS_MAX_SYMBOLS", "maximum": 2}
        await subscribe(ws, "3", TICKS, s=["A", "B", "C"])
        refused = await message(ws)
        assert refused["payload"][0]["message"] == \
            "'symbols' lists 3 items; at most 2 (WS_MAX_SYMBOLS)"
        rule = {"symbol": "A", "condition": "priceAbove", "value": 1}
        await subscribe(ws, "4", ALERTS, r=[rule])
        assert (await message(ws))["type"] == "next"
        await subscribe(ws, "5", ALERTS, r=[rule])
        refused = await message(ws)
        assert refused["payload"][0]["extensions"]["limit"] == "WS_MAX_ALERT_RULES"
        assert fetch.calls == [["A", "B"]]
        await ws.disconnect()

    run(scenario)


def test_the_frame_bucket_refuses_a_subscribe_then_closes_with_1008(settings):
    settings.WS_FRAME_BURST = 3
    settings.WS_FRAMES_PER_SECOND = 0.001

    async def scenario():
        install_hub(Prices())
        ws = await connected()  # connection_init took one
        await send(ws, {"type": "ping"})
        await send(ws, {"type": "ping"})
        assert [await message(ws), await message(ws)] == [{"type": "pong"}] * 2
        await subscribe(ws, "x", TICKS, s=["AAPL"])
        refused = await message(ws)
        assert refused["type"] == "error" and refused["id"] == "x"
        assert refused["payload"][0]["extensions"]["status"] == 429
        assert refused["payload"][0]["extensions"]["retryAfter"] > 0
        for _ in range(3):
            await send(ws, {"type": "ping"})
        assert (await message(ws))["close"] == 1008

    run(scenario)


def test_a_message_over_the_limit_closes_with_1009(settings):
    settings.WS_MAX_MESSAGE_BYTES = 1024

    async def scenario():
        install_hub(Prices())
        ws = await connected()
        await subscribe(ws, "1", TICKS, s=["A" * 10] * 200)
        assert (await message(ws))["close"] == 1009

    run(scenario)


def test_the_handshake_is_checked_as_the_rest_streams(settings):
    settings.STREAM_MAX_CONNECTIONS_PER_ADDRESS = 1

    async def scenario():
        install_hub(Prices())

        async def refused(headers) -> tuple[int, dict[str, Any]]:
            ws = WebsocketCommunicator(websocket_router, "/graphql", headers=headers,
                                       http_response=True, subprotocols=[PROTOCOL])
            await ws.send_input({"type": "websocket.connect"})
            start = await ws.receive_output(1)
            body = await ws.receive_output(1)
            return start["status"], orjson.loads(body["body"])

        status, body = await refused([*HOST, (b"origin", b"https://evil.example")])
        assert status == 403 and "Origin not allowed" in body["error"]
        status, _ = await refused([(b"host", b"evil.example")])
        assert status == 400
        rest = WebsocketCommunicator(websocket_router, "/v2/stream", headers=HOST)
        assert (await rest.connect())[0]
        status, body = await refused(HOST)  # counted with the REST streams
        assert status == 429 and "STREAM_MAX_CONNECTIONS_PER_ADDRESS" in body["error"]
        await rest.disconnect()

    run(scenario)


def test_the_router_serves_graphql_subscriptions_with_the_http_schema():
    async def scenario():
        fetch = Prices()
        install_hub(fetch)
        ws = await connected(websocket_router)
        await subscribe(ws, "1", TICKS, s=["AAPL"])
        assert (await message(ws, 5))["payload"]["data"]["priceStream"]["id"] == "AAPL"
        await ws.disconnect()

    run(scenario)


# -- the payload types ---------------------------------------------------------------------
def test_the_payload_types_are_the_frames_members():
    subscription = subscription_type()
    fields = subscription.fields
    assert list(fields["priceStream"].type.fields) == list(TICK_MEMBERS)
    alert = fields["priceAlerts"].type
    frame = alert_frame(type("R", (), {"symbol": "A", "condition": "priceAbove",
                                       "value": 1.0})(), tick("A", 2.0), None)
    assert list(alert.fields) == list(frame) == list(alert_schema(tick_schema())["properties"])
    assert alert.fields["update"].type is fields["priceStream"].type
    assert list(fields["feedStream"].type.fields) == list(item("a"))
