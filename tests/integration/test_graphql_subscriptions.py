"""GraphQL subscriptions at ``/graphql`` (graphql-transport-ws) through the production server
command with the sandbox upstream, with a client nobody here wrote (gql's
WebsocketsTransport): ticks, alerts, feeds, unsubscribe releasing the hub's symbols, and the
bounds (subscriptions per connection, message size, Origin)."""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.request

import pytest
from gql import Client, GraphQLRequest
from gql.transport.exceptions import TransportQueryError
from gql.transport.websockets import WebsocketsTransport
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from tests.integration.servers import Process

pytestmark = [pytest.mark.integration]

# The same service as tests/integration/test_websocket_stream.py's (one process for both).
STREAM_ENV = {"USE_SECURITY": "false", "WEB_CONCURRENCY": "1", "STREAM_INTERVAL_SECONDS": "1",
              "V2_RATE_LIMIT_CAPACITY": "0"}
PROTOCOL = WebsocketsTransport.GRAPHQLWS_SUBPROTOCOL
TICKS = GraphQLRequest("subscription($s: [String!]!) { priceStream(symbols: $s) "
                       "{ id price currency time } }")
ALERTS = GraphQLRequest("subscription($r: [PriceAlertRule!]!) { priceAlerts(rules: $r) "
                        "{ symbol condition { priceAbove } price update { id price } } }")
FEEDS = "subscription { feedStream(sources: [\"sec\"]) { title url } }"


@pytest.fixture
def service(server_pool) -> Process:
    service = server_pool.service(STREAM_ENV)
    # The schema is built on the process's first GraphQL request (a second or two): made
    # here, so the tests' time bounds measure the streams.
    request = urllib.request.Request(f"{service.base_url}/graphql", method="POST",
                                     data=b'{"query": "{ __typename }"}',
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as response:
        assert response.status == 200
    return service


def ws_url(service: Process) -> str:
    return service.base_url.replace("http://", "ws://") + "/graphql"


def transport(service: Process, **options) -> WebsocketsTransport:
    return WebsocketsTransport(url=ws_url(service), subprotocols=[PROTOCOL], **options)


def stream_stats(service: Process) -> dict[str, float]:
    """The process's stream gauges of ``/metrics`` (sampled when read; no upstream call,
    where ``/v1/health`` makes its upstream report)."""
    with urllib.request.urlopen(f"{service.base_url}/metrics", timeout=30) as response:
        text = response.read().decode()
    out = {}
    for name in ("pollers", "connections"):
        found = re.search(rf"^marketdata_stream_{name}(?:{{[^}}]*}})? (\S+)$", text, re.M)
        assert found, f"no marketdata_stream_{name} in /metrics"
        out[name] = float(found.group(1))
    return out


async def released(service: Process, seconds: float = 5.0, connections: int | None = None
                   ) -> dict[str, float]:
    """The stream gauges once no poller is left (the hub's symbols released) and, if given,
    ``connections`` are open, within ``seconds``: the release follows the client's
    ``complete`` (or its close) over the network."""
    deadline = time.monotonic() + seconds
    while True:
        stats = await asyncio.to_thread(stream_stats, service)
        done = stats["pollers"] == 0 and (connections is None or
                                         stats["connections"] == connections)
        if done or time.monotonic() > deadline:
            return stats
        await asyncio.sleep(0.05)


def with_variables(request: GraphQLRequest, **variables) -> GraphQLRequest:
    return GraphQLRequest(request.document, variable_values=variables)


@pytest.mark.slow("the first stream of the process: the hub's first batch call, its "
                  "release read off /metrics")
def test_price_stream_ticks_for_two_symbols_and_unsubscribe_releases_the_hub(service):
    async def scenario():
        async with Client(transport=transport(service)) as session:
            seen: dict[str, dict] = {}
            request = with_variables(TICKS, s=["AAPL", "MSFT"])
            async with asyncio.timeout(4):
                async for result in session.subscribe(request):
                    tick = result["priceStream"]
                    seen[tick["id"]] = tick
                    if len(seen) == 2:
                        break  # gql sends `complete`
            assert set(seen) == {"AAPL", "MSFT"}
            assert seen["AAPL"]["currency"] == "USD" and seen["AAPL"]["price"] > 0
            stats = await released(service, connections=1)
            assert stats["pollers"] == 0 and stats["connections"] == 1
        assert (await released(service, connections=0))["connections"] == 0

    asyncio.run(scenario())


def test_price_alerts_fire_for_a_rule_that_is_met(service):
    async def scenario():
        async with Client(transport=transport(service)) as session:
            request = with_variables(ALERTS, r=[{"symbol": "AAPL", "condition": "priceAbove",
                                                 "value": 0.01}])
            async with asyncio.timeout(4):
                async for result in session.subscribe(request):
                    alert = result["priceAlerts"]
                    break
        assert alert["symbol"] == "AAPL" and alert["condition"] == {"priceAbove": 0.01}
        assert alert["price"] > 0.01 and alert["update"]["id"] == "AAPL"

    asyncio.run(scenario())


def test_feed_stream_subscribes_and_completes_cleanly(service):
    # The sandbox's feeds change with its clock's hour, and a feed's first poll is its
    # history: within a test's seconds there is no new item, so this checks the life cycle.
    async def scenario():
        async with connect(ws_url(service), subprotocols=[PROTOCOL]) as ws:
            assert ws.subprotocol == PROTOCOL
            await ws.send('{"type": "connection_init"}')
            assert json.loads(await ws.recv()) == {"type": "connection_ack"}
            await ws.send(json.dumps({"id": "f", "type": "subscribe",
                                      "payload": {"query": FEEDS}}))
            await ws.send('{"type": "ping"}')  # answered after the subscribe was handled
            assert json.loads(await ws.recv()) == {"type": "pong"}
            await ws.send('{"id": "f", "type": "complete"}')
            await ws.send('{"type": "ping"}')
            assert json.loads(await ws.recv()) == {"type": "pong"}
        assert ws.close_code == 1000

    asyncio.run(scenario())


def test_the_eleventh_subscription_is_refused(service):
    async def scenario():
        async with Client(transport=transport(service)) as session:
            running = [session.subscribe(with_variables(TICKS, s=["AAPL"]))
                       for _ in range(10)]
            async with asyncio.timeout(4):
                for generator in running:
                    assert (await anext(generator))["priceStream"]["id"] == "AAPL"
                with pytest.raises(TransportQueryError) as refused:
                    await anext(session.subscribe(with_variables(TICKS, s=["MSFT"])))
            assert "GRAPHQL_WS_MAX_SUBSCRIPTIONS" in str(refused.value)
            for generator in running:
                await generator.aclose()

    asyncio.run(scenario())


def test_an_oversize_message_closes_and_a_foreign_origin_is_refused(service):
    async def scenario():
        async with connect(ws_url(service), subprotocols=[PROTOCOL]) as ws:
            await ws.send('{"type": "connection_init"}')
            await ws.recv()
            await ws.send(json.dumps({"id": "1", "type": "subscribe", "payload": {
                "query": "subscription { priceStream(symbols: [\"AAPL\"]) { id } }",
                "variables": {"padding": "x" * 20000}}}))
            with pytest.raises(ConnectionClosed):
                async with asyncio.timeout(4):
                    while True:
                        await ws.recv()
        assert ws.close_code == 1009
        with pytest.raises(InvalidStatus) as refused:
            async with connect(ws_url(service), subprotocols=[PROTOCOL],
                               additional_headers={"Origin": "https://evil.example"}):
                pass
        assert refused.value.response.status_code == 403
        async with connect(ws_url(service)) as ws:  # no subprotocol
            with pytest.raises(ConnectionClosed):
                await ws.recv()
        assert ws.close_code == 4406

    asyncio.run(scenario())
