"""WebSocket ``/v2/stream`` and ``/v2/feeds/stream`` through the production server command
(bin/serve: gunicorn + uvicorn) with the sandbox HTTP server as upstream: subscribe,
receive, unsubscribe, bad frames, refused handshakes with JSON bodies, and (with Redis) two
server processes sharing one poller leader per symbol."""

from __future__ import annotations

import asyncio
import json
import os
import time
import uuid

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from tests.integration.servers import (
    Process,
    configure_sandbox,
    http,
)

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("stream cycles of the service's real interval (1 s), two processes")]

# A session replayed at 60x: every symbol has a new price every second.
TIME_LAPSE = {"start": "2026-11-24T14:31:00Z", "speed": 60}
STREAM_ENV = {"USE_SECURITY": "false", "WEB_CONCURRENCY": "1"}


def _service(server_pool, **env: str) -> Process:
    """A service process of the test's own, on the worker's shared sandbox."""
    return server_pool.own_service({**STREAM_ENV, **env})


def ws_url(service: Process, path: str = "/v2/stream") -> str:
    return service.base_url.replace("http://", "ws://") + path


async def frames(ws, seconds: float, until=None) -> list[dict]:
    """The frames received within ``seconds``, or up to the one after which ``until(frames)``
    holds (a test that waits for something returns when it comes, not at the window's end)."""
    out: list[dict] = []
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        try:
            out.append(json.loads(await asyncio.wait_for(ws.recv(), left)))
        except TimeoutError:
            break
        if until is not None and until(out):
            break
    return out


def ticked(symbols, prices: int = 1):
    """``until`` for :func:`frames`: every one of ``symbols`` ticked, the first of them at
    ``prices`` different prices."""
    def done(got: list[dict]) -> bool:
        ticks = [f for f in got if "id" in f]
        return ({f["id"] for f in ticks} >= set(symbols)
                and len({f["price"] for f in ticks if f["id"] == symbols[0]}) >= prices)
    return done


def answered(got: list[dict]) -> bool:
    return any("id" not in frame for frame in got)


async def reply(ws) -> dict:
    """The first frame within 10 s that is not a tick: the stream's answer to what the
    client just sent (a tick of the still-subscribed symbols can come first, at 1 s)."""
    answers = [frame for frame in await frames(ws, 10, until=answered) if "id" not in frame]
    assert answers, "no answer within 10 s"
    return answers[0]


def stream_stats(service: Process) -> dict:
    status, _, body = http("GET", f"{service.base_url}/v1/health", timeout=60)
    assert status == 200
    return json.loads(body)["stream"]


@pytest.fixture
def stack(server_pool):
    service, sandbox = server_pool.stack({**STREAM_ENV, "STREAM_INTERVAL_SECONDS": "1",
                                          "V2_RATE_LIMIT_CAPACITY": "0"})
    configure_sandbox(sandbox, latency_ms=5)
    return sandbox, service


def test_subscribe_receive_bad_frames_and_unsubscribe(stack):
    _, service = stack

    async def scenario():
        async with connect(ws_url(service)) as ws:
            await ws.send('{"subscribe": ["aapl", "MSFT", "BTC-USD"]}')
            got = await frames(ws, 20, until=ticked(["AAPL", "MSFT", "BTC-USD"]))
            ticks = {f["id"]: f for f in got if "id" in f}
            assert set(ticks) == {"AAPL", "MSFT", "BTC-USD"}
            assert ticks["AAPL"]["currency"] == "USD" and ticks["AAPL"]["price"] > 0
            assert len(ticks["AAPL"]) == 33  # every tick member, null where unknown
            await ws.send("subscribe AAPL")
            error = await reply(ws)
            assert error == {"error": "A frame must be a JSON object", "status": 400}
            await ws.send('{"subscribe": ["AAPL"], "snapshot": true}')
            assert (await reply(ws))["status"] == 400
            await ws.send(b"\x00")
            assert (await reply(ws))["status"] == 400
            await ws.send('{"unsubscribe": ["AAPL", "MSFT", "BTC-USD"]}')
            await asyncio.sleep(0.5)
            assert stream_stats(service)["pollers"] == 0
            await ws.send('{"alerts": [{"symbol": "AAPL", "condition": "priceAbove", '
                          '"value": 0.01}]}')
            alert = (await frames(ws, 20, until=bool))[0]
            assert alert["symbol"] == "AAPL" and alert["condition"] == {"priceAbove": 0.01}
            assert alert["update"]["id"] == "AAPL"
        await asyncio.sleep(0.5)
        stats = stream_stats(service)
        assert stats["connections"] == 0 and stats["pollers"] == 0

    asyncio.run(scenario())


def test_refused_handshakes_answer_json(stack):
    _, service = stack

    async def scenario():
        with pytest.raises(InvalidStatus) as refused:
            async with connect(ws_url(service, "/v2/streams")):
                pass
        response = refused.value.response
        assert response.status_code == 404
        assert json.loads(response.body)["status"] == 404

    asyncio.run(scenario())


def test_each_handshake_takes_a_v2_token(server_pool):
    service = server_pool.service({**STREAM_ENV, "V2_RATE_LIMIT_CAPACITY": "1",
                                   "V2_RATE_LIMIT_REFILL_PER_SECOND": "0.01",
                                   "V2_RATE_LIMIT_SCOPE": "ip"})

    async def scenario():
        async with connect(ws_url(service)):
            with pytest.raises(InvalidStatus) as refused:
                async with connect(ws_url(service)):
                    pass
        response = refused.value.response
        assert response.status_code == 429
        assert int(response.headers["Retry-After"]) >= 1
        assert json.loads(response.body)["error"] == "Rate limit exceeded"

    asyncio.run(scenario())


def test_feeds_stream_refuses_an_unknown_source_and_stays_open(stack):
    _, service = stack

    async def scenario():
        async with connect(ws_url(service, "/v2/feeds/stream")) as ws:
            await ws.send('{"subscribe": ["nosuch"]}')
            error = (await frames(ws, 10, until=bool))[0]
            assert error["status"] == 400 and "Unknown feed source" in error["error"]
            await ws.send('{"subscribe": ["sec", "hn"]}')
            assert await frames(ws, 1) == []  # the first poll only records the history

    asyncio.run(scenario())


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL)")
def test_two_processes_share_one_poller_leader_per_symbol(server_pool):
    # A session at 60x: every symbol has a new price every second, so every cycle ticks.
    sandbox = server_pool.sandbox()
    configure_sandbox(sandbox, latency_ms=5, clock=TIME_LAPSE)
    shared = {"REDIS_URL": os.environ["REDIS_URL"],
              "CACHE_KEY_PREFIX": f"it-ws-{uuid.uuid4().hex[:8]}",
              "STREAM_INTERVAL_SECONDS": "1", "CACHE_TTL_CAP_SECONDS": "1"}
    first = second = None
    symbols = ["AAPL", "MSFT", "NVDA", "AMZN"]
    try:  # two processes of their own: a fresh key prefix, so no leader from before
        first = _service(server_pool, **shared)
        second = _service(server_pool, **shared)

        async def scenario():
            async with connect(ws_url(first)) as one, connect(ws_url(second)) as two:
                for ws in (one, two):
                    await ws.send(json.dumps({"subscribe": symbols}))
                await asyncio.sleep(2)
                http("POST", f"{sandbox.base_url}/__sandbox__/reset")
                started = time.time()
                # Each client's frames until every symbol moved three times (at most 8 s).
                got = await asyncio.gather(frames(one, 8, until=ticked(symbols, 3)),
                                           frames(two, 8, until=ticked(symbols, 3)))
                elapsed = time.time() - started
                _, _, body = http("GET", f"{sandbox.base_url}/__sandbox__/requests"
                                  "?path_prefix=/v7/finance/quote")
                leading = [stream_stats(first)["leading"], stream_stats(second)["leading"]]
                return got, json.loads(body)["count"], elapsed, leading

        got, calls, elapsed, leading = asyncio.run(scenario())
    finally:
        for server in (first, second):
            if server is not None:
                server.stop()
    for received in got:  # both processes' clients saw every symbol move, cycle after cycle
        ticks = [f for f in received if "id" in f]
        assert {f["id"] for f in ticks} == set(symbols)
        assert len({f["price"] for f in ticks if f["id"] == "AAPL"}) >= 3, ticks
    # one batch per cycle for the fleet (two if a lock changed hands), not one per process
    assert calls <= elapsed / 1.0 + 2, (calls, elapsed)
    assert sum(leading) == 4 and sorted(leading) in ([0, 4], [1, 3], [2, 2]), leading


def test_ticks_come_from_the_price_streamer_and_the_pollers_take_over_when_it_fails(
        server_pool):
    # A session at 60x: the simulated streamer has a new price for every symbol each second.
    service, sandbox = server_pool.stack({**STREAM_ENV, "STREAM_INTERVAL_SECONDS": "1",
                                          "STREAM_PUSH_FRESH_SECONDS": "2",
                                          "CACHE_TTL_CAP_SECONDS": "1",
                                          "V2_RATE_LIMIT_CAPACITY": "0"})
    configure_sandbox(sandbox, latency_ms=5, clock=TIME_LAPSE)
    symbols = ["AAPL", "MSFT"]

    def quote_polls() -> int:
        _, _, body = http("GET", f"{sandbox.base_url}/__sandbox__/requests"
                          "?path_prefix=/v7/finance/quote")
        return json.loads(body)["count"]

    async def scenario():
        async with connect(ws_url(service)) as ws:
            await ws.send(json.dumps({"subscribe": symbols}))
            # the first poll, then the streamer's first ticks
            # (each wait ends when what it waits for came: a long bound costs nothing)
            await frames(ws, 20, until=ticked(symbols, 2))
            http("POST", f"{sandbox.base_url}/__sandbox__/reset")
            pushed = await frames(ws, 20, until=ticked(symbols, 2))
            during_push = quote_polls(), stream_stats(service)
            status, _, _ = http("POST", f"{sandbox.base_url}/__sandbox__/config",
                                {"faults": [{"path_prefix": "wss://", "fail_rate": 1.0}]})
            assert status == 200
            await frames(ws, 4)  # the streamer drops; its ticks go stale within 2 s
            http("POST", f"{sandbox.base_url}/__sandbox__/reset")
            polled = await frames(ws, 20, until=ticked(symbols, 2))
            return pushed, during_push, polled, quote_polls(), stream_stats(service)

    pushed, (polls_during_push, push_stats), polled, polls_after, after_stats = \
        asyncio.run(scenario())
    for phase, received in (("pushed", pushed), ("polled", polled)):  # no client noticed
        ticks = [f for f in received if "id" in f]
        assert {f["id"] for f in ticks} == set(symbols), (phase, received)
        assert len({f["price"] for f in ticks if f["id"] == "AAPL"}) >= 2, (phase, ticks)
        assert all(len(f) == 33 for f in ticks)
    assert push_stats["push_connected"] == 1 and push_stats["pushed_ticks"] > 0, push_stats
    assert polls_during_push <= 1, "the streamer's symbols are not polled"
    assert after_stats["push_connected"] == 0
    assert polls_after >= 2, "the pollers serve while the streamer is down"  # cached 1 s
