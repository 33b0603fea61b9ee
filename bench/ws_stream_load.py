"""WebSocket stream load: thousands of /v2/stream clients on one worker.

Why: issue 26 asks for 5,000 WebSocket clients over 200 symbols on one worker, reporting
upstream batch calls per cycle, push lag p50/p99 and the worker's RSS. A baseline runs in
the same invocation: the same server and upstream with a handful of clients (the lag floor
of the pipeline itself), then the full load.

Starts the sandbox upstream as its own HTTP server on a time-lapse clock (a trading session
at 60x, so every symbol has a new price every second and every cycle ticks) and the service
with its production command (bin/serve: gunicorn, one uvicorn worker, live mode with the
Yahoo hosts mapped to the sandbox, CACHE_TTL_CAP_SECONDS=1 so each cycle's poll reaches the
upstream, the v2 bucket off). Each client subscribes to --per-client symbols and counts the
frames it receives. Push lag is a frame's arrival minus the moment the upstream made that
tick: the tick's ``time`` is its market time on the sandbox's clock, which runs 60x from a
start the bench pins down to 1/60 s before measuring (``sandbox_launch``); one frame in
``STAMP_EVERY`` per client is read for it, closed markets' old prices left out. For a poll
that is the batch call's answer (the wait from the cycle's start to the call is not in it).
"fan-out" is a frame's arrival after the first frame of its period. The clients are raw
asyncio protocols that read frame headers (and the sampled payloads) only: at 5,000
clients they share the machine's two cores with the server and the sandbox, and the CPU of
all three is reported.

Two tick sources, each with its baseline: ``poll`` (``STREAM_PUSH=false``: the shared
pollers' batch calls) and ``push`` (the sandbox's simulated price streamer, which ticks
every symbol at each whole second of the wall clock, a frame due per subscription per
second; upstream quote calls are then only for what it does not tick).

    .venv/bin/python bench/ws_stream_load.py [--clients 5000] [--symbols 200]
        [--per-client 5] [--interval 2] [--duration 40] [--baseline-clients 10]
        [--sources poll,push]

Loopback only; Linux only (reads /proc for the server's RSS and CPU).
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stream_load import (  # noqa: E402
    client_symbols,
    cpu_percent,
    pct,
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
STAMP_EVERY = 20  # frames per client between two whose payload is read for its "time"
# A tick whose market time is this far behind is a closed market's last price, not news.
STALE_TICK_SECONDS = 30.0


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


class Client(asyncio.Protocol):
    """A minimal WebSocket client on a raw asyncio protocol: the handshake, one subscribe
    frame, then only frame headers are read (arrival times counted, payloads skipped but
    for spotting error frames), so 5,000 of them cost the shared CPU little next to the
    server. The websockets library's client costs several times more per frame."""

    def __init__(self, symbols: tuple[str, ...]) -> None:
        self.symbols = symbols
        self.arrivals: list[float] = []
        self.stamped: list[tuple[float, int]] = []  # (arrival, tick "time" in ms), sampled
        self.first = asyncio.Event()
        self.errors = 0
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.upgraded = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        now = time.time()
        self.buffer += data
        if not self.upgraded:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                return
            if not self.buffer.startswith(b"HTTP/1.1 101"):
                raise RuntimeError(bytes(self.buffer[:200]))
            del self.buffer[:end + 4]
            self.upgraded = True
            # Only now: a frame sent with the handshake's packet would be lost (uvicorn's
            # httptools protocol rebuilds the handshake from the parsed head alone), and
            # clients wait for the 101 anyway.
            assert self.transport is not None
            self.transport.write(_masked_text(json.dumps(
                {"subscribe": list(self.symbols)}).encode()))
        buf = self.buffer
        while len(buf) >= 2:
            length, head = buf[1] & 0x7F, 2
            if length == 126:
                if len(buf) < 4:
                    return
                length, head = int.from_bytes(buf[2:4], "big"), 4
            elif length == 127:
                if len(buf) < 10:
                    return
                length, head = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < head + length:
                return
            text = buf[0] & 0x0F == 0x1  # not a ping (uvicorn pings every 20 s)
            if text and buf[head:head + 9] == b'{"error"':
                self.errors += 1
            elif text and len(self.arrivals) % STAMP_EVERY == 0:
                tick_time = json.loads(bytes(buf[head:head + length])).get("time")
                if isinstance(tick_time, int):
                    self.stamped.append((now, tick_time))
            del buf[:head + length]
            if text:
                self.arrivals.append(now)
                self.first.set()


def _masked_text(payload: bytes) -> bytes:
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    size = len(payload)
    head = bytes([0x81, 0x80 | size]) if size < 126 else \
        bytes([0x81, 0x80 | 126]) + size.to_bytes(2, "big")
    return head + mask + body


async def run_client(host: str, port: int, client: Client, gate: asyncio.Semaphore) -> None:
    async with gate:
        loop = asyncio.get_running_loop()
        await loop.create_connection(lambda: client, host, port)
        key = base64.b64encode(os.urandom(16)).decode()
        assert client.transport is not None
        client.transport.write(
            f"GET /v2/stream HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            "Sec-WebSocket-Version: 13\r\n\r\n".encode())


async def phase(url: str, clients: list[Client], duration: float, interval: float,
                sandbox_url: str, server_pid: int, connect_concurrency: int,
                period: float, sandbox_pid: int, launch: float) -> dict[str, float]:
    """One measured window. ``interval`` is the pollers' (upstream calls per cycle),
    ``period`` the tick source's (frames are due at its wall-clock multiples)."""
    gate = asyncio.Semaphore(connect_concurrency)
    opened = time.monotonic()
    where = urlsplit(url)
    tasks = [asyncio.create_task(run_client(where.hostname or "127.0.0.1", where.port or 80,
                                            c, gate)) for c in clients]
    await asyncio.wait_for(asyncio.gather(*(c.first.wait() for c in clients)), 300)
    ramp = time.monotonic() - opened
    # the window starts half an interval after a cycle tick, and spans whole cycles
    now = time.time()
    start = (math.floor(now / interval) + 1.5) * interval
    cycles = max(1, round(duration / interval))
    end = start + cycles * interval
    await asyncio.sleep(start - time.time())
    http("POST", f"{sandbox_url}/__sandbox__/reset")
    before = sample_processes(server_pid)
    sandbox_before, client_before = sample_processes(sandbox_pid), time.process_time()
    await asyncio.sleep(end - time.time())
    after = sample_processes(server_pid)
    sandbox_after, client_cpu = sample_processes(sandbox_pid), time.process_time() - client_before
    _, _, body = http("GET", f"{sandbox_url}/__sandbox__/requests?path_prefix={QUOTE_PATH}")
    calls = json.loads(body)["count"]
    for client in clients:
        if client.transport is not None:
            client.transport.abort()
    await asyncio.gather(*tasks, return_exceptions=True)
    arrivals = [t for c in clients for t in c.arrivals if start <= t < end]
    # Lag: arrival minus when the upstream made the tick (its market time on the sandbox's
    # clock), over a sample of frames; closed markets' old prices left out.
    lags = [lag for c in clients for t, tick_ms in c.stamped if start <= t < end
            for lag in [(t - emitted_at(tick_ms, launch)) * 1000]
            if lag < STALE_TICK_SECONDS * 1000]
    # Fan-out: a frame's arrival after the cycle's first frame (the batch call is done by
    # then), i.e. what the number of clients costs on top of the upstream round trip.
    first: dict[int, float] = {}
    for t in arrivals:
        cycle = math.floor(t / period)
        first[cycle] = min(first.get(cycle, t), t)
    fanout = [(t - first[math.floor(t / period)]) * 1000 for t in arrivals]
    frames = len(arrivals)
    expected = sum(len(c.symbols) for c in clients) * (end - start) / period
    return {"clients": len(clients), "cycles": cycles, "ramp_s": ramp,
            "upstream_calls": calls, "calls_per_cycle": calls / cycles,
            "frames": frames, "frames_per_s": frames / (end - start),
            "delivered_pct": 100.0 * frames / expected if expected else float("nan"),
            "lag_p50_ms": pct(lags, 50), "lag_p99_ms": pct(lags, 99),
            "lag_max_ms": max(lags) if lags else float("nan"),
            "fanout_p50_ms": pct(fanout, 50), "fanout_p99_ms": pct(fanout, 99),
            "error_frames": sum(c.errors for c in clients),
            "rss_mib": after["rss_mib"], "cpu_pct": cpu_percent(before, after),
            # Where the rest of the two cores went: the upstream and the clients.
            "sandbox_cpu_pct": cpu_percent(sandbox_before, sandbox_after),
            "clients_cpu_pct": 100.0 * client_cpu / (end - start)}


def measure(source: str, args: argparse.Namespace, symbols: list[str]
            ) -> dict[str, dict[str, float]]:
    """The baseline and the load with one tick source, on a fresh sandbox and service."""
    period = 1.0 if source == "push" else args.interval  # the simulated streamer's second
    with tempfile.TemporaryDirectory() as tmp:
        sandbox = start_sandbox(Path(tmp), extra_args=TIME_LAPSE)
        service = start_service(Path(tmp), {
            "MARKETDATA_UPSTREAM": "live", "UPSTREAM_HOST_MAP": sandbox_host_map(
                sandbox.base_url), "WEB_CONCURRENCY": "1", "USE_SECURITY": "false",
            "V2_RATE_LIMIT_CAPACITY": "0", "CACHE_TTL_CAP_SECONDS": "1",
            "STREAM_INTERVAL_SECONDS": str(args.interval), "LOG_LEVEL": "WARNING",
            "STREAM_PUSH": "true" if source == "push" else "false"})
        url = service.base_url.replace("http://", "ws://") + "/v2/stream"
        launch = sandbox_launch(sandbox.base_url)
        results = {}
        try:
            for name, count in (("baseline", args.baseline_clients), ("load", args.clients)):
                clients = [Client(client_symbols(i, symbols, args.per_client))
                           for i in range(count)]
                results[f"{source} {name}"] = asyncio.run(phase(
                    url, clients, args.duration, args.interval, sandbox.base_url,
                    service.proc.pid, args.connect_concurrency, period, sandbox.proc.pid,
                    launch))
                time.sleep(args.interval * 2)  # the pollers of the last phase stop
        finally:
            service.stop()
            sandbox.stop()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=5000)
    parser.add_argument("--symbols", type=int, default=200)
    parser.add_argument("--per-client", type=int, default=5)
    parser.add_argument("--interval", type=float, default=2.0)
    parser.add_argument("--duration", type=float, default=40.0)
    parser.add_argument("--baseline-clients", type=int, default=10)
    parser.add_argument("--connect-concurrency", type=int, default=200)
    parser.add_argument("--sources", default="poll,push",
                        help="tick sources to measure, in order: poll, push")
    args = parser.parse_args()
    raise_fd_limit(2 * args.clients + 1024)  # the server inherits it
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    # The sandbox's named instruments, then made-up tickers (it quotes any symbol).
    known = sample_symbols(min(args.symbols, 100))
    symbols = known + [f"ZX{i:03d}" for i in range(args.symbols - len(known))]
    results = {}
    for source in args.sources.split(","):
        results.update(measure(source, args, symbols))
    print(json.dumps(results, indent=2))
    keys = list(next(iter(results.values())))
    print("| measure | " + " | ".join(f"{n} ({results[n]['clients']} clients)"
                                      for n in results) + " |")
    print("|---|" + "---|" * len(results))
    for key in keys:
        print(f"| {key} | " + " | ".join(f"{results[n][key]:,.2f}" for n in results) + " |")


if __name__ == "__main__":
    main()
