"""Hostile stream clients, measured: what a decompression bomb, a client that never reads and
a subscribe storm cost the server (issue 41).

Why: the issue's repro, from outside on the code before it: ten 16 MiB bombs (163 KB
compressed) blocked the event loop 6 s (/v1/ping p50 0.5 -> 411 ms); a never-reading client
added ~495 MB to the worker for ~2 minutes; 400 subscribe/unsubscribe frames of new symbols
made 247 upstream batch calls. This bench runs the same three against the production server
command (bin/serve: one uvicorn worker, sandbox upstream as its own HTTP server), with
/v1/ping timed alone first (the same-run baseline), and prints one table:

- bomb: ``--bombs`` connections, each sending one frame of 16 MiB of one JSON member name
  deflated to ~16 KB, while a thread times /v1/ping; the close codes received;
- never-reading: one client with a 4 KiB receive window subscribed to 100 symbols that
  tick every second (a time-lapse session, 1 s polls), never reading; time until the server
  drops it (``WS_SEND_TIMEOUT_SECONDS`` after its buffers filled), worker RSS before, at the
  peak (sampled every 0.25 s) and 2 s after;
- storm: 400 x (subscribe 100 new symbols, unsubscribe them) on one connection; frames
  answered 429, the close code, and upstream quote requests (the sandbox's request log).

    .venv/bin/python bench/hostile_streams.py [--bombs 10]

Loopback only; Linux only (reads /proc).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stream_load import pct, sample_processes  # noqa: E402
from marketdata.sandbox.instruments import sample_symbols  # noqa: E402
from tests.integration.servers import (  # noqa: E402
    http,
    sandbox_host_map,
    start_sandbox,
    start_service,
    time_pings,
)
from tests.ws import RawWebSocket  # noqa: E402


def timed_pings(base_url: str, seconds: float) -> list[float]:
    out: list[float] = []
    stop = threading.Event()
    thread = threading.Thread(target=time_pings, args=(base_url, stop, out, 0.005))
    thread.start()
    time.sleep(seconds)
    stop.set()
    thread.join()
    return out


def bomb(host: str, port: int, base_url: str, count: int) -> dict[str, object]:
    deflater = zlib.compressobj(wbits=-15)
    payload = deflater.compress(b'{"' + b"x" * (16 << 20) + b'":1}') \
        + deflater.flush(zlib.Z_SYNC_FLUSH)
    payload = payload[:-4]
    pings: list[float] = []
    stop = threading.Event()
    thread = threading.Thread(target=time_pings, args=(base_url, stop, pings, 0.005))
    thread.start()
    started, codes = time.perf_counter(), []
    for _ in range(count):
        ws = RawWebSocket(host, port, deflate=True)
        ws.send(payload, compressed=True)
        codes.append(ws.close_code())
        ws.close()
    elapsed = time.perf_counter() - started
    stop.set()
    thread.join()
    return {"compressed_bytes": len(payload) * count, "seconds": elapsed,
            "close_codes": sorted(set(codes)), "pings": pings}


def never_reading(host: str, port: int, pid: int, symbols: list[str]) -> dict[str, float]:
    """A dashboard that stopped reading: subscribed to 100 symbols that tick every second,
    through a 4 KiB receive window, never reading again."""
    before = sample_processes(pid)["rss_mib"]
    peak = before
    ws = RawWebSocket(host, port, receive_buffer=4096)
    ws.send(json.dumps({"subscribe": symbols}).encode())
    started = time.monotonic()
    dropped = None
    while time.monotonic() - started < 300:
        time.sleep(0.25)
        peak = max(peak, sample_processes(pid)["rss_mib"])
        if open_connections(ws) == 0:
            dropped = time.monotonic() - started
            break
    ws.close()
    time.sleep(2)
    after = sample_processes(pid)["rss_mib"]
    return {"dropped_after_s": dropped if dropped is not None else float("nan"),
            "rss_before_mib": before, "rss_peak_mib": peak, "rss_after_mib": after}


def open_connections(ws: RawWebSocket) -> int:
    """1 while the server still holds the client's connection (the kernel says whether
    the peer has closed or reset it; nothing is read from the application's data)."""
    import socket

    info = ws.sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)
    return 1 if info[0] == 1 else 0  # TCP_ESTABLISHED


def storm(host: str, port: int, sandbox_url: str) -> dict[str, float]:
    http("POST", f"{sandbox_url}/__sandbox__/reset")
    ws = RawWebSocket(host, port)
    started, sent = time.monotonic(), 0
    try:
        for n in range(400):
            names = [f"ZS{n:03d}{i:02d}" for i in range(100)]
            ws.send(json.dumps({"subscribe": names}).encode())
            ws.send(json.dumps({"unsubscribe": names}).encode())
            sent += 2
    except OSError:
        pass
    ws.sock.settimeout(3)
    refused = 0
    code = 0
    while True:
        try:
            opcode, body = ws.recv()
        except OSError:
            break
        if opcode == 0x1 and b'"status":429' in body:
            refused += 1
        elif opcode == 0x8:
            code = int.from_bytes(body[:2], "big")
            break
        elif opcode == -1:
            break
    ws.close()
    _, _, raw = http("GET", f"{sandbox_url}/__sandbox__/requests?path_prefix=/v7/finance/quote")
    return {"frames_sent": sent, "refused_429": refused, "close_code": code,
            "seconds": time.monotonic() - started,
            "upstream_quote_requests": json.loads(raw)["count"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bombs", type=int, default=10)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        # A session at 60x: every symbol has a new price every second.
        sandbox = start_sandbox(Path(tmp), extra_args=(
            "--clock-start", "2026-11-24T14:31:00Z", "--clock-speed", "60"))
        service = start_service(Path(tmp), {
            "MARKETDATA_UPSTREAM": "live", "UPSTREAM_HOST_MAP": sandbox_host_map(
                sandbox.base_url), "WEB_CONCURRENCY": "1", "USE_SECURITY": "false",
            "V2_RATE_LIMIT_CAPACITY": "0", "STREAM_INTERVAL_SECONDS": "1",
            "CACHE_TTL_CAP_SECONDS": "1", "STREAM_PUSH": "false", "LOG_LEVEL": "WARNING"})
        where = urlsplit(service.base_url)
        host, port = where.hostname or "127.0.0.1", where.port or 80
        try:
            idle = timed_pings(service.base_url, 3)
            bombed = bomb(host, port, service.base_url, args.bombs)
            stalled = never_reading(host, port, service.proc.pid, sample_symbols(100))
            stormed = storm(host, port, sandbox.base_url)
        finally:
            service.stop()
            sandbox.stop()
    pings = bombed.pop("pings")
    assert isinstance(pings, list)
    rows = [
        ("/v1/ping alone: p50 / p99 / max ms",
         f"{statistics.median(idle):.2f} / {pct(idle, 99):.2f} / {max(idle):.2f}"),
        (f"/v1/ping during {args.bombs} bombs: p50 / p99 / max ms (n={len(pings)})",
         f"{statistics.median(pings):.2f} / {pct(pings, 99):.2f} / {max(pings):.2f}"),
        ("bombs: compressed bytes sent, seconds, close codes",
         f"{bombed['compressed_bytes']:,} / {bombed['seconds']:.2f} / {bombed['close_codes']}"),
        ("never-reading client (100 symbols ticking each second): dropped after s",
         f"{stalled['dropped_after_s']:.1f}"),
        ("never-reading client: worker+master RSS before / peak / 2 s after (MiB)",
         f"{stalled['rss_before_mib']:.1f} / {stalled['rss_peak_mib']:.1f} / "
         f"{stalled['rss_after_mib']:.1f}"),
        ("storm: frames sent, answered 429, close code, seconds",
         f"{stormed['frames_sent']} / {stormed['refused_429']} / {stormed['close_code']} / "
         f"{stormed['seconds']:.1f}"),
        ("storm: upstream quote requests", f"{stormed['upstream_quote_requests']}"),
    ]
    print("| measure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
