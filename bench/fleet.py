"""The service as a fleet on loopback, with faults (issue 28; README "Scale-out").

HAProxy (Debian's package) loads deploy/haproxy/haproxy.cfg, the balancing rules compose
uses, in front of three instances (bin/serve, one worker each) that share one PostgreSQL
database and a Redis Sentinel set (a primary, a replica, three sentinels); every provider
host is mapped to the sandbox HTTP server, whose request log counts upstream calls. Then:

1. single-flight: 30 concurrent requests for each of 8 cold keys, through the balancer
   (so spread over the instances), with the upstream slowed to 400 ms: upstream calls per
   key counted at the sandbox (expected: 1);
2. a WebSocket through the balancer: subscribe, wait for a tick; then mixed load for
   ``--duration`` seconds (cached and cold, v1 and v2, from 16 workers) and
   ``--sse`` SSE clients; a third of the way in, the instance leading the stream's
   symbols is killed with SIGKILL, and restarted 15 s later on the same port. Counted:
   failed idempotent requests at the client (expected: 0), SSE reconnections and the
   ``retry`` hint they waited, leaders per symbol over time (expected: exactly one) and
   how long the stream's symbols went without an upstream poll after the kill;
3. limits: LIMIT + 50 requests from one client address spread over the instances, for the
   v1 daily quota and for the v2 bucket (expected: exactly LIMIT succeed);
4. Redis failover: load continues while the Redis primary is killed and a replica
   promoted: errors a client saw and for how long, then the quota exact again;
5. throughput (``--wrk`` seconds, when wrk is installed): one cached path through the
   balancer and straight to one instance, in the same run.

    python bench/fleet.py [--duration 120] [--sse 20] [--rate 0] [--wrk 10] [--json out.json]

Prints the report as JSON; exits 1 when a check fails (tests/integration/test_fleet.py
runs it in CI). Needs haproxy, redis-server and PostgreSQL (DATABASE_URL's server, or
postgres://postgres@127.0.0.1:5432).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import secrets
import shutil
import signal
import sys
import tempfile
import time
import urllib.parse
import uuid
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import psycopg  # noqa: E402

from apps.stream.leadership import lease_seconds  # noqa: E402
from bench.http_bench import run_wrk  # noqa: E402
from tests.integration import redis_sentinel  # noqa: E402
from tests.integration.servers import (  # noqa: E402
    Process,
    _spawn,
    free_port,
    http,
    sandbox_host_map,
    start_sandbox,
    start_service,
    wait_for,
)

INSTANCES = 3
LIMIT = 200  # the v1 daily quota and the v2 bucket's capacity, per client address
INTERVAL = 2.0  # the stream's poll interval (STREAM_INTERVAL_SECONDS)
STREAM_SYMBOLS = ("KO", "PEP")  # streamed only: no other request asks for their quotes
METRICS_TOKEN = "fleet-metrics-token"
HOT = [
    "/v1/quotes?symbols=AAPL,MSFT", "/v1/simple-quotes?symbols=AAPL",
    "/v1/historical?symbol=AAPL&range=1mo&interval=1d", "/v1/actives", "/v1/sectors",
    "/v1/indicators?symbol=MSFT&functions=RSI,OBV", "/v2/quote/AAPL",
    "/v2/quotes?symbols=AAPL,MSFT", "/v2/chart/AAPL", "/v2/indicators/AAPL?fields=obv,vwap",
    "/v2/health",
]
# Requests that failed at the client: no answer, or a 5xx (the sandbox never fails here).


def cold_path(n: int) -> str:
    """A response-cache key nobody asked for yet (the upstream data may be cached)."""
    if n % 2:
        return f"/v1/indicator?function=SMA&symbol=AAPL&period={2 + n % 400}&n={n}"
    return f"/v2/quote/C{n % 100000}"


def client_address(n: int) -> str:
    """X-Forwarded-For of a load client: many addresses, so no one meets a limit."""
    return f"10.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}"


# -- the processes ---------------------------------------------------------------------------
@dataclass
class Fleet:
    tmp: Path
    sandbox: Process
    sentinel: redis_sentinel.SentinelSet
    env: dict[str, str]
    ports: list[int]
    lb_port: int
    stats_port: int
    instances: dict[int, Process] = field(default_factory=dict)
    haproxy: Any = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.lb_port}"

    def start_instance(self, index: int) -> Process:
        self.instances[index] = start_service(self.tmp, self.env, port=self.ports[index])
        return self.instances[index]

    def kill_instance(self, index: int) -> None:
        proc = self.instances.pop(index).proc
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)

    def stop(self) -> None:
        if self.haproxy is not None and self.haproxy.poll() is None:
            self.haproxy.terminate()
            self.haproxy.wait(timeout=10)
        for process in self.instances.values():
            process.stop()
        self.sentinel.stop()
        self.sandbox.stop()


def _postgres_server() -> str:
    url = os.environ.get("DATABASE_URL", "") or "postgres://postgres@127.0.0.1:5432/postgres"
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/postgres", "", ""))


def create_database(stack: ExitStack) -> str:
    server = _postgres_server()
    name = f"md_fleet_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')

    def drop() -> None:
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    stack.callback(drop)
    return server.rsplit("/", 1)[0] + "/" + name


def start_fleet(stack: ExitStack, tmp: Path) -> Fleet:
    sandbox = start_sandbox(tmp)
    stack.callback(sandbox.stop)
    sentinel = redis_sentinel.start(tmp / "redis")
    stack.callback(sentinel.stop)
    env = {
        "MARKETDATA_UPSTREAM": "live", "UPSTREAM_HOST_MAP": sandbox_host_map(sandbox.base_url),
        "DATABASE_URL": create_database(stack), **sentinel.env(db=0),
        "CACHE_KEY_PREFIX": f"fleet-{uuid.uuid4().hex[:6]}",  # one prefix: one deployment
        "SECRET_KEY": secrets.token_urlsafe(50), "TRUSTED_PROXIES": "127.0.0.1",
        "WEB_CONCURRENCY": "1", "WEB_THREADS": "32", "LOG_LEVEL": "WARNING",
        "USE_SECURITY": "true", "APP_RATE_LIMIT_PER_DAY": str(LIMIT),
        "V2_RATE_LIMIT_SCOPE": "ip", "V2_RATE_LIMIT_CAPACITY": str(LIMIT),
        "V2_RATE_LIMIT_REFILL_PER_SECOND": "0.001",
        "STREAM_INTERVAL_SECONDS": str(INTERVAL), "STREAM_PUSH": "false",
        "METRICS_TOKEN": METRICS_TOKEN,
    }
    fleet = Fleet(tmp, sandbox, sentinel, env, [free_port() for _ in range(INSTANCES)],
                  free_port(), free_port())
    stack.callback(fleet.stop)
    for index in range(INSTANCES):
        fleet.start_instance(index)
    servers = tmp / "servers.cfg"
    # As servers-compose.cfg: each instance checked, and again as an unchecked backup.
    servers.write_text("backend app\n" + "".join(
        f"    server i{i} 127.0.0.1:{port} check\n" for i, port in enumerate(fleet.ports))
        + "".join(f"    server any{i} 127.0.0.1:{port} backup\n"
                  for i, port in enumerate(fleet.ports)))
    haproxy = shutil.which("haproxy") or "/usr/sbin/haproxy"
    fleet.haproxy = _spawn(
        [haproxy, "-W", "-db", "-f", str(ROOT / "deploy/haproxy/haproxy.cfg"), "-f",
         str(servers)],
        {**os.environ, "MD_LB_BIND": f"127.0.0.1:{fleet.lb_port}",
         "MD_STATS_BIND": f"127.0.0.1:{fleet.stats_port}"}, tmp / "haproxy.log")
    wait_for(f"{fleet.url}/v1/ping", timeout=30)
    return fleet


# -- measuring ---------------------------------------------------------------------------------
def sandbox_requests(fleet: Fleet, prefix: str) -> list[dict[str, Any]]:
    status, _, body = http("GET", f"{fleet.sandbox.base_url}/__sandbox__/requests?"
                           f"path_prefix={urllib.parse.quote(prefix)}")
    assert status == 200
    return json.loads(body)["requests"]


def leaders(fleet: Fleet) -> dict[int, float]:
    """Symbols each live instance leads (its /metrics gauge)."""
    out = {}
    for index, process in list(fleet.instances.items()):
        try:
            _, _, body = http("GET", f"{process.base_url}/metrics", timeout=3,
                              headers={"Authorization": f"Bearer {METRICS_TOKEN}"})
        except OSError:
            continue
        match = re.search(rb"^marketdata_stream_leading_symbols ([0-9.]+)", body, re.M)
        if match:
            out[index] = float(match.group(1))
    return out


def lb_counters(fleet: Fleet) -> dict[str, float]:
    """HAProxy's own counters for the backend (its Prometheus endpoint on the stats port):
    the retries and redispatches it made for the clients, and the failures it saw."""
    _, _, body = http("GET", f"http://127.0.0.1:{fleet.stats_port}/metrics")
    wanted = {"haproxy_backend_retry_warnings_total": "retries",
              "haproxy_backend_redispatch_warnings_total": "redispatches",
              "haproxy_backend_connection_errors_total": "connection_errors",
              "haproxy_backend_response_errors_total": "response_errors",
              "haproxy_backend_http_responses_total": "responses"}
    out: dict[str, float] = {}
    for line in body.decode().splitlines():
        name = line.split("{", 1)[0]
        if name in wanted and 'proxy="app"' in line:
            out[wanted[name]] = out.get(wanted[name], 0.0) + float(line.rsplit(" ", 1)[1])
    return out


@dataclass
class LoadStats:
    statuses: Counter = field(default_factory=Counter)
    failures: list[tuple[float, str, str]] = field(default_factory=list)
    served_by: Counter = field(default_factory=Counter)
    requests: int = 0

    def record(self, started: float, path: str, outcome: int | str, server: str = "") -> None:
        self.requests += 1
        self.statuses[str(outcome)] += 1
        if server:
            self.served_by[server] += 1
        if isinstance(outcome, str) or outcome >= 500:
            self.failures.append((round(started, 3), path, str(outcome)))


async def load_worker(client: httpx.AsyncClient, stats: LoadStats, stop: asyncio.Event,
                      worker: int, origin: float, cold_share: float = 0.3,
                      period: float = 0.0) -> None:
    """Requests one after another, or one every ``period`` seconds (a paced load)."""
    rng = random.Random(worker)
    n = worker * 1_000_000
    due = time.monotonic()
    while not stop.is_set():
        if period:
            due += period
            await asyncio.sleep(max(0.0, due - time.monotonic()))
        n += 1
        path = cold_path(n) if rng.random() < cold_share else rng.choice(HOT)
        started = time.monotonic() - origin
        try:
            response = await client.get(path, headers={
                "X-Forwarded-For": client_address(rng.randrange(1 << 20))})
            stats.record(started, path, response.status_code,
                         response.headers.get("x-served-by", ""))
        except httpx.HTTPError as exc:
            stats.record(started, path, type(exc).__name__)


@dataclass
class SseStats:
    events: int = 0
    disconnects: int = 0
    reconnects: int = 0
    retry_ms: set[int] = field(default_factory=set)
    waited: list[float] = field(default_factory=list)  # disconnect -> reconnected, seconds
    errors: Counter = field(default_factory=Counter)


async def sse_client(url: str, stats: SseStats, stop: asyncio.Event, n: int) -> None:
    """Reads the stream; after a drop, waits the server's ``retry`` hint and reconnects,
    as an EventSource does."""
    retry = 3.0
    dropped_at: float | None = None
    path = f"/v1/stream/quotes?symbols={','.join(STREAM_SYMBOLS)}"
    async with httpx.AsyncClient(base_url=url, timeout=httpx.Timeout(5, read=60)) as client:
        while not stop.is_set():
            try:
                async with client.stream("GET", path, headers={
                        "X-Forwarded-For": f"192.0.2.{n}"}) as response:
                    if response.status_code != 200:
                        stats.errors[str(response.status_code)] += 1
                        raise httpx.RemoteProtocolError("not 200")
                    async for line in response.aiter_lines():
                        if line.startswith("retry:"):
                            retry = int(line.split(":", 1)[1]) / 1000
                            stats.retry_ms.add(int(retry * 1000))
                        elif line.startswith("event: quote"):
                            stats.events += 1
                            if dropped_at is not None:
                                stats.reconnects += 1
                                stats.waited.append(time.monotonic() - dropped_at)
                                dropped_at = None
                        if stop.is_set():
                            return
            except (httpx.HTTPError, ValueError) as exc:
                stats.errors[type(exc).__name__] += 1
            if stop.is_set():
                return
            stats.disconnects += 1
            dropped_at = dropped_at or time.monotonic()
            await asyncio.sleep(retry)


async def limit_burst(url: str, path: str, address: str, total: int) -> Counter:
    """``total`` requests from one client address, 25 at a time, through the balancer."""
    outcomes: Counter = Counter()
    servers: set[str] = set()
    queue = iter(range(total))
    async with httpx.AsyncClient(base_url=url, timeout=30,
                                 limits=httpx.Limits(max_keepalive_connections=0)) as client:
        async def worker() -> None:
            for _ in queue:
                response = await client.get(path, headers={"X-Forwarded-For": address})
                outcomes[response.status_code] += 1
                servers.add(response.headers.get("x-served-by", ""))
        await asyncio.gather(*(worker() for _ in range(25)))
    outcomes["instances"] = len(servers)
    return outcomes


# -- the scenario ------------------------------------------------------------------------------
async def single_flight(fleet: Fleet) -> dict[str, Any]:
    http("POST", f"{fleet.sandbox.base_url}/__sandbox__/config", {"faults": [
        {"path_prefix": "/v8/finance/chart/SF", "fail_rate": 0.0, "latency_ms": 400}]})
    keys = [f"SF{i}" for i in range(8)]
    servers: set[str] = set()
    async with httpx.AsyncClient(base_url=fleet.url, timeout=30,
                                 limits=httpx.Limits(max_keepalive_connections=0)) as client:
        async def one(symbol: str, n: int) -> int:
            response = await client.get(
                f"/v1/historical?symbol={symbol}&range=3mo&interval=1d",
                headers={"X-Forwarded-For": client_address(900_000 + n)})
            servers.add(response.headers.get("x-served-by", ""))
            return response.status_code

        statuses = await asyncio.gather(*(one(s, i) for s in keys for i in range(30)))
    http("POST", f"{fleet.sandbox.base_url}/__sandbox__/config", {"faults": []})
    calls = {s: len(sandbox_requests(fleet, f"/v8/finance/chart/{s}")) for s in keys}
    return {"keys": len(keys), "requests_per_key": 30, "statuses": dict(Counter(statuses)),
            "instances_answering": len(servers), "upstream_calls_per_key": calls,
            "ok": set(calls.values()) == {1} and set(statuses) == {200}}


def _period(rate: float, workers: int) -> float:
    """Seconds between one worker's requests for ``rate`` requests a second in all (0: as
    fast as the answers come)."""
    return workers / rate if rate > 0 else 0.0


async def websocket_through_the_balancer(fleet: Fleet) -> dict[str, Any]:
    """A WebSocket upgrade through HAProxy: subscribe to a streamed symbol and wait for its
    first tick frame."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import WebSocketException

    started = time.monotonic()
    url = f"ws://127.0.0.1:{fleet.lb_port}/v2/stream"
    try:
        async with connect(url, additional_headers={"X-Forwarded-For": "192.0.2.200"},
                           open_timeout=10) as ws:
            await ws.send(json.dumps({"subscribe": [STREAM_SYMBOLS[0]]}))
            while time.monotonic() - started < 4 * INTERVAL + 10:
                frame = json.loads(await asyncio.wait_for(ws.recv(), 4 * INTERVAL + 10))
                if frame.get("id") == STREAM_SYMBOLS[0]:
                    return {"ok": True, "first_tick_seconds":
                            round(time.monotonic() - started, 2)}
    except (OSError, TimeoutError, ValueError, WebSocketException) as exc:
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
    return {"ok": False, "error": "no tick"}


async def mixed_load(fleet: Fleet, duration: float, sse_count: int,
                     rate: float = 0.0, restart_after: float = 15.0) -> dict[str, Any]:
    stats, sse, stop = LoadStats(), SseStats(), asyncio.Event()
    origin = time.monotonic()
    leader_samples: list[tuple[float, dict[int, float]]] = []
    events: dict[str, Any] = {}
    # Idle connections are dropped after 2 s, before HAProxy's own 5 s keep-alive timeout
    # (deploy/haproxy/haproxy.cfg): at httpx's default of 5 s a request could go out on a
    # connection the balancer was closing that instant and end in RemoteProtocolError with
    # no instance involved (a failed idempotent request in CI, once, unrelated to the kill).
    async with httpx.AsyncClient(base_url=fleet.url, timeout=30,
                                 limits=httpx.Limits(max_connections=64,
                                                     keepalive_expiry=2.0)) as client:
        sse_tasks = [asyncio.create_task(sse_client(fleet.url, sse, stop, n))
                     for n in range(sse_count)]
        await asyncio.sleep(2 * INTERVAL)  # the streams' first cycles
        workers = [asyncio.create_task(load_worker(client, stats, stop, w, origin,
                                                   period=_period(rate, 16)))
                   for w in range(16)]

        async def sample_leaders() -> None:
            while not stop.is_set():
                asked = time.monotonic() - origin  # when asked, not when all answered
                got = await asyncio.to_thread(leaders, fleet)
                leader_samples.append((asked, got))
                await asyncio.sleep(0.5)

        sampler = asyncio.create_task(sample_leaders())
        await asyncio.sleep(duration / 3)
        current = await asyncio.to_thread(leaders, fleet)
        victim = max(current, key=lambda i: current[i]) if current else 1
        events["killed_instance"] = f"i{victim}"
        events["victim_led_symbols"] = current.get(victim, 0)
        events["killed_at"] = round(time.monotonic() - origin, 3)
        fleet.kill_instance(victim)
        await asyncio.sleep(restart_after)
        events["restart_at"] = round(time.monotonic() - origin, 3)
        await asyncio.to_thread(fleet.start_instance, victim)
        events["restarted_at"] = round(time.monotonic() - origin, 3)
        remaining = duration - (time.monotonic() - origin)
        await asyncio.sleep(max(0.0, remaining))
        stop.set()
        await asyncio.gather(*workers, sampler)
        for task in sse_tasks:
            task.cancel()
        await asyncio.gather(*sse_tasks, return_exceptions=True)
    balancer = lb_counters(fleet)

    expected = float(len(STREAM_SYMBOLS))
    steady = [(t, got) for t, got in leader_samples if len(got) == len(fleet.ports)]
    not_one_leader = [(round(t, 2), got) for t, got in steady if sum(got.values()) != expected]
    after_kill = [t for t, got in leader_samples
                  if t > events["killed_at"] and sum(got.values()) == expected]
    return {
        "duration_seconds": duration, "requests": stats.requests,
        "requests_per_second": round(stats.requests / duration, 1),
        "statuses": dict(stats.statuses), "served_by": dict(stats.served_by),
        # Every load request is a GET: each failure is a failed idempotent request.
        "failed_idempotent_requests": len(stats.failures),
        "failures_first": stats.failures[:10], **events, "balancer": balancer,
        "sse": {"clients": sse_count, "events": sse.events, "disconnects": sse.disconnects,
                "reconnected": sse.reconnects, "retry_hint_ms": sorted(sse.retry_ms),
                "reconnect_seconds_max": round(max(sse.waited), 2) if sse.waited else None,
                "errors": dict(sse.errors)},
        "leaders": {"samples_all_up": len(steady),
                    "samples_not_exactly_one_leader_per_symbol": not_one_leader[:10],
                    # From the kill to every streamed symbol led again (sampled each 0.5 s).
                    "kill_to_new_leader_seconds":
                        round(after_kill[0] - events["killed_at"], 2) if after_kill else None,
                    "lease_seconds": lease_seconds(INTERVAL)},
    }


async def limits(fleet: Fleet, tag: int) -> dict[str, Any]:
    v1 = await limit_burst(fleet.url, "/v1/simple-quotes?symbols=AAPL", f"198.51.100.{tag}",
                           LIMIT + 50)
    v2 = await limit_burst(fleet.url, "/v2/quote/AAPL", f"198.51.100.{tag + 1}", LIMIT + 50)
    return {"limit": LIMIT, "sent": LIMIT + 50,
            "v1": {"200": v1[200], "429": v1[429], "instances": v1["instances"]},
            "v2": {"200": v2[200], "429": v2[429], "instances": v2["instances"]},
            "ok": v1[200] == LIMIT and v2[200] == LIMIT and v1[429] == v2[429] == 50}


async def redis_failover(fleet: Fleet, seconds: float = 30.0,
                         rate: float = 0.0) -> dict[str, Any]:
    stats, stop = LoadStats(), asyncio.Event()
    origin = time.monotonic()
    before = fleet.sentinel.primary_port()
    async with httpx.AsyncClient(base_url=fleet.url, timeout=30) as client:
        workers = [asyncio.create_task(load_worker(client, stats, stop, 100 + w, origin, 0.3,
                                                   period=_period(rate, 8)))
                   for w in range(8)]
        await asyncio.sleep(5)
        killed_at = time.monotonic() - origin
        fleet.sentinel.primary().kill()
        promoted_at = None
        # The load lasts ``seconds``, longer if the promotion has not been seen yet (up to
        # 30 s: the check then fails), so a short run still sees the load after it.
        while (elapsed := time.monotonic() - origin) < seconds or (
                promoted_at is None and elapsed < max(seconds, 30.0)):
            if promoted_at is None:
                try:
                    if await asyncio.to_thread(fleet.sentinel.primary_port) != before:
                        promoted_at = time.monotonic() - origin
                except RuntimeError:
                    pass
            await asyncio.sleep(0.2)
        stop.set()
        await asyncio.gather(*workers)
    times = [t for t, _, _ in stats.failures]
    return {"requests": stats.requests, "statuses": dict(stats.statuses),
            "errors_seen_by_clients": len(stats.failures),
            "error_window_seconds": round(max(times) - min(times), 2) if times else 0.0,
            "failures_first": stats.failures[:10],
            "primary_killed_at": round(killed_at, 2),
            "replica_promoted_after_seconds":
                round(promoted_at - killed_at, 2) if promoted_at else None}


WRK_SCRIPT = """
-- A client address per request (X-Forwarded-For), so no client meets its limits.
request = function()
  wrk.headers["X-Forwarded-For"] = "10." .. math.random(0, 255) .. "." ..
      math.random(0, 255) .. "." .. math.random(0, 255)
  return wrk.format(nil, nil)
end
"""


def throughput(fleet: Fleet, seconds: float) -> dict[str, Any]:
    """wrk on one cached path: through the balancer (three instances) and straight to one
    instance (one worker), in the same run."""
    wrk = shutil.which("wrk")
    if wrk is None or seconds <= 0:
        return {"skipped": "wrk not installed" if wrk is None else "not asked"}
    script = fleet.tmp / "xff.lua"
    script.write_text(WRK_SCRIPT)
    path = "/v1/simple-quotes?symbols=AAPL"
    targets = {"balancer, 3 instances": fleet.url,
               "one instance (1 worker), direct": fleet.instances[0].base_url}
    out: dict[str, Any] = {"path": path, "seconds": seconds, "connections": 48}
    for name, base in targets.items():
        out[name] = run_wrk(base + path, int(seconds), 48, script=script)
    return out


async def scenario(fleet: Fleet, duration: float, sse_count: int,
                   wrk_seconds: float = 0.0, rate: float = 0.0,
                   failover_seconds: float = 30.0,
                   restart_after: float = 15.0) -> dict[str, Any]:
    report: dict[str, Any] = {"instances": INSTANCES, "balancer": "haproxy",
                              "stream_interval_seconds": INTERVAL,
                              "paced_requests_per_second": rate or None}
    report["single_flight"] = await single_flight(fleet)
    report["websocket"] = await websocket_through_the_balancer(fleet)
    report["load"] = await mixed_load(fleet, duration, sse_count, rate, restart_after)
    report["limits"] = await limits(fleet, 10)
    report["redis_failover"] = await redis_failover(fleet, failover_seconds, rate=rate)
    report["limits_after_failover"] = await limits(fleet, 20)
    report["throughput"] = await asyncio.to_thread(throughput, fleet, wrk_seconds)
    load, leaders_ = report["load"], report["load"]["leaders"]
    checks = {
        "single_flight_one_upstream_call_per_key": report["single_flight"]["ok"],
        "no_failed_idempotent_request": load["failed_idempotent_requests"] == 0,
        "sse_clients_reconnected": load["sse"]["reconnected"] >= 1
        and load["sse"]["retry_hint_ms"] == [int(INTERVAL * 1000)],
        "exactly_one_leader_per_symbol":
            leaders_["samples_all_up"] > 0
            and not leaders_["samples_not_exactly_one_leader_per_symbol"],
        # The dead leader's lease (one interval and a margin) ends, then a takeover claim;
        # plus the sampling period and a scrape.
        "new_leader_within_its_lease": leaders_["kill_to_new_leader_seconds"] is not None
        and leaders_["kill_to_new_leader_seconds"] <= lease_seconds(INTERVAL) + 1.5,
        "websocket_through_the_balancer": report["websocket"]["ok"],
        "limits_exact_across_instances": report["limits"]["ok"],
        "limits_exact_after_failover": report["limits_after_failover"]["ok"],
        "redis_replica_promoted": report["redis_failover"]["replica_promoted_after_seconds"]
        is not None,
    }
    report["checks"] = checks
    report["ok"] = all(checks.values())
    return report


def run(duration: float = 120.0, sse_count: int = 20, keep: bool = False,
        wrk_seconds: float = 0.0, rate: float = 0.0,
        failover_seconds: float = 30.0, restart_after: float = 15.0) -> dict[str, Any]:
    """The whole scenario; ``rate`` paces the load (requests a second, 0: unpaced);
    ``failover_seconds``: the load around the Redis failover (the primary dies at 5 s);
    ``restart_after``: seconds between the instance's kill and its restart (longer than a
    stream lease, so the takeover is seen before the instance is back)."""
    tmp = Path(tempfile.mkdtemp(prefix="md-fleet-"))
    with ExitStack() as stack:
        fleet = start_fleet(stack, tmp)
        report = asyncio.run(scenario(fleet, duration, sse_count, wrk_seconds, rate,
                                      failover_seconds, restart_after))
    report["logs"] = str(tmp)
    if not keep and report["ok"]:
        shutil.rmtree(tmp, ignore_errors=True)
    return report


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--duration", type=float, default=120.0)
    parser.add_argument("--sse", type=int, default=20)
    parser.add_argument("--json", type=Path, default=None)
    parser.add_argument("--keep", action="store_true", help="keep the logs' directory")
    parser.add_argument("--rate", type=float, default=0.0,
                        help="requests a second of the mixed load (default 0: unpaced)")
    parser.add_argument("--wrk", type=float, default=10.0,
                        help="seconds of wrk per target at the end (0: none)")
    args = parser.parse_args()
    report = run(args.duration, args.sse, args.keep, args.wrk, args.rate)
    text = json.dumps(report, indent=2, default=str)
    print(text)
    if args.json:
        args.json.write_text(text)
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
