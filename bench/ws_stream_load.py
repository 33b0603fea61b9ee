"""WebSocket stream load: thousands of /v2/stream clients on one worker.

Why: issue 26 asks for 5,000 WebSocket clients over 200 symbols on one worker to get every
due tick, with lag p99 within 3x a 10-client baseline's (same run) and the worker under
600 MB. The baseline runs in the same invocation: the same server and upstream with a
handful of clients (the lag floor of the pipeline itself), then the full load.

Starts the sandbox upstream as its own HTTP server on a time-lapse clock (a trading session
at 60x, so every open market's price moves every second and every cycle ticks) and the
service with its production command (bin/serve: gunicorn, ``--workers`` uvicorn workers,
live mode with the Yahoo hosts mapped to the sandbox, CACHE_TTL_CAP_SECONDS=1 so each
cycle's poll reaches the upstream, the v2 bucket off, the per-address stream connection
cap raised to 100,000: every client is 127.0.0.1). Each client subscribes to
``--per-client`` symbols and records every tick frame. The clients run in
``--client-processes`` processes of their own (bench/stream_clients.py), so the load
generator is not the stage that waits.

Due, delivered, lag and fan-out are defined in bench/stream_clients.py: **due** is, per
symbol, the distinct ticks (``time``, ``price``) that any client first received within the
window (the union over all clients: a symbol that did not change has nothing due), for
every client subscribed to it; **delivered** is what each client received of those by the
window's end plus ``--grace`` seconds. ``published_per_period`` says how many distinct
ticks per changing symbol per tick period (a poll cycle, or the streamer's second) were
published at all, so a skipped cycle shows there and not as a loss. Lag is a tick's
arrival minus the moment the upstream made it (its market time on the sandbox's clock,
calibrated to 1/60 s; for a poll that is the batch call's answer). The server's stream
counters (/v1/health ``stream``) are read at the window's start and end.

Two tick sources, each with its baseline: ``poll`` (``STREAM_PUSH=false``: the shared
pollers' batch calls) and ``push`` (the sandbox's simulated price streamer, which ticks
every symbol at each whole second of the wall clock; upstream quote calls are then only for
what it does not tick).

    .venv/bin/python bench/ws_stream_load.py [--clients 5000] [--symbols 200]
        [--per-client 5] [--interval 2] [--duration 20] [--baseline-clients 10]
        [--sources poll,push] [--client-processes 4] [--workers 1]
        [--redis redis://127.0.0.1:6379/13]

Loopback only; Linux only (reads /proc for the server's RSS and CPU).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stream_clients import ClientFleet, analyse, pct, process_rss_mib  # noqa: E402
from bench.stream_load import (  # noqa: E402
    client_symbols,
    cpu_percent,
    raise_fd_limit,
    sample_processes,
)
from marketdata.sandbox.instruments import sample_symbols  # noqa: E402
from tests.integration.servers import (  # noqa: E402
    http,
    sandbox_host_map,
    start_sandbox,
    start_service,
)

QUOTE_PATH = "/v7/finance/quote"
CLOCK_START, CLOCK_SPEED = "2026-11-24T14:31:00Z", 60.0
TIME_LAPSE = ("--clock-start", CLOCK_START, "--clock-speed", str(int(CLOCK_SPEED)))
COUNTERS = ("messages_published", "messages_dispatched", "frames_sent", "frames_replaced")


def sandbox_launch(sandbox_url: str) -> float:
    """When (wall clock) the sandbox's time-lapse clock stood at CLOCK_START, from a
    market that is always open (its quote's market time is the sandbox's now): a tick's
    market time then says when the upstream made it, to 1/60 s."""
    from datetime import datetime

    start = datetime.fromisoformat(CLOCK_START.replace("Z", "+00:00")).timestamp()
    lower, upper = -float("inf"), float("inf")
    for _ in range(5):
        sent = time.time()
        _, _, body = http("GET", f"{sandbox_url}/v8/finance/chart/BTC-USD?range=1d&interval=1d",
                          headers={"X-Upstream-Host": "query1.finance.yahoo.com"})
        received = time.time()
        market = json.loads(body)["chart"]["result"][0]["meta"]["regularMarketTime"]
        # The clock read whole simulated second `market` at some instant of [sent, received].
        lower = max(lower, sent - (market + 1 - start) / CLOCK_SPEED)
        upper = min(upper, received - (market - start) / CLOCK_SPEED)
    return (lower + upper) / 2


def emitted_at(tick_ms: int, launch: float) -> float:
    """The wall-clock time the sandbox made a tick with this market time."""
    from datetime import datetime

    start = datetime.fromisoformat(CLOCK_START.replace("Z", "+00:00")).timestamp()
    return launch + (tick_ms / 1000 - start) / CLOCK_SPEED


def stream_counters(base_url: str) -> dict[str, int]:
    """The answering worker's ``stream`` counters from /v1/health (one worker: the server's)."""
    status, _, raw = http("GET", f"{base_url}/v1/health", timeout=60)
    stream = json.loads(raw).get("stream") if status == 200 else None
    return {k: int(stream.get(k, 0)) for k in COUNTERS} if isinstance(stream, dict) else {}


def run_phase(kind: str, base_url: str, count: int, symbols: list[str],
              args: argparse.Namespace, period: float, server_pid: int, sandbox_url: str,
              sandbox_pid: int, launch: float) -> dict[str, float]:
    """One measured window with ``count`` clients of ``kind`` (ws, sse). ``args.interval``
    is the pollers' (upstream calls per cycle), ``period`` the tick source's."""
    where = urlsplit(base_url)
    clients = [(i, client_symbols(i, symbols, args.per_client)) for i in range(count)]
    fleet = ClientFleet(kind, where.hostname or "127.0.0.1", where.port or 80, clients,
                        args.client_processes, args.connect_concurrency)
    ramp = fleet.ready()
    # the window starts half an interval after a cycle tick, and spans whole cycles
    interval = args.interval
    start = (math.floor(time.time() / interval) + 1.5) * interval
    cycles = max(1, round(args.duration / interval))
    end = start + cycles * interval
    samples: dict[str, Any] = {}

    def during() -> None:
        time.sleep(max(0.0, start - time.time()))
        http("POST", f"{sandbox_url}/__sandbox__/reset")
        samples["before"] = sample_processes(server_pid)
        samples["sandbox_before"] = sample_processes(sandbox_pid)
        samples["counters_before"] = stream_counters(base_url)
        time.sleep(max(0.0, end - time.time()))
        samples["after"] = sample_processes(server_pid)
        samples["sandbox_after"] = sample_processes(sandbox_pid)
        samples["rss"] = process_rss_mib(server_pid)
        _, _, stats = http("GET", f"{sandbox_url}/__sandbox__/stats")
        samples["series"] = json.loads(stats)["caches"].get("prices._series_cache", {})
        samples["counters_after"] = stream_counters(base_url)

    got = fleet.window(start, end, end + args.grace, during)
    _, _, body = http("GET", f"{sandbox_url}/__sandbox__/requests?path_prefix={QUOTE_PATH}")
    calls = json.loads(body)["count"]
    result = analyse(got["clients"], start, end, period,
                     (lambda tick_ms: emitted_at(tick_ms, launch)) if kind == "ws" else None)
    if kind == "sse":  # a connection's events: one per interval, on its own clock
        gaps = [(b - a) * 1000 for c in got["clients"] for a, b in pairwise(c[5])]
        events = sum(len(c[5]) for c in got["clients"])
        result.update(events_per_client_per_interval=events / count / cycles,
                      event_gap_p50_ms=pct(gaps, 50), event_gap_p99_ms=pct(gaps, 99))
    before, after = samples["counters_before"], samples["counters_after"]
    counters = {f"server_{k}_per_s": (after.get(k, 0) - before.get(k, 0)) / (end - start)
                for k in COUNTERS}
    return {"clients": count, "client_processes": args.client_processes, "cycles": cycles,
            "ramp_s": ramp["ramp_s"], "not_connected": ramp["waiting"],
            "upstream_calls_per_cycle": calls / cycles, **result, **counters,
            "sandbox_series_cached": samples["series"].get("entries", float("nan")),
            "sandbox_series_cache_max": samples["series"].get("maxsize") or float("nan"),
            **samples["rss"],
            "server_cpu_pct": cpu_percent(samples["before"], samples["after"]),
            "sandbox_cpu_pct": cpu_percent(samples["sandbox_before"], samples["sandbox_after"]),
            "clients_cpu_pct": 100.0 * got["cpu_s"] / (end - start)}


def measure(source: str, args: argparse.Namespace, symbols: list[str], kind: str = "ws"
            ) -> dict[str, dict[str, float]]:
    """The baseline and the load with one tick source, on a fresh sandbox and service."""
    period = 1.0 if source == "push" else args.interval  # the simulated streamer's second
    env = {"MARKETDATA_UPSTREAM": "live", "WEB_CONCURRENCY": str(args.workers),
           "USE_SECURITY": "false", "V2_RATE_LIMIT_CAPACITY": "0",
           "CACHE_TTL_CAP_SECONDS": "1", "STREAM_INTERVAL_SECONDS": str(args.interval),
           "LOG_LEVEL": "WARNING", "STREAM_PUSH": "true" if source == "push" else "false",
           # The coming per-address cap on stream connections: every client is 127.0.0.1.
           "STREAM_MAX_CONNECTIONS_PER_ADDRESS": "100000"}
    if args.redis:
        import redis

        redis.Redis.from_url(args.redis).flushdb()
        env["REDIS_URL"] = args.redis
    if args.sandbox_series_cache:
        os.environ["SANDBOX_SERIES_CACHE_SIZE"] = str(args.sandbox_series_cache)
    with tempfile.TemporaryDirectory() as tmp:
        sandbox = start_sandbox(Path(tmp), extra_args=TIME_LAPSE)
        env["UPSTREAM_HOST_MAP"] = sandbox_host_map(sandbox.base_url)
        service = start_service(Path(tmp), env)
        launch = sandbox_launch(sandbox.base_url)
        results = {}
        try:
            for name, count in (("baseline", args.baseline_clients), ("load", args.clients)):
                if count <= 0:
                    continue
                results[f"{source} {name}"] = run_phase(
                    kind, service.base_url, count, symbols, args, period, service.proc.pid,
                    sandbox.base_url, sandbox.proc.pid, launch)
                time.sleep(args.interval * 2)  # the pollers of the last phase stop
        finally:
            service.stop()
            sandbox.stop()
    return results


def arguments(doc: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=5000)
    parser.add_argument("--symbols", type=int, default=200)
    parser.add_argument("--per-client", type=int, default=5)
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--duration", type=float, default=20.0)
    parser.add_argument("--baseline-clients", type=int, default=10)
    parser.add_argument("--connect-concurrency", type=int, default=200)
    parser.add_argument("--sources", default="poll,push",
                        help="tick sources to measure, in order: poll, push")
    parser.add_argument("--client-processes", type=int, default=4)
    parser.add_argument("--grace", type=float, default=3.0,
                        help="seconds after the window a due tick may still arrive")
    parser.add_argument("--workers", type=int, default=1, help="WEB_CONCURRENCY")
    parser.add_argument("--sandbox-series-cache", type=int, default=1024,
                        help="the sandbox's price series cache (its default, 96, is below "
                             "the symbols polled: every quote rebuilt every series); 0: default")
    parser.add_argument("--redis", default="",
                        help="REDIS_URL (emptied first), e.g. redis://127.0.0.1:6379/13")
    args = parser.parse_args()
    raise_fd_limit(2 * args.clients + 1024)  # the server inherits it
    return args


def run(args: argparse.Namespace, kind: str) -> None:
    """Every tick source's baseline and load, then the JSON and a markdown table."""
    # The sandbox's named instruments, then made-up tickers (it quotes any symbol).
    known = sample_symbols(min(args.symbols, 100))
    symbols = known + [f"ZX{i:03d}" for i in range(args.symbols - len(known))]
    results = {}
    for source in args.sources.split(","):
        results.update(measure(source, args, symbols, kind))
    print(json.dumps(results, indent=2))
    keys = list(next(iter(results.values())))
    print("| measure | " + " | ".join(f"{n} ({results[n]['clients']} clients)"
                                      for n in results) + " |")
    print("|---|" + "---|" * len(results))
    for key in keys:
        print(f"| {key} | " + " | ".join(f"{results[n].get(key, float('nan')):,.2f}"
                                         for n in results) + " |")


if __name__ == "__main__":
    run(arguments(__doc__), "ws")
