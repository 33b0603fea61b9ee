"""The stream's parts without a server: SSE encoding, group names, a connection's snapshot of
the latest quotes, the hub's pollers (one per symbol, one batch call per cycle, errors keep
them alive), the connection generator's schedule, clean-up and shutdown, and the Redis
leader locks."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import os
import threading
import time
import uuid

import orjson
import pytest
from channels.layers import InMemoryChannelLayer

from apps.stream.events import HEARTBEAT, quote_group, sse_event, sse_retry
from apps.stream.hub import (
    MESSAGE_TYPE,
    StreamHub,
    begin_shutdown,
    failure_body,
    forget_channel,
    get_hub,
)
from apps.stream.leadership import LocalLeadership, RedisLeadership
from apps.stream.services import Snapshot, quote_events
from marketdata.errors import UpstreamUnavailable
from tests.conftest import capture_logs
from tests.sse import SseParser

INTERVAL = 0.2


def quote(symbol: str, price: str = "1.00") -> dict:
    return {"symbol": symbol, "name": symbol, "price": price, "change": "+0.00",
            "percentChange": "+0.00%"}


def message(symbol: str, cycle: int, **payload) -> dict:
    return {"type": MESSAGE_TYPE, "cycle": cycle, "symbol": symbol, **payload}


def parse_events(data: bytes) -> list[tuple[str, object]]:
    return [(b.event, orjson.loads(b.data)) for b in SseParser().feed(data.decode())
            if b.event is not None]


# -- wire format ---------------------------------------------------------------------------------
def test_sse_event_is_one_event_line_one_data_line_and_a_blank_line():
    assert sse_event("quote", [{"a": "x\ny"}]) == b'event: quote\ndata: [{"a":"x\\ny"}]\n\n'
    assert sse_retry(10000) == b"retry: 10000\n\n"
    assert HEARTBEAT.startswith(b":") and HEARTBEAT.endswith(b"\n\n")


@pytest.mark.parametrize("symbol, group", [
    ("AAPL", "md.quote.AAPL"), ("BRK-B", "md.quote.BRK-B"), ("^GSPC", "md.quote._5EGSPC"),
    ("EURUSD=X", "md.quote.EURUSD_3DX"), ("A_B", "md.quote.A_5FB"), ("RDS.A", "md.quote.RDS.A"),
])
def test_group_names_are_valid_and_distinct(symbol, group):
    assert quote_group(symbol) == group
    InMemoryChannelLayer().require_valid_group_name(group)


# -- one connection's snapshot -------------------------------------------------------------------
def test_an_event_is_the_latest_quotes_in_request_order():
    snapshot = Snapshot(["B", "A"], {"A": quote("A"), "B": quote("B")})
    snapshot.add(message("A", 7, quote=quote("A", "2.00")))
    snapshot.add(message("A", 8, quote=quote("A", "3.00")))  # two polls between events
    assert parse_events(snapshot.event()) == [("quote", [quote("B"), quote("A", "3.00")])]
    # nothing new: the next event repeats the latest quotes
    assert parse_events(snapshot.event()) == [("quote", [quote("B"), quote("A", "3.00")])]


def test_failures_are_one_error_event_per_reason_after_the_quotes_and_reported_once():
    snapshot = Snapshot(["A", "B", "C"], {s: quote(s) for s in "ABC"})
    down = failure_body(UpstreamUnavailable("yahoo", "Yahoo Finance is unreachable"))
    snapshot.add(message("C", 3, error=down))
    snapshot.add(message("A", 3, error=down))
    snapshot.add(message("B", 3, quote=quote("B", "5.00")))
    assert parse_events(snapshot.event()) == [
        ("quote", [quote("A"), quote("B", "5.00"), quote("C")]),
        ("error", {"detail": "Yahoo Finance is unreachable", "provider": "yahoo",
                   "code": "upstream_unavailable", "status": 503, "symbols": ["A", "C"]}),
    ]
    assert parse_events(snapshot.event()) == [
        ("quote", [quote("A"), quote("B", "5.00"), quote("C")])]


def test_when_every_latest_update_failed_the_event_is_only_errors():
    snapshot = Snapshot(["A"], {"A": quote("A")})
    snapshot.add(message("A", 3, error={"detail": "x", "status": 502}))
    assert parse_events(snapshot.event()) == [
        ("error", {"detail": "x", "status": 502, "symbols": ["A"]})]
    assert snapshot.event() == b""  # still failing, nothing new to say
    snapshot.add(message("A", 4, quote=quote("A", "2.00")))  # recovered
    assert parse_events(snapshot.event()) == [("quote", [quote("A", "2.00")])]


def test_a_failure_followed_by_a_quote_before_the_event_is_not_reported():
    snapshot = Snapshot(["A"], {"A": quote("A")})
    snapshot.add(message("A", 3, error={"detail": "x", "status": 502}))
    snapshot.add(message("A", 4, quote=quote("A", "2.00")))
    assert parse_events(snapshot.event()) == [("quote", [quote("A", "2.00")])]


def test_duplicates_old_cycles_and_foreign_symbols_are_ignored():
    snapshot = Snapshot(["A", "B"], {"A": quote("A"), "B": quote("B")})
    snapshot.add(message("A", 5, quote=quote("A", "2.00")))
    snapshot.add(message("A", 5, quote=quote("A", "7.00")))  # a second leader
    snapshot.add(message("A", 4, quote=quote("A", "8.00")))  # an older cycle
    snapshot.add(message("Z", 5, quote=quote("Z")))
    assert snapshot.quotes() == [quote("A", "2.00"), quote("B")]


# -- the hub -------------------------------------------------------------------------------------
class FakeFetch:
    """Stands in for the quotes service; records every batch call (from the worker thread)."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []
        self.failing = False
        self.lock = threading.Lock()

    def __call__(self, symbols: list[str]) -> dict[str, dict]:
        with self.lock:
            self.calls.append(list(symbols))
        if self.failing:
            raise UpstreamUnavailable("yahoo", "Yahoo Finance is unreachable")
        return {s: {"quote": quote(s)} for s in symbols if s != "GONE"}


def run(coro, timeout: float = 30):
    return asyncio.run(asyncio.wait_for(coro, timeout=timeout))


def new_hub(fetch, layer=None, leadership=None, interval: float = INTERVAL) -> StreamHub:
    return StreamHub(asyncio.get_running_loop(), interval, leadership or LocalLeadership(),
                     fetch, layer or InMemoryChannelLayer())


class Subscriber:
    def __init__(self, *symbols: str) -> None:
        self.symbols = list(symbols)
        self.messages: list[dict] = []
        self.closed = False

    def deliver(self, message: dict) -> None:
        self.messages.append(message)

    def close(self) -> None:
        self.closed = True


def test_pollers_and_group_memberships_are_per_symbol_and_end_with_the_last_subscriber():
    async def scenario():
        layer = InMemoryChannelLayer()
        hub = new_hub(FakeFetch(), layer)
        first, second = Subscriber("A", "B"), Subscriber("B", "C")
        await hub.connect(first)
        await hub.connect(second)
        assert sorted(hub.pollers) == ["A", "B", "C"]
        assert hub.stats()["connections"] == 2 and hub.stats()["subscriptions"] == 4
        # the hub's one channel is the member of each symbol's group, not the connections
        assert {g: list(m) for g, m in layer.groups.items()} == {
            quote_group(s): [hub.channel] for s in "ABC"}
        tasks = [p.task for p in hub.pollers.values()]
        await hub.disconnect(first)
        assert sorted(hub.pollers) == ["B", "C"]
        assert sorted(layer.groups) == [quote_group("B"), quote_group("C")]
        await hub.disconnect(second)
        await asyncio.sleep(0)
        return hub, layer, tasks

    hub, layer, tasks = run(scenario())
    assert hub.pollers == {} and hub.stats()["connections"] == 0 and layer.groups == {}
    assert all(t.cancelled() for t in tasks)
    assert hub.channel is None, "the receiver stops with the last subscriber"


def test_one_batch_call_per_cycle_for_every_active_symbol_whatever_the_connections():
    fetch = FakeFetch()
    symbols = [f"S{i:02d}" for i in range(30)]

    async def scenario():
        hub = new_hub(fetch)
        subscribers = [Subscriber(*(symbols[(3 * i + j) % 30] for j in range(3)))
                       for i in range(300)]  # 300 connections over 30 symbols, 3 each
        for subscriber in subscribers:
            await hub.connect(subscriber)
        await asyncio.sleep(INTERVAL * 3.5)
        for subscriber in subscribers:
            await hub.disconnect(subscriber)
        # Both counts at one instant: a cycle counted before the disconnects can still send
        # its batch while the loop shuts down (4 calls against 3 cycles read earlier, once,
        # on a machine loaded 2.5x).
        return hub.cycles_run, len(fetch.calls), subscribers

    cycles, calls, subscribers = run(scenario())
    assert cycles >= 2
    # One upstream batch per cycle, never more; the disconnects can land after the last
    # cycle was counted and before its batch went out (nobody left: no call), so that cycle
    # may have none (a loaded machine: CI, once).
    assert cycles - 1 <= calls <= cycles, "one upstream batch per cycle"
    assert all(call == sorted(symbols) for call in fetch.calls)
    for subscriber in subscribers:  # each got its symbols' messages, every cycle
        by_cycle: dict[int, set[str]] = {}
        for m in subscriber.messages:
            by_cycle.setdefault(m["cycle"], set()).add(m["symbol"])
        # Only its own symbols, and every one of them in each cycle between the first and
        # the last: the connects can land while the first cycle is being delivered, the
        # disconnects while the last one is (a loaded machine stretches both).
        cycles_seen = [by_cycle[cycle] for cycle in sorted(by_cycle)]
        assert all(v <= set(subscriber.symbols) for v in cycles_seen)
        assert all(v == set(subscriber.symbols) for v in cycles_seen[1:-1])
        assert any(v == set(subscriber.symbols) for v in cycles_seen)


def test_each_cycle_publishes_one_message_per_symbol_and_a_failure_keeps_polling():
    fetch = FakeFetch()

    async def scenario():
        hub = new_hub(fetch)
        subscriber = Subscriber("A", "GONE")
        await hub.connect(subscriber)
        while len(subscriber.messages) < 2:
            await asyncio.sleep(0.01)
        fetch.failing = True
        while len(subscriber.messages) < 4:
            await asyncio.sleep(0.01)
        fetch.failing = False
        while len(subscriber.messages) < 6:
            await asyncio.sleep(0.01)
        await hub.disconnect(subscriber)
        return subscriber.messages

    messages = run(scenario())
    first, failed, again = messages[:2], messages[2:4], messages[4:6]
    by_symbol = {m["symbol"]: m for m in first}
    assert by_symbol["A"]["quote"] == quote("A")
    assert by_symbol["GONE"]["error"] == {"detail": "No quote returned for GONE", "status": 404}
    assert {m["error"]["status"] for m in failed} == {503}
    assert {m["error"]["provider"] for m in failed} == {"yahoo"}
    assert failed[0]["cycle"] > first[0]["cycle"] and again[0]["cycle"] > failed[0]["cycle"]
    assert {m["symbol"]: "quote" in m for m in again} == {"A": True, "GONE": False}


def test_a_process_that_does_not_lead_a_symbol_does_not_poll_it():
    class LeadsNothing(LocalLeadership):
        async def claim(self, symbols):
            return set()

    fetch = FakeFetch()

    async def scenario():
        hub = new_hub(fetch, leadership=LeadsNothing())
        subscriber = Subscriber("A")
        await hub.connect(subscriber)
        await asyncio.sleep(INTERVAL * 2.5)
        await hub.disconnect(subscriber)
        return hub.cycles_run

    assert run(scenario()) >= 2
    assert fetch.calls == []


@pytest.mark.slow("one stream cycle over hundreds of symbols")
def test_a_cycle_of_many_symbols_reaches_the_hub_without_drops():
    """All of a cycle's messages land on the hub's one channel at once: the configured
    layer must hold them all (a full channel drops silently)."""
    from channels.layers import get_channel_layer

    symbols = [f"M{i:03d}" for i in range(500)]

    async def scenario():
        # The pollers' interval far longer than the test: the one cycle it runs is the load.
        # (At 0.2 s they published all 500 symbols five times a second while cycle 1 was
        # delivered: ~70,000 sends through Redis, 18 s of CPU.)
        hub = new_hub(FakeFetch(), layer=get_channel_layer(), interval=1e6)
        subscriber = Subscriber(*symbols)
        await hub.connect(subscriber)
        await hub.run_cycle(1, symbols)  # cycle 1: the pollers' cycles are far later

        def delivered() -> list[str]:
            return sorted(m["symbol"] for m in subscriber.messages if m["cycle"] == 1)

        # Through Redis on a loaded machine 500 messages can take tens of seconds (8 s
        # alone on 2 cores): the wait ends when they are in, and its own limit comes well
        # before run()'s, so a slow run fails with the symbols missing, not a cancel.
        deadline = time.monotonic() + 60
        while len(delivered()) < len(symbols) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        await hub.disconnect(subscriber)
        return delivered()

    assert run(scenario(), timeout=120) == symbols


class FlakyLayer(InMemoryChannelLayer):
    """Fails group_add once, and every group_send while ``down``."""

    def __init__(self) -> None:
        super().__init__()
        self.add_failures = 1
        self.down = False

    async def group_add(self, group, channel):
        if self.add_failures:
            self.add_failures -= 1
            raise ConnectionError("layer unreachable")
        await super().group_add(group, channel)

    async def group_send(self, group, message):
        if self.down:
            raise ConnectionError("layer unreachable")
        await super().group_send(group, message)


def test_a_layer_outage_neither_loses_local_subscribers_nor_the_membership():
    async def scenario():
        layer = FlakyLayer()
        hub = new_hub(FakeFetch(), layer)
        subscriber = Subscriber("A")
        await hub.connect(subscriber)  # its group_add fails: the poller joins later
        assert hub.joined == set()
        while not subscriber.messages:
            await asyncio.sleep(0.01)
        joined_after_a_cycle = set(hub.joined)
        layer.down = True  # publishing fails: delivered to this process's subscribers
        count = len(subscriber.messages)
        while len(subscriber.messages) == count:
            await asyncio.sleep(0.01)
        await hub.disconnect(subscriber)
        return joined_after_a_cycle, subscriber.messages

    joined, messages = run(scenario())
    assert joined == {"A"}
    assert all(m["quote"] == quote("A") for m in messages)


def test_a_cycle_that_breaks_is_logged_and_the_next_one_runs():
    class Unlucky(LocalLeadership):
        calls = 0

        async def claim(self, symbols):
            Unlucky.calls += 1
            if Unlucky.calls == 1:
                raise RuntimeError("bad luck")
            return set(symbols)

    async def scenario():
        hub = new_hub(FakeFetch(), leadership=Unlucky())
        subscriber = Subscriber("A")
        await hub.connect(subscriber)
        while not subscriber.messages:
            await asyncio.sleep(0.01)
        await hub.disconnect(subscriber)
        return hub.cycles_run

    with capture_logs("apps.stream.hub") as logs:
        assert run(scenario()) >= 1
    assert "stream cycle failed" in logs.text()


# -- one connection's generator ------------------------------------------------------------------
def test_the_generator_writes_the_first_event_then_one_per_interval_and_cleans_up(settings):
    settings.STREAM_INTERVAL_SECONDS = INTERVAL
    fetch = FakeFetch()

    async def scenario():
        hub = get_hub()
        hub.fetch = fetch
        layer = hub.layer
        events = quote_events(["A", "B"], {"A": quote("A"), "B": quote("B")},
                              interval=INTERVAL, heartbeat=60)
        first = await events.__anext__()
        opened = time.monotonic()
        second = await events.__anext__()
        assert time.monotonic() - opened >= INTERVAL, "the next event an interval later"
        assert hub.stats()["connections"] == 1 and sorted(hub.pollers) == ["A", "B"]
        await events.aclose()
        await asyncio.sleep(0)
        groups = [g for g in getattr(layer, "groups", {}) if g.startswith("md.quote.")]
        return first, second, hub.stats(), groups

    first, second, stats, groups = run(scenario())
    assert first.startswith(b"retry: 200\n\n")
    assert parse_events(first) == [("quote", [quote("A"), quote("B")])]
    assert parse_events(second) == [("quote", [quote("A"), quote("B")])]
    assert stats["connections"] == 0 and stats["pollers"] == 0 and stats["subscriptions"] == 0
    assert groups == []


class StubHub:
    """Stands in for the hub: keeps the connections; the test plays the pollers."""

    def __init__(self) -> None:
        self.connections: list = []
        self.closing = False

    async def connect(self, connection) -> None:
        self.connections.append(connection)

    async def disconnect(self, connection) -> None:
        self.connections.remove(connection)

    def publish(self, msg: dict) -> None:
        for connection in self.connections:
            connection.deliver(msg)


def test_each_connection_writes_at_once_then_every_interval_from_its_own_start(monkeypatch):
    """Two connections opened a third of an interval apart, pollers publishing several times
    per interval: each gets its first event at once and then one per interval from its own
    start (not at shared instants), never two closer than the interval, each with the
    latest quotes published before it."""
    hub = StubHub()
    monkeypatch.setattr("apps.stream.services.get_hub", lambda: hub)
    interval, count = 0.25, 5
    latest = {"price": 1}

    async def poll() -> None:  # the shared pollers, on a faster cycle of their own
        cycle = 0
        while True:
            await asyncio.sleep(interval / 7)
            cycle += 1
            latest["price"] += 1
            hub.publish(message("A", cycle, quote=quote("A", f"{latest['price']}.00")))

    async def connection(delay: float) -> list[tuple[float, float, bytes, int]]:
        await asyncio.sleep(delay)
        opened = time.monotonic()
        events = quote_events(["A", "B"], {"A": quote("A"), "B": quote("B")},
                              interval=interval, heartbeat=60)
        received = []
        try:
            for _ in range(count):
                chunk = await events.__anext__()
                received.append((opened, time.monotonic(), chunk, latest["price"]))
        finally:
            await events.aclose()
        return received

    async def scenario():
        poller = asyncio.create_task(poll())
        try:
            return await asyncio.gather(connection(0.0), connection(interval / 3))
        finally:
            poller.cancel()

    first, second = run(scenario())
    for received in (first, second):
        opened = received[0][0]
        times = [at for _, at, _, _ in received]
        assert times[0] - opened < 0.05, "the first event at once"
        gaps = [b - a for a, b in itertools.pairwise(times)]
        assert all(gap >= interval for gap in gaps), gaps
        for k, at in enumerate(times):  # one per interval from this connection's start
            # Each event is timed from the previous one, so timer lag adds up a little.
            assert k * interval <= at - opened < k * interval + 0.15 + 0.05 * k, (k, at - opened)
        first_chunk = received[0][2]
        assert first_chunk.startswith(b"retry: 250\n\n")
        for k, (_, _, chunk, price) in enumerate(received):
            events = parse_events(chunk)
            assert [name for name, _ in events] == ["quote"]
            if k:  # the latest quote the pollers published before this event
                assert events[0][1] == [quote("A", f"{price}.00"), quote("B")]
    assert 0.05 < second[0][1] - first[0][1] < interval - 0.05, "phases are per connection"
    assert hub.connections == []


def test_heartbeats_between_events_do_not_move_the_schedule(monkeypatch):
    hub = StubHub()
    monkeypatch.setattr("apps.stream.services.get_hub", lambda: hub)
    interval = 0.3

    async def scenario():
        events = quote_events(["A"], {"A": quote("A")}, interval=interval, heartbeat=0.08)
        chunks = [(await events.__anext__(), time.monotonic())]
        while sum(b"event: quote" in c for c, _ in chunks) < 3:
            chunks.append((await events.__anext__(), time.monotonic()))
        await events.aclose()
        return chunks

    chunks = run(scenario())
    quotes = [at for chunk, at in chunks if b"event: quote" in chunk]
    assert all(b - a >= interval for a, b in itertools.pairwise(quotes))
    assert quotes[-1] - quotes[0] < 2 * interval + 0.15
    assert sum(chunk == HEARTBEAT for chunk, _ in chunks) >= 2


def test_a_cancelled_connection_releases_everything(settings):
    """What the ASGI handler does when the client leaves: cancel the task mid-wait."""
    settings.STREAM_INTERVAL_SECONDS = 60

    async def scenario():
        hub = get_hub()
        hub.fetch = FakeFetch()

        async def consume():
            async for _ in quote_events(["A"], {"A": quote("A")}, interval=60, heartbeat=60):
                pass

        task = asyncio.create_task(consume())
        while not hub.connections:
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.05)  # parked in the layer's receive
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await asyncio.sleep(0)
        return hub.stats(), [t.get_name() for t in asyncio.all_tasks()]

    stats, tasks = run(scenario())
    assert (stats["connections"], stats["pollers"]) == (0, 0)
    assert not [name for name in tasks if name.startswith("stream-poller:")]


def test_heartbeat_comment_when_nothing_else_was_sent(settings):
    settings.STREAM_INTERVAL_SECONDS = 60

    async def scenario():
        hub = get_hub()
        hub.fetch = FakeFetch()
        events = quote_events(["A"], {"A": quote("A")}, interval=60, heartbeat=0.1)
        await events.__anext__()
        beat = await events.__anext__()
        await events.aclose()
        return beat

    assert run(scenario()) == HEARTBEAT


def test_shutdown_ends_every_stream_at_once(settings):
    settings.STREAM_INTERVAL_SECONDS = 60

    async def scenario():
        hub = get_hub()
        hub.fetch = FakeFetch()
        streams = [quote_events(["A"], {"A": quote("A")}, interval=60, heartbeat=60)
                   for _ in range(20)]
        for stream in streams:
            await stream.__anext__()

        async def drain(stream):
            return [chunk async for chunk in stream]

        tasks = [asyncio.create_task(drain(s)) for s in streams]
        await asyncio.sleep(0.05)
        threading.Thread(target=begin_shutdown).start()  # as from the signal handler
        rest = await asyncio.wait_for(asyncio.gather(*tasks), timeout=2)
        return rest, hub.stats()

    rest, stats = run(scenario())
    assert rest == [[]] * 20, "each stream ended without writing more"
    assert (stats["connections"], stats["pollers"]) == (0, 0)


def test_forget_channel_drops_buffered_messages_of_a_finished_channel():
    async def scenario():
        layer = InMemoryChannelLayer()
        channel = await layer.new_channel()
        await layer.send(channel, {"type": "late"})
        forget_channel(layer, channel)
        return layer.channels

    assert run(scenario()) == {}


# -- leader locks (real Redis) -------------------------------------------------------------------
redis_only = pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs REDIS_URL")


@contextlib.asynccontextmanager
async def two_processes(first_ttl_ms: int = 5000):
    """Two processes' leaderships over one Redis, under a prefix of their own."""
    url, prefix = os.environ["REDIS_URL"], f"test-lead-{uuid.uuid4().hex[:8]}"
    first = RedisLeadership(url, prefix, ttl_seconds=5)
    first.ttl_ms = first_ttl_ms  # below the 1 s floor the setting allows, to test expiry
    second = RedisLeadership(url, prefix, ttl_seconds=5)
    try:
        yield first, second, prefix
    finally:
        await first.close()
        await second.close()


@redis_only
def test_one_leader_per_symbol_across_processes_and_handover_on_release():
    async def scenario():
        async with two_processes() as (first, second, prefix):
            a = await first.claim(["A", "B"])
            b = await second.claim(["A", "B", "C"])
            renewed = await first.claim(["A", "B"])
            await first.release(["A"])
            after_release = await second.claim(["A", "B", "C"])
            ttl = await first.client.pttl(f"{prefix}:stream:leader:B")
            await second.release(["A", "B", "C"])
            await first.release(["B"])
            left = await first.client.keys(f"{prefix}:*")
            return a, b, renewed, after_release, ttl, left

    a, b, renewed, after_release, ttl, left = run(scenario())
    assert a == {"A", "B"} and b == {"C"} and renewed == {"A", "B"}
    assert after_release == {"A", "C"}
    assert 0 < ttl <= 5000
    assert left == []


@redis_only
def test_an_expired_leader_is_replaced():
    async def scenario():
        async with two_processes(first_ttl_ms=200) as (first, second, _):
            assert await first.claim(["A"]) == {"A"}
            assert await second.claim(["A"]) == set()
            await asyncio.sleep(0.3)
            taken = await second.claim(["A"])
            await second.release(["A"])
            return taken

    assert run(scenario()) == {"A"}


@redis_only
def test_a_claim_says_how_long_the_other_holders_locks_have_left():
    async def scenario():
        async with two_processes(first_ttl_ms=3000) as (first, second, _):
            await first.claim(["A"])
            taken = await second.claim(["A", "B"])
            left = dict(second.others_expire_in)
            await second.release(["B"])
            await first.release(["A"])
            return taken, left, first.others_expire_in

    taken, left, firsts = run(scenario())
    assert taken == {"B"}
    assert set(left) == {"A"} and 2.0 < left["A"] <= 3.0
    assert firsts == {}


@redis_only
@pytest.mark.slow("waits out a poller lease (the lease's own clock is the cache's)")
def test_a_dead_leaders_symbol_is_polled_right_after_its_lock_ends():
    """The leader renewed at cycle 1 and died: at cycle 2 the other process finds a lock
    with less than the lease minus half an interval left, and claims and polls the symbol
    as soon as it ends, for cycle 2 itself (not one cycle later)."""
    from apps.stream.leadership import lease_seconds

    async def scenario():
        async with two_processes() as (dead, alive, _prefix):
            interval = 2.0
            lease_ms = int(lease_seconds(interval) * 1000)
            dead.ttl_ms = lease_ms
            alive.ttl_ms = lease_ms
            assert await dead.claim(["A"]) == {"A"}  # cycle 1, then it dies
            fetch = FakeFetch()
            hub = StreamHub(asyncio.get_running_loop(), interval, alive, fetch,
                            InMemoryChannelLayer())
            subscriber = Subscriber("A")
            await hub.connect(subscriber)
            # cycle 2 starts one interval after the dead leader's last renewal
            await asyncio.sleep(interval)
            started = time.monotonic()
            await hub.run_cycle(2, ["A"])
            published_at_once = [m for m in subscriber.messages if m["cycle"] == 2]
            for _ in range(400):  # the hub's own poller has cycles of its own numbers
                if any(m["cycle"] == 2 for m in subscriber.messages):
                    break
                await asyncio.sleep(0.01)
            waited = time.monotonic() - started
            await hub.disconnect(subscriber)
            await alive.release(["A"])
            return published_at_once, waited, subscriber.messages

    published_at_once, waited, messages = run(scenario())
    assert published_at_once == []  # the lock had not ended yet
    assert [m["symbol"] for m in messages if m["cycle"] == 2] == ["A"]
    assert waited < 2.0  # the lease's margin (1 s) and the takeover's delay, not a cycle


def test_leadership_outage_polls_anyway():
    async def scenario():
        broken = RedisLeadership("redis://127.0.0.1:1/0", "x", ttl_seconds=5)
        try:
            return await broken.claim(["A", "B"])
        finally:
            await broken.close()

    assert run(scenario()) == {"A", "B"}


def test_at_shutdown_a_stream_ends_without_waiting_for_its_unsubscribing(monkeypatch):
    """A real hub closing: the response ends at once even when leaving the channel layer's
    groups would take long (Redis, many streams at once); the unsubscribing finishes in a
    task of its own."""
    left = asyncio.Event()

    class SlowLayer(InMemoryChannelLayer):
        async def group_discard(self, group, channel):
            await asyncio.sleep(5)
            await super().group_discard(group, channel)
            left.set()

    async def scenario():
        hub = new_hub(FakeFetch(), layer=SlowLayer())
        monkeypatch.setattr("apps.stream.services.get_hub", lambda: hub)
        events = quote_events(["A"], {"A": quote("A")}, interval=INTERVAL, heartbeat=60)
        await events.__anext__()
        hub.close()
        started = time.monotonic()
        with pytest.raises(StopAsyncIteration):
            while True:
                await events.__anext__()
        ended = time.monotonic() - started
        pending = set(hub._detaching)
        for task in pending:
            task.cancel()
        return ended, pending

    ended, pending = run(scenario())
    assert ended < 1.0
    assert pending, "the unsubscribing runs on its own"
    assert not left.is_set()


# -- pushed ticks ----------------------------------------------------------------------------------
class FakePush:
    """Stands in for the price streamer: what the hub made it follow, which symbols it
    calls fresh, and the hub's tick callback to push through."""

    def __init__(self, on_tick) -> None:
        self.on_tick = on_tick
        self.followed: list[list[str]] = []
        self.fresh_symbols: set[str] = set()
        self.closed = False

    def follow(self, symbols) -> None:
        self.followed.append(sorted(symbols))

    def fresh(self, symbol: str, within: float) -> bool:
        return symbol in self.fresh_symbols

    def close(self) -> None:
        self.closed = True

    def stats(self) -> dict:
        return {"connected": True, "ticks": 3}


def tick_fetch(symbols: list[str]) -> dict[str, dict]:
    from apps.quotes.services import TICK_MEMBERS

    tick = dict.fromkeys(TICK_MEMBERS)
    return {s: {"quote": {**quote(s), "name": f"{s} Inc."},
                "tick": {**tick, "id": s, "price": 1.0, "change": 0.1, "changePercent": 11.1,
                         "dayVolume": 100, "shortName": f"{s} Inc.", "priceHint": 2}}
            for s in symbols}


def push_hub(fetch, pushes: list) -> StreamHub:
    def make(on_tick):
        pushes.append(FakePush(on_tick))
        return pushes[-1]

    return StreamHub(asyncio.get_running_loop(), INTERVAL, LocalLeadership(), fetch,
                     InMemoryChannelLayer(), push=make)


def test_the_push_source_follows_the_led_symbols_and_what_it_ticks_is_not_polled():
    calls: list[list[str]] = []

    def fetch(symbols):
        calls.append(list(symbols))
        return tick_fetch(symbols)

    async def scenario():
        pushes: list[FakePush] = []
        hub = push_hub(fetch, pushes)
        subscriber = Subscriber("A", "B")
        await hub.connect(subscriber)
        while not calls:
            await asyncio.sleep(0.01)
        push = pushes[0]
        push.fresh_symbols = {"A"}
        seen = len(calls)
        while len(calls) < seen + 2:
            await asyncio.sleep(0.01)
        polled_while_a_ticks = calls[seen:]
        push.fresh_symbols = {"A", "B"}
        await asyncio.sleep(0.05)  # a cycle already fetching may still finish
        seen = len(calls)
        await asyncio.sleep(INTERVAL * 2.5)
        quiet = calls[seen:]
        await hub.remove_symbols(subscriber, ["B"])
        after_removal = push.followed[-1]
        await hub.disconnect(subscriber)
        hub.close()
        return pushes, polled_while_a_ticks, quiet, after_removal, hub.stats()

    pushes, polled, quiet, after_removal, stats = run(scenario())
    assert len(pushes) == 1, "one push source per hub"
    assert pushes[0].followed[0] == ["A", "B"]
    assert polled == [["B"], ["B"]]
    assert quiet == [], "no upstream call while the streamer ticks every symbol"
    assert after_removal == ["A"]
    assert pushes[0].closed and stats["pushed_ticks"] == 3


def test_pushed_ticks_are_merged_over_the_last_message_and_published_together():
    async def scenario():
        pushes: list[FakePush] = []
        hub = push_hub(tick_fetch, pushes)
        subscriber = Subscriber("A")
        await hub.connect(subscriber)
        while not subscriber.messages:
            await asyncio.sleep(0.01)
        polled = subscriber.messages[-1]
        push = pushes[0]
        push.on_tick({"id": "A", "price": 2.5, "change": 1.6, "changePercent": 177.78,
                      "time": 1732724412000})
        push.on_tick({"id": "A", "price": 2.75, "time": 1732724413000})  # replaces it
        push.on_tick({"id": "Z", "price": 9.0})  # not led here: dropped
        count = len(subscriber.messages)
        while not any("pushed" in m for m in subscriber.messages[count:]):
            await asyncio.sleep(0.01)
        pushed = [m for m in subscriber.messages[count:] if "pushed" in m]
        await hub.disconnect(subscriber)
        return polled, pushed

    polled, pushed = run(scenario())
    assert len(pushed) == 1 and pushed[0]["symbol"] == "A"
    message = pushed[0]
    assert message["cycle"] >= polled["cycle"] and message["pushed"] > 0
    tick = message["tick"]
    # the second tick whole; zero-valued members it left out are zero, the others are the
    # last poll's
    assert (tick["price"], tick["change"], tick["changePercent"]) == (2.75, 0, 0)
    assert tick["time"] == 1732724413000 and tick["shortName"] == "A Inc."
    assert message["quote"] == {"symbol": "A", "name": "A Inc.", "price": "2.75",
                                "change": "+0.00", "percentChange": "+0.00%"}


def test_a_poll_overtaken_by_a_pushed_tick_of_its_cycle_is_dropped():
    snapshot = Snapshot(["A"], {"A": quote("A")})
    snapshot.add(message("A", 5, pushed=1_732_724_412_000, quote=quote("A", "2.00")))
    snapshot.add(message("A", 5, quote=quote("A", "1.50")))  # the cycle's poll, older
    assert snapshot.quotes() == [quote("A", "2.00")]
    snapshot.add(message("A", 6, quote=quote("A", "1.75")))  # the next cycle's poll
    assert snapshot.quotes() == [quote("A", "1.75")]
    snapshot.add(message("A", 7, pushed="x", quote=quote("A", "9.99")))  # malformed
    assert snapshot.quotes() == [quote("A", "1.75")]


def test_a_cycle_split_into_batches_keeps_the_other_symbols_led_and_followed():
    async def scenario():
        pushes: list[FakePush] = []
        hub = push_hub(tick_fetch, pushes)
        subscriber = Subscriber("A", "B")
        await hub.connect(subscriber)
        await hub.run_cycle(10**9, ["A", "B"])
        await hub.run_cycle(10**9 + 1, ["A"])  # B's poller woke late: a batch of its own
        leading, followed = set(hub.leading), pushes[0].followed[-1]
        pushes[0].on_tick({"id": "B", "price": 2.0})
        pending = set(hub._pushed)
        await hub.disconnect(subscriber)
        return leading, followed, pending

    leading, followed, pending = run(scenario())
    assert leading == {"A", "B"} and followed == ["A", "B"]
    assert pending == {"B"}, "B's pushed tick is kept, not dropped as not led"


def test_the_traffic_counters_count_published_and_dispatched_messages():
    from apps.stream.hub import stream_stats, traffic

    before = dict(traffic)

    async def scenario():
        hub = new_hub(FakeFetch())
        subscriber = Subscriber("A", "B")
        await hub.connect(subscriber)
        while len(subscriber.messages) < 2:
            await asyncio.sleep(0.01)
        await hub.disconnect(subscriber)
        return len(subscriber.messages)

    received = run(scenario())
    grew = {key: traffic[key] - before.get(key, 0) for key in traffic}
    assert grew["messages_published"] >= 2 and grew["messages_dispatched"] >= received
    assert stream_stats()["messages_published"] == traffic["messages_published"]
