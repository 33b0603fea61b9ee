"""Stream load clients in several processes, and what they were due.

Shared by bench/ws_stream_load.py (``/v2/stream``) and bench/sse_stream_load.py
(``/v1/stream/quotes``). The clients are raw asyncio protocols (no client library: 5,000 of
them must cost the shared CPU little next to the server), split over ``--client-processes``
processes, each with its own uvloop loop; each process sends its records back to the parent
through a pipe once the window is over, so the load generator's own loop is never the stage
that waits.

**Due and delivered.** The server sends a symbol's update only when its quote changed, and
some symbols never change (funds, closed foreign markets), so a tick per subscription per
cycle is not what is due. A *tick* is one distinct value of a symbol: for the WebSocket
stream a tick frame's ``(time, price)``, for the SSE stream a quote item's
``(price, change)``. The ticks **due** in the window are, per symbol, the distinct ticks
that some client received for the first time within ``[start, end)`` (the union over all
clients: what the server published, as far as anyone saw it); every client subscribed to
that symbol is due each of them. **Delivered** is how many of its symbols' due ticks a
client received by ``end + grace`` (late is lag, not loss). A tick the server never
published (a skipped poll cycle) is due to nobody, so the run also reports how many
distinct ticks per changing symbol per tick period were published at all
(``published_per_period``: 1.0 when every cycle, or every streamer second, made it out), and
the server's own counters (``/v1/health`` ``stream``) over the window.

**Lag.** ``lag`` is a tick's arrival minus when the upstream made it, where the tick says
(the WebSocket tick's ``time`` is its market time on the sandbox's 60x clock); ``fanout``
is a tick's arrival minus its first arrival at any client (what the number of clients
costs on top of the pipeline; the only lag an SSE quote, which has no time, can give).
"""

from __future__ import annotations

import asyncio
import base64
import math
import multiprocessing
import os
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import orjson

from tests.ws import client_frame, frame_header

# A tick whose market time is this far behind is a closed market's last price, not news.
STALE_TICK_SECONDS = 30.0


class Window:
    """When a client process records (wall clock); before ``start`` it only counts."""

    start = math.inf
    until = -math.inf


class StreamClient(asyncio.Protocol):
    """What both client kinds share: the connection, the first update, the records
    ``(symbol, tick, arrival, tick_ms)`` within the window."""

    def __init__(self, index: int, symbols: tuple[str, ...]) -> None:
        self.index = index
        self.symbols = symbols
        self.records: list[tuple[str, Any, float, int | None]] = []
        self.first = asyncio.Event()
        self.errors = 0
        self.failed: str | None = None
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.upgraded = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost_at = time.time()
        if not self.first.is_set():
            self.failed = f"closed before the first update: {exc}"
            self.first.set()

    def request(self, host: str, port: int) -> bytes:
        raise NotImplementedError

    def response_head(self, status: bytes, must_hold: bytes = b"") -> bool:
        """Take the response's head off the buffer once it is all there: True when its
        status line starts with ``status`` (and the head holds ``must_hold``); a wrong one
        fails the client."""
        end = self.buffer.find(b"\r\n\r\n")
        if end < 0:
            return False
        head = bytes(self.buffer[:end])
        if not head.startswith(status) or must_hold not in head.lower():
            self.failed = head[:300].decode("latin-1")
            self.first.set()
            return False
        del self.buffer[:end + 4]
        self.upgraded = True
        return True


class WsClient(StreamClient):
    """``/v2/stream``: the handshake, one subscribe frame, then every text frame's tick."""

    def request(self, host: str, port: int) -> bytes:
        key = base64.b64encode(os.urandom(16)).decode()
        return (f"GET /v2/stream HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n").encode()

    def data_received(self, data: bytes) -> None:
        now = time.time()
        self.buffer += data
        if not self.upgraded:
            if not self.response_head(b"HTTP/1.1 101"):
                return
            # Only after the 101: a frame sent with the handshake's packet could be lost.
            assert self.transport is not None
            self.transport.write(client_frame(orjson.dumps({"subscribe": list(self.symbols)})))
        buf = self.buffer
        recording = Window.start <= now <= Window.until
        while (frame := frame_header(buf)) is not None:
            opcode, head, length = frame
            if opcode == 0x1:  # not a ping (uvicorn pings every 20 s)
                payload = bytes(buf[head:head + length])
                if payload.startswith(b'{"error"'):
                    self.errors += 1
                elif recording:
                    tick = orjson.loads(payload)
                    tick_ms = tick.get("time")
                    self.records.append((tick.get("id"), (tick_ms, tick.get("price")), now,
                                         tick_ms if isinstance(tick_ms, int) else None))
                self.first.set()
            del buf[:head + length]


class SseClient(StreamClient):
    """``/v1/stream/quotes``: one GET, then every ``quote`` event's items (chunked body)."""

    STREAM_PATH = "/v1/stream/quotes"

    def __init__(self, index: int, symbols: tuple[str, ...]) -> None:
        super().__init__(index, symbols)
        self.body = bytearray()  # de-chunked, not yet a complete event
        self.events: list[float] = []  # arrival of every quote event in the window

    def request(self, host: str, port: int) -> bytes:
        target = f"{self.STREAM_PATH}?symbols={','.join(quote(s, safe='') for s in self.symbols)}"
        return (f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n").encode()

    def data_received(self, data: bytes) -> None:
        now = time.time()
        self.buffer += data
        if not self.upgraded and not self.response_head(b"HTTP/1.1 200", b"chunked"):
            return
        buf = self.buffer
        while True:  # de-chunk
            line_end = buf.find(b"\r\n")
            if line_end < 0:
                break
            size = int(bytes(buf[:line_end]).split(b";")[0], 16)
            if len(buf) < line_end + 2 + size + 2:
                break
            self.body += buf[line_end + 2:line_end + 2 + size]
            del buf[:line_end + 2 + size + 2]
        recording = Window.start <= now <= Window.until
        body = self.body
        while (end := body.find(b"\n\n")) >= 0:
            block = bytes(body[:end])
            del body[:end + 2]
            if block.startswith(b"event: quote\n"):
                self.first.set()
                if recording:
                    self.events.append(now)
                    data = block.split(b"\ndata: ", 1)[1]
                    for item in orjson.loads(data):
                        self.records.append((item.get("symbol"),
                                             (item.get("price"), item.get("change")), now, None))
            elif block.startswith(b"event: error"):
                self.errors += 1


CLIENT_KINDS: dict[str, type[StreamClient]] = {"ws": WsClient, "sse": SseClient}


async def _open(client: StreamClient, host: str, port: int, gate: asyncio.Semaphore) -> None:
    async with gate:
        try:
            await asyncio.wait_for(asyncio.get_running_loop().create_connection(
                lambda: client, host, port), 60)
        except Exception as exc:  # noqa: BLE001 - counted, not fatal
            client.failed = f"connect: {type(exc).__name__}: {exc}"
            client.first.set()
            return
        assert client.transport is not None
        client.transport.write(client.request(host, port))


async def _client_process(pipe: Any, kind: str, host: str, port: int,
                          part: list[tuple[int, tuple[str, ...]]], concurrency: int,
                          ramp_timeout: float) -> dict[str, Any]:
    make = CLIENT_KINDS[kind]
    clients = [make(index, symbols) for index, symbols in part]
    gate = asyncio.Semaphore(concurrency)
    opened = time.monotonic()
    tasks = [asyncio.create_task(_open(c, host, port, gate)) for c in clients]
    try:
        await asyncio.wait_for(asyncio.gather(*(c.first.wait() for c in clients)), ramp_timeout)
    except TimeoutError:
        pass
    pipe.send({"ramp_s": time.monotonic() - opened,
               "waiting": sum(not c.first.is_set() for c in clients)})
    loop = asyncio.get_running_loop()
    start, end, until = await loop.run_in_executor(None, pipe.recv)
    Window.start, Window.until = start, until
    await asyncio.sleep(max(0.0, start - time.time()))
    cpu = time.process_time()
    await asyncio.sleep(max(0.0, end - time.time()))
    cpu = time.process_time() - cpu
    await asyncio.sleep(max(0.0, until - time.time()))
    for client in clients:  # the server ended these before the bench did
        if getattr(client, "lost_at", None) is not None and client.failed is None:
            client.failed = "closed by the server during the run"
    for client in clients:
        if client.transport is not None:
            client.transport.abort()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"cpu_s": cpu,
            "clients": [(c.index, c.symbols, c.records, c.errors, c.failed,
                         getattr(c, "events", None)) for c in clients]}


def _client_main(pipe: Any, *args: Any) -> None:
    import uvloop

    result = uvloop.run(_client_process(pipe, *args))
    pipe.send(result)
    pipe.close()


class ClientFleet:
    """``clients`` (index, symbols) over ``processes`` client processes; ``ready()`` waits for
    every first update, ``window()`` records between the given instants and returns what
    every client got."""

    def __init__(self, kind: str, host: str, port: int,
                 clients: list[tuple[int, tuple[str, ...]]], processes: int,
                 connect_concurrency: int, ramp_timeout: float = 300.0) -> None:
        ctx = multiprocessing.get_context("fork")
        processes = max(1, min(processes, len(clients)))
        self.pipes, self.procs = [], []
        for i in range(processes):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_client_main, daemon=True, args=(
                child, kind, host, port, clients[i::processes],
                max(1, connect_concurrency // processes), ramp_timeout))
            proc.start()
            self.pipes.append(parent)
            self.procs.append(proc)

    def ready(self) -> dict[str, float]:
        readings = [pipe.recv() for pipe in self.pipes]
        return {"ramp_s": max(r["ramp_s"] for r in readings),
                "waiting": sum(r["waiting"] for r in readings)}

    def window(self, start: float, end: float, until: float,
               during: Callable[[], None] | None = None) -> dict[str, Any]:
        for pipe in self.pipes:
            pipe.send((start, end, until))
        if during is not None:
            during()
        results = [pipe.recv() for pipe in self.pipes]
        for proc in self.procs:
            proc.join(30)
        return {"cpu_s": sum(r["cpu_s"] for r in results),
                "clients": [c for r in results for c in r["clients"]]}


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def analyse(clients: list[tuple[Any, ...]], start: float, end: float, period: float,
            emitted_at: Callable[[int], float] | None = None) -> dict[str, float]:
    """Due, delivered, lag and fan-out over the window (module docstring)."""
    first: dict[tuple[str, Any], float] = {}
    for _, _, records, *_ in clients:
        for symbol, tick, arrival, _ in records:
            key = (symbol, tick)
            if arrival < first.get(key, math.inf):
                first[key] = arrival
    due: dict[str, set[Any]] = {}
    for (symbol, tick), arrival in first.items():
        if start <= arrival < end:
            due.setdefault(symbol, set()).add(tick)
    due_total = delivered = 0
    lags: list[float] = []
    fanout: list[float] = []
    for _, symbols, records, *_ in clients:
        got = {(symbol, tick) for symbol, tick, _, _ in records}
        for symbol in symbols:
            ticks = due.get(symbol, ())
            due_total += len(ticks)
            delivered += sum((symbol, t) in got for t in ticks)
        earliest: dict[tuple[str, Any], tuple[float, int | None]] = {}
        for symbol, tick, arrival, tick_ms in records:  # an SSE event repeats old quotes
            if arrival < earliest.get((symbol, tick), (math.inf, None))[0]:
                earliest[(symbol, tick)] = (arrival, tick_ms)
        for (symbol, tick), (arrival, tick_ms) in earliest.items():
            if tick in due.get(symbol, ()):
                fanout.append((arrival - first[(symbol, tick)]) * 1000)
                if emitted_at is not None and tick_ms is not None:
                    lag = (arrival - emitted_at(tick_ms)) * 1000
                    if lag < STALE_TICK_SECONDS * 1000:
                        lags.append(lag)
    periods = (end - start) / period
    changing = [len(t) for t in due.values() if len(t) >= 2]
    return {"due": due_total, "delivered": delivered,
            "delivered_pct": 100.0 * delivered / due_total if due_total else float("nan"),
            "symbols_changing": len(changing),
            "published_per_period": (sum(changing) / len(changing) / periods
                                     if changing else float("nan")),
            "lag_p50_ms": pct(lags, 50), "lag_p99_ms": pct(lags, 99),
            "lag_max_ms": max(lags) if lags else float("nan"),
            "fanout_p50_ms": pct(fanout, 50), "fanout_p99_ms": pct(fanout, 99),
            "error_frames": sum(c[3] for c in clients),
            "failed_clients": sum(c[4] is not None for c in clients)}


def process_rss_mib(root: int) -> dict[str, float]:
    """RSS of a gunicorn tree: the largest process (a worker) and the sum."""
    from bench.stream_load import process_tree

    sizes = []
    for pid in process_tree(root):
        try:
            status = open(f"/proc/{pid}/status").read()
        except OSError:
            continue
        sizes.append(next((int(line.split()[1]) for line in status.splitlines()
                           if line.startswith("VmRSS:")), 0) / 1024)
    return {"worker_rss_mib": max(sizes, default=0.0), "total_rss_mib": sum(sizes)}
