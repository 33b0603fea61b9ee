"""Quote stream load test: many concurrent SSE clients on /v1/stream/quotes.

Why: the stream issue asks for 1,000 concurrent streams over 100 symbols for 60 s against the
sandbox HTTP server, recording events delivered per client, upstream requests per cycle (at
most one per symbol per cycle, or one batch call per cycle), server RSS and CPU; and that
killing all clients at once leaves no connection, group membership or poller behind.

Starts the sandbox upstream server and the service with its production command (bin/serve ->
gunicorn + uvicorn worker; Yahoo hosts mapped to the sandbox, CACHE_TTL_CAP_SECONDS=1 so every
cycle's poll reaches upstream), opens the streams as asyncio raw-socket HTTP/1.1 clients,
measures for --duration seconds once every client has its first quote event (the window
starts half an interval after a cycle tick), then aborts every client socket at once and
polls /v1/health's `stream` member until connections and pollers are 0 (and, with --redis,
the channel layer's group sets until they are empty). Prints a JSON summary and a markdown
table; exits 1 when connections, pollers or group memberships are left after
--drain-timeout, a client got no quote event, a quote event was malformed, or two quote
events of one connection came closer than the interval. Usage:

    .venv/bin/python bench/stream_load.py [--clients 1000] [--symbols 100] [--per-client 5]
        [--duration 60] [--interval 2] [--processes 1] [--redis redis://127.0.0.1:6379/12]
        [--connect-concurrency 200] [--ramp-timeout 60] [--drain-timeout 30] [--log-level INFO]

With --redis the script empties that Redis database first (use a dedicated one: db 12).
Loopback only; Linux only (reads /proc for the server's RSS and CPU).
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import itertools
import json
import math
import os
import re
import resource
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from marketdata.sandbox.instruments import sample_symbols  # noqa: E402
from tests.integration.servers import (  # noqa: E402
    Process,
    http,
    sandbox_host_map,
    start_sandbox,
    start_service,
)
from tests.sse import SseBlock, SseParser  # noqa: E402

STREAM_PATH = "/v1/stream/quotes"
QUOTE_PATH = "/v7/finance/quote"
QUOTE_FIELDS = ("symbol", "name", "price", "change", "percentChange")
CLK_TCK = os.sysconf("SC_CLK_TCK")


# --- symbols ----------------------------------------------------------------------------------
def client_symbols(i: int, symbols: list[str], per_client: int) -> tuple[str, ...]:
    """Client i's subscription: symbols[(i * per_client + j) % len(symbols)]."""
    return tuple(symbols[(i * per_client + j) % len(symbols)] for j in range(per_client))


# --- server processes: RSS and CPU from /proc ---------------------------------------------------
def _stat_fields(pid: int) -> list[str]:
    # Fields after the command name (which may contain spaces): [0] is field 3 (state).
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants (gunicorn master and workers)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                children.setdefault(int(_stat_fields(int(entry))[1]), []).append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def sample_processes(root: int) -> dict[str, float]:
    """Summed RSS (MiB) and CPU seconds (utime + stime) over the process tree."""
    rss_kib = cpu_ticks = pids = 0
    for pid in process_tree(root):
        try:
            fields = _stat_fields(pid)
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            continue
        cpu_ticks += int(fields[11]) + int(fields[12])
        rss_kib += next((int(line.split()[1]) for line in status.splitlines()
                         if line.startswith("VmRSS:")), 0)
        pids += 1
    return {"processes": pids, "rss_mib": rss_kib / 1024, "cpu_s": cpu_ticks / CLK_TCK,
            "at": time.time()}


def cpu_percent(before: dict[str, float], after: dict[str, float]) -> float:
    """CPU % between two samples (100 % = one core)."""
    wall = after["at"] - before["at"]
    return 100.0 * (after["cpu_s"] - before["cpu_s"]) / wall if wall > 0 else 0.0


def quote_event_problem(data: str, symbols: tuple[str, ...]) -> str | None:
    """Why a quote event's data is wrong for a client subscribed to ``symbols`` (None: fine)."""
    try:
        items = json.loads(data)
    except ValueError as exc:
        return f"not JSON: {exc}"
    if not isinstance(items, list) or not items:
        return f"not a non-empty JSON array: {data[:80]}"
    seen = set()
    for item in items:
        if not isinstance(item, dict):
            return f"item is not an object: {item!r:.80}"
        missing = [name for name in QUOTE_FIELDS if name not in item]
        if missing:
            return f"item lacks {missing}: {item!r:.120}"
        if item["symbol"] not in symbols:
            return f"symbol {item['symbol']!r} not subscribed"
        if item["symbol"] in seen:
            return f"symbol {item['symbol']!r} twice"
        if not isinstance(item["price"], int | float | str) or isinstance(item["price"], bool):
            return f"price of {item['symbol']} is {item['price']!r}"
        seen.add(item["symbol"])
    return None


# --- HTTP/1.1 client ----------------------------------------------------------------------------
async def read_head(reader: asyncio.StreamReader) -> tuple[int, dict[str, str]]:
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    status_line, *lines = head.rstrip("\r\n").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(status_line.split()[1]), headers


async def body_chunks(reader: asyncio.StreamReader,
                      headers: dict[str, str]) -> AsyncIterator[bytes]:
    """The response body as it arrives (chunked transfer decoded)."""
    if "chunked" in headers.get("transfer-encoding", "").lower():
        while True:
            line = await reader.readline()
            if not line:
                raise ConnectionError("connection closed inside a chunked body")
            size = int(line.split(b";")[0].strip(), 16)
            if size == 0:
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return
            chunk = await reader.readexactly(size)
            await reader.readexactly(2)
            yield chunk
    elif "content-length" in headers:
        yield await reader.readexactly(int(headers["content-length"]))
    else:
        while chunk := await reader.read(65536):
            yield chunk


@dataclass
class Client:
    index: int
    symbols: tuple[str, ...]
    status: int | None = None
    content_type: str = ""
    chunked: bool = False
    headers_at: float | None = None
    quote_times: list[float] = field(default_factory=list)  # wall clock, every quote event
    errors: int = 0
    heartbeats: int = 0
    retry: str | None = None
    other_blocks: int = 0
    partial: int = 0  # valid quote events without every subscribed symbol
    invalid: int = 0
    problems: list[str] = field(default_factory=list)
    error_samples: list[str] = field(default_factory=list)
    failure: str | None = None  # set when the stream failed or ended before the kill
    transport: asyncio.Transport | None = field(default=None, repr=False)

    def on_block(self, block: SseBlock) -> None:
        if block.data is not None:
            kind = block.event or "message"
            if kind == "quote":
                self.quote_times.append(time.time())
                problem = quote_event_problem(block.data, self.symbols)
                if problem:
                    self.invalid += 1
                    if len(self.problems) < 3:
                        self.problems.append(problem)
                elif len(json.loads(block.data)) < len(self.symbols):
                    self.partial += 1
            elif kind == "error":
                self.errors += 1
                if len(self.error_samples) < 3:
                    self.error_samples.append(block.data[:200])
            else:
                self.other_blocks += 1
        elif block.retry is not None:
            self.retry = block.retry
        elif block.comments:
            self.heartbeats += 1
        else:
            self.other_blocks += 1


@dataclass
class LoadRun:
    host: str
    port: int
    clients: list[Client]
    connect_limit: asyncio.Semaphore
    on_first_quote: Callable[[], None]
    killed: bool = False


async def run_client(run: LoadRun, client: Client) -> None:
    """One SSE stream: connect (bounded by the ramp semaphore), then parse until killed."""
    target = f"{STREAM_PATH}?symbols={','.join(quote(s, safe='') for s in client.symbols)}"
    request = (f"GET {target} HTTP/1.1\r\nHost: {run.host}:{run.port}\r\n"
               "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n").encode()
    first = True
    stage = "connect"
    try:
        async with run.connect_limit:
            reader, writer = await asyncio.wait_for(
                asyncio.open_connection(run.host, run.port), 30)
            client.transport = writer.transport
            writer.write(request)
            stage = "response head"
            client.status, headers = await asyncio.wait_for(read_head(reader), 30)
            client.headers_at = time.time()
        stage = "body"
        client.content_type = headers.get("content-type", "")
        client.chunked = "chunked" in headers.get("transfer-encoding", "").lower()
        if client.status != 200 or not client.content_type.startswith("text/event-stream"):
            body = b"".join([c async for c in body_chunks(reader, headers)])
            raise ConnectionError(f"HTTP {client.status} {client.content_type}: {body[:200]!r}")
        parser = SseParser()
        decoder = codecs.getincrementaldecoder("utf-8")()
        async for chunk in body_chunks(reader, headers):
            for block in parser.feed(decoder.decode(chunk)):
                client.on_block(block)
                if first and client.quote_times:
                    first = False
                    run.on_first_quote()
        if not run.killed:
            client.failure = "the server ended the stream"
    except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError,
            TimeoutError) as exc:
        if not run.killed:
            client.failure = f"{stage}: {type(exc).__name__}: {exc}".rstrip(": ")
            if client.transport is not None:
                client.transport.abort()  # a client that gives up hangs up
    finally:
        if first:
            run.on_first_quote()  # counted as settled (failed) for the ramp


def next_half_tick(interval: float, now: float) -> float:
    """The first instant after ``now`` half an interval past a wall-clock tick."""
    return (math.floor(now / interval - 0.5) + 1.5) * interval


def kill_all(run: LoadRun) -> None:
    """Close every client socket abruptly (RST, no FIN handshake), all in one loop pass."""
    run.killed = True
    for client in run.clients:
        if client.transport is not None:
            client.transport.abort()


# --- statistics -------------------------------------------------------------------------------
def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q / 100 * len(ordered)) - 1))]


def client_summary(clients: list[Client], start: float, end: float,
                   interval: float) -> dict[str, Any]:
    """Events per client in the window and the gaps between quote events (each connection
    sends on its own schedule, one event per interval from its start, never two closer)."""
    in_window = [[t for t in c.quote_times if start <= t < end] for c in clients]
    counts = [len(times) for times in in_window]
    gaps = [b - a for times in in_window for a, b in itertools.pairwise(times)]
    return {
        "clients": len(clients),
        "expected_per_client": (end - start) / interval,
        "quotes_per_client": {"min": min(counts), "median": statistics.median(counts),
                              "max": max(counts)},
        "quotes_total": sum(len(c.quote_times) for c in clients),
        "quotes_in_window": sum(counts),
        "clients_without_quotes": sum(1 for c in clients if not c.quote_times),
        "clients_failed": sum(1 for c in clients if c.failure),
        "failures": Counter(c.failure for c in clients if c.failure).most_common(5),
        "invalid_events": sum(c.invalid for c in clients),
        "problems": sorted({p for c in clients for p in c.problems})[:5],
        "partial_events": sum(c.partial for c in clients),
        "error_events": sum(c.errors for c in clients),
        "error_samples": sorted({e for c in clients for e in c.error_samples})[:3],
        "heartbeats": sum(c.heartbeats for c in clients),
        "other_blocks": sum(c.other_blocks for c in clients),
        "retry": sorted({c.retry for c in clients if c.retry is not None}),
        "chunked": sum(c.chunked for c in clients),
        "gap_s": {"p50": pct(gaps, 50), "p99": pct(gaps, 99), "max": max(gaps, default=0.0),
                  "over_1_5_interval": sum(1 for g in gaps if g > 1.5 * interval),
                  # 1 ms of slack for timer resolution.
                  "under_interval": sum(1 for g in gaps if g < interval - 0.001)},
    }


def upstream_summary(entries: list[dict[str, Any]], start: float, end: float,
                     interval: float) -> dict[str, Any]:
    """Upstream quote calls in the window: per cycle, and per symbol per cycle (the cycle of
    a call is its wall-clock multiple of the interval, as the stream aligns its polls)."""
    calls = [e for e in entries if start <= e["ts"] < end]
    cycles = (end - start) / interval
    per_cycle: dict[int, Counter[str]] = {}
    calls_in_cycle: Counter[int] = Counter()
    for call in calls:
        cycle = math.floor(call["ts"] / interval)
        calls_in_cycle[cycle] += 1
        counter = per_cycle.setdefault(cycle, Counter())
        for text in call.get("query", {}).get("symbols", []):
            counter.update(s for s in text.split(",") if s)
    # Cycles whose tick is in the window (it starts half an interval after a tick).
    polled = [c for c in per_cycle if start <= c * interval < end]
    return {
        "calls": len(calls),
        "cycles": cycles,
        "calls_per_cycle": len(calls) / cycles,
        "max_calls_in_a_cycle": max(calls_in_cycle.values(), default=0),
        "cycles_in_window": math.ceil(end / interval) - math.ceil(start / interval),
        "cycles_polled": len(polled),
        "statuses": dict(Counter(str(e["status"]) for e in calls)),
        "symbols_per_call": (sum(sum(c.values()) for c in per_cycle.values()) / len(calls)
                             if calls else 0.0),
        "distinct_symbols_per_polled_cycle": (statistics.mean(len(per_cycle[c]) for c in polled)
                                              if polled else float("nan")),
        "max_calls_of_one_symbol_in_a_cycle": max(
            (n for counter in per_cycle.values() for n in counter.values()), default=0),
        "distinct_symbols": len(set().union(*per_cycle.values())) if per_cycle else 0,
    }


# --- /v1/health `stream` ---------------------------------------------------------------------
def stream_health(base_url: str) -> dict[str, Any] | None:
    """The answering process's `stream` member of /v1/health (None when absent)."""
    started = time.monotonic()
    status, _, raw = http("GET", f"{base_url}/v1/health", timeout=60)
    if status != 200:
        return None
    stream = json.loads(raw).get("stream")
    if isinstance(stream, dict):
        stream = {**stream, "health_s": round(time.monotonic() - started, 3)}
    return stream


def health_by_pid(base_url: str, processes: int, done: Callable[[dict[int, dict]], bool],
                  timeout: float) -> tuple[bool, float, dict[int, dict]]:
    """Poll /v1/health (several at once, each on a new connection, so every process gets
    asked) and keep the latest `stream` reading per pid, until ``done(readings)`` or
    ``timeout``. Returns (done, seconds until done or timeout, readings)."""
    started = time.monotonic()
    latest: dict[int, dict] = {}
    with ThreadPoolExecutor(max(2, 2 * processes)) as pool:
        while True:
            for reading in pool.map(lambda _: stream_health(base_url), range(2 * processes)):
                if reading and "pid" in reading:
                    latest[reading["pid"]] = reading
            elapsed = time.monotonic() - started
            if len(latest) >= processes and done(latest):
                return True, elapsed, latest
            if elapsed > timeout:
                return False, elapsed, latest
            time.sleep(0.2)


def drained(readings: dict[int, dict]) -> bool:
    return all(r.get("connections") == 0 and r.get("pollers") == 0 for r in readings.values())


def redis_sample(url: str) -> dict[str, float]:
    """The Redis server's own CPU seconds, RSS and client connections (INFO)."""
    import redis

    info = redis.Redis.from_url(url).info()
    return {"cpu_s": float(info["used_cpu_sys"]) + float(info["used_cpu_user"]),
            "rss_mib": info["used_memory_rss"] / 2**20,
            "clients": info["connected_clients"], "at": time.time()}


def redis_groups(url: str) -> dict[str, Any]:
    """Keys in the Redis db, and the members of channels-redis group sets (':group:')."""
    import redis

    client = redis.Redis.from_url(url)
    members, groups = 0, []
    for key in client.scan_iter(match="*:group:*"):
        if client.type(key) == b"zset":
            groups.append(key.decode())
            members += client.zcard(key)
    return {"keys": client.dbsize(), "group_keys": len(groups), "group_members": members,
            "groups": sorted(groups)[:5]}


def wait_for_groups(url: str, deadline: float) -> tuple[bool, dict[str, Any]]:
    """Poll Redis until no group has a member (True) or the monotonic ``deadline`` passes."""
    while True:
        groups = redis_groups(url)
        if groups["group_members"] == 0:
            return True, groups
        if time.monotonic() > deadline:
            return False, groups
        time.sleep(0.2)


def log_problems(log_text: str) -> dict[str, int]:
    """The service log's warnings and errors, counted by message (and error class)."""
    counts: Counter[str] = Counter()
    for line in log_text.splitlines():
        if line.startswith("{"):
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if entry.get("level") in ("WARNING", "ERROR", "CRITICAL"):
                message = str(entry.get("message", "")).partition("\n")[0]
                message = re.sub(r"[\d.]+ ?ms", "N ms", message)
                error = str(entry.get("error", "")).split(":")[0]
                counts[f"{entry['level']} {message[:80]}{' (' + error + ')' if error else ''}"] \
                    += 1
        elif "Exception in ASGI application" in line or line.startswith("Traceback"):
            counts["unhandled exception (traceback)"] += 1
    return dict(counts.most_common())


# --- the run -------------------------------------------------------------------------------------
async def load_phase(service: Process, args: argparse.Namespace, sandbox: Process,
                     symbols: list[str]) -> dict[str, Any]:
    """Ramp, measure for --duration, kill all clients; returns the raw measurements."""
    parts = urlsplit(service.base_url)
    all_settled = asyncio.Event()
    settled = 0

    def on_first_quote() -> None:
        nonlocal settled
        settled += 1
        if settled == len(run.clients):
            all_settled.set()

    run = LoadRun(parts.hostname, parts.port,
                  [Client(i, client_symbols(i, symbols, args.per_client))
                   for i in range(args.clients)],
                  asyncio.Semaphore(args.connect_concurrency), on_first_quote)
    root = service.proc.pid
    out: dict[str, Any] = {}
    ramp_started = time.time()
    tasks = [asyncio.create_task(run_client(run, c)) for c in run.clients]
    try:
        await asyncio.wait_for(all_settled.wait(), args.ramp_timeout)
    except TimeoutError:
        print(f"ramp: only {settled}/{len(run.clients)} clients had a quote event after "
              f"{args.ramp_timeout} s; measuring anyway", file=sys.stderr)
    out["ramp_s"] = time.time() - ramp_started
    out["headers_ramp_s"] = max((c.headers_at or ramp_started for c in run.clients),
                                default=ramp_started) - ramp_started
    firsts = [c.quote_times[0] - ramp_started for c in run.clients if c.quote_times]
    out["first_quote_s"] = {"p50": pct(firsts, 50), "p90": pct(firsts, 90),
                            "max": max(firsts, default=float("nan"))}
    # One reading per process while every stream is open, after one cycle has run (so
    # `leading` is set), and before the window: /v1/health runs its upstream checks, which
    # must not land in the window's request log.
    await asyncio.sleep(next_half_tick(args.interval, time.time()) - time.time())
    _, _, out["health_connected"] = await asyncio.to_thread(
        health_by_pid, service.base_url, args.processes, lambda r: True, 30)
    # The window starts half an interval after a tick: it holds duration / interval whole
    # cycles, and the quotes cached by the streams' first events (during the ramp) have
    # expired (CACHE_TTL_CAP_SECONDS=1) before its first tick.
    await asyncio.sleep(next_half_tick(args.interval, time.time()) - time.time())
    out["connected"] = sample_processes(root)
    if args.redis:
        out["redis_connected"] = redis_sample(args.redis)
    await asyncio.to_thread(http, "POST", f"{sandbox.base_url}/__sandbox__/reset")
    start = time.time()
    client_cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    peak = out["connected"]["rss_mib"]
    while time.time() < start + args.duration:
        await asyncio.sleep(min(1.0, max(0.0, start + args.duration - time.time())))
        peak = max(peak, sample_processes(root)["rss_mib"])
    end = time.time()
    out["end"] = sample_processes(root)
    if args.redis:
        out["redis_end"] = redis_sample(args.redis)
    out["peak_rss_mib"] = max(peak, out["end"]["rss_mib"])
    client_cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    out["client_cpu_percent"] = 100.0 * ((client_cpu1.ru_utime - client_cpu0.ru_utime)
                                         + (client_cpu1.ru_stime - client_cpu0.ru_stime)) / (
        end - start)
    status, _, raw = await asyncio.to_thread(
        http, "GET", f"{sandbox.base_url}/__sandbox__/requests")
    assert status == 200, raw
    entries = json.loads(raw)["requests"]
    out["window"] = (start, end)
    out["clients"] = client_summary(run.clients, start, end, args.interval)
    out["upstream"] = upstream_summary([e for e in entries if e["path"].startswith(QUOTE_PATH)],
                                       start, end, args.interval)
    out["upstream_other_paths"] = dict(Counter(
        e["path"] for e in entries if start <= e["ts"] < end
        and not e["path"].startswith(QUOTE_PATH)))
    out["client_objects"] = run.clients
    out["killed_at"] = time.monotonic()
    kill_all(run)
    await asyncio.gather(*tasks, return_exceptions=True)
    return out


def wait_for_stream(service: Process, symbols: tuple[str, ...], timeout: float) -> Client:
    """One stream until its first quote event (warms the sandbox and the upstream session)."""

    async def one() -> Client:
        parts = urlsplit(service.base_url)
        got = asyncio.Event()
        run = LoadRun(parts.hostname, parts.port, [Client(0, symbols)], asyncio.Semaphore(1),
                      got.set)
        task = asyncio.create_task(run_client(run, run.clients[0]))
        try:
            await asyncio.wait_for(got.wait(), timeout)
        except TimeoutError:
            pass
        finally:
            kill_all(run)
            await asyncio.gather(task, return_exceptions=True)
        return run.clients[0]

    return asyncio.run(one())


def raise_fd_limit(needed: int) -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < needed:
        target = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        if target < needed:
            sys.exit(f"open-file limit {hard} is below the {needed} this run needs")


def fmt(value: float, digits: int = 2) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else (
        f"{value:,.{digits}f}")


def print_markdown(rows: list[tuple[str, str]]) -> None:
    print("| measure | value |")
    print("|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


def result_rows(args: argparse.Namespace, r: dict[str, Any]) -> list[tuple[str, str]]:
    c, u = r["clients"], r["upstream"]
    q, gap = c["quotes_per_client"], c["gap_s"]
    base, conn, end = r["baseline"], r["connected"], r["end"]
    connected = r["health_connected"]
    drain = r["drain"]
    return [
        ("setup", f"{args.clients} clients x {args.per_client} symbols over {args.symbols} "
                  f"symbols; {args.duration} s; interval {args.interval} s; "
                  f"{args.processes} process(es); "
                  f"{'Redis layer' if args.redis else 'local memory'}"),
        ("ramp: all clients with a first quote event",
         f"{fmt(r['ramp_s'], 1)} s (last response head: {fmt(r['headers_ramp_s'], 1)} s; "
         f"first quote p50 / p90 / max {fmt(r['first_quote_s']['p50'], 1)} / "
         f"{fmt(r['first_quote_s']['p90'], 1)} / {fmt(r['first_quote_s']['max'], 1)} s)"),
        ("quote events per client in the window (min / median / max)",
         f"{q['min']} / {q['median']:g} / {q['max']} (expected ~{c['expected_per_client']:.0f})"),
        ("clients without a quote event / failed streams",
         f"{c['clients_without_quotes']} / {c['clients_failed']}"),
        ("invalid / partial quote events", f"{c['invalid_events']} / {c['partial_events']}"),
        ("error events / heartbeats (all clients, whole run)",
         f"{c['error_events']} / {c['heartbeats']}"),
        ("gap between quote events p50 / p99 / max",
         f"{fmt(gap['p50'])} / {fmt(gap['p99'])} / {fmt(gap['max'])} s "
         f"({gap['over_1_5_interval']} gaps > 1.5 x interval)"),
        ("gaps shorter than the interval (must be 0)", f"{gap['under_interval']}"),
        ("upstream quote calls in the window (per cycle)",
         f"{u['calls']} in {u['cycles']:.0f} cycles ({fmt(u['calls_per_cycle'])} per cycle, "
         f"max {u['max_calls_in_a_cycle']} in one cycle; {u['cycles_polled']} of "
         f"{u['cycles_in_window']} cycles polled)"),
        ("symbols per upstream call / distinct symbols per polled cycle",
         f"{fmt(u['symbols_per_call'], 1)} / {fmt(u['distinct_symbols_per_polled_cycle'], 1)}"),
        ("most calls for one symbol in one cycle", str(u["max_calls_of_one_symbol_in_a_cycle"])),
        ("other upstream calls in the window", json.dumps(r["upstream_other_paths"]) or "{}"),
        ("health while connected (per pid: connections / pollers / leading / subscriptions)",
         "; ".join(f"{pid}: {h.get('connections')} / {h.get('pollers')} / {h.get('leading')} / "
                   f"{h.get('subscriptions')}" for pid, h in sorted(connected.items()))),
        ("server RSS idle / connected / end / peak",
         f"{fmt(base['rss_mib'], 0)} / {fmt(conn['rss_mib'], 0)} / {fmt(end['rss_mib'], 0)} / "
         f"{fmt(r['peak_rss_mib'], 0)} MiB ({int(end['processes'])} processes)"),
        ("server CPU idle / during the window",
         f"{fmt(r['idle_cpu_percent'], 1)} % / {fmt(cpu_percent(conn, end), 1)} % of one core "
         f"({fmt(end['cpu_s'] - conn['cpu_s'], 1)} CPU s)"),
        *([("Redis server CPU during the window / RSS / client connections at the end",
            f"{fmt(cpu_percent(r['redis_connected'], r['redis_end']), 1)} % / "
            f"{fmt(r['redis_end']['rss_mib'], 0)} MiB / {r['redis_end']['clients']}")]
          if r.get("redis_end") else []),
        ("load generator CPU during the window", f"{fmt(r['client_cpu_percent'], 1)} %"),
        ("service log warnings and errors (whole run)",
         "; ".join(f"{n} x {msg}" for msg, n in r["log_problems"].items()) or "none"),
        ("after killing all clients: connections and pollers 0",
         f"{'yes' if drain['ok'] else 'NO'} after {fmt(drain['seconds'], 1)} s "
         f"(health answers took up to {fmt(drain['health_s'], 2)} s)"),
        ("final health per pid (connections / pollers / leading / subscriptions)",
         "; ".join(f"{pid}: {h.get('connections')} / {h.get('pollers')} / {h.get('leading')} / "
                   f"{h.get('subscriptions')}" for pid, h in sorted(drain["readings"].items()))),
        *([("Redis group memberships after the kill",
            f"{r['redis_after']['group_members']} after {fmt(r['redis_after']['seconds'], 1)} s"
            f" ({r['redis_after']['group_keys']} groups)")]
          if r.get("redis_after") else []),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=1000)
    parser.add_argument("--symbols", type=int, default=100)
    parser.add_argument("--per-client", type=int, default=5)
    parser.add_argument("--duration", type=float, default=60.0,
                        help="seconds, from when every client has its first quote event")
    parser.add_argument("--interval", type=float, default=2.0,
                        help="STREAM_INTERVAL_SECONDS")
    parser.add_argument("--processes", type=int, default=1, help="WEB_CONCURRENCY")
    parser.add_argument("--redis", default="", help="REDIS_URL (emptied first), e.g. "
                                                    "redis://127.0.0.1:6379/12")
    parser.add_argument("--connect-concurrency", type=int, default=200,
                        help="streams being opened at once during the ramp")
    parser.add_argument("--ramp-timeout", type=float, default=60.0)
    parser.add_argument("--drain-timeout", type=float, default=30.0)
    parser.add_argument("--log-level", default="INFO", help="the service's LOG_LEVEL")
    args = parser.parse_args()

    raise_fd_limit(args.clients + 256)
    symbols = sample_symbols(args.symbols)
    if args.redis:
        import redis

        redis.Redis.from_url(args.redis).flushdb()
    tmp = Path(tempfile.mkdtemp(prefix="stream-bench-"))
    sandbox = start_sandbox(tmp)
    env = {"MARKETDATA_UPSTREAM": "live", "UPSTREAM_HOST_MAP": sandbox_host_map(sandbox.base_url),
           "USE_SECURITY": "false", "STREAM_INTERVAL_SECONDS": str(args.interval),
           "CACHE_TTL_CAP_SECONDS": "1", "WEB_CONCURRENCY": str(args.processes),
           "HEALTH_CHECK_TIMEOUT_SECONDS": "30", "LOG_LEVEL": args.log_level,
           # every client comes from this one address
           "STREAM_MAX_CONNECTIONS_PER_ADDRESS": str(args.clients + 100)}
    if args.redis:
        env["REDIS_URL"] = args.redis
    service = None
    failures: list[str] = []
    try:
        service = start_service(tmp, env)
        first = wait_for_stream(service, tuple(symbols[:args.per_client]), 60)
        if not first.quote_times:
            sys.exit(f"no quote event from {STREAM_PATH}: status {first.status} "
                     f"{first.content_type!r} {first.failure or ''}\nservice log: "
                     f"{service.log_path}")
        ok, _, readings = health_by_pid(service.base_url, args.processes, drained, 30)
        if not readings:
            sys.exit("/v1/health has no `stream` member with a pid")
        if not ok:
            print(f"warning: the warm-up stream is still counted: {readings}", file=sys.stderr)
        time.sleep(2)
        idle0 = sample_processes(service.proc.pid)
        time.sleep(5)
        result: dict[str, Any] = {"baseline": sample_processes(service.proc.pid)}
        result["idle_cpu_percent"] = cpu_percent(idle0, result["baseline"])
        result.update(asyncio.run(load_phase(service, args, sandbox, symbols)))
        killed_at = result.pop("killed_at")
        clients = result.pop("client_objects")
        ok, _, readings = health_by_pid(service.base_url, args.processes, drained,
                                        args.drain_timeout)
        result["drain"] = {"ok": ok, "seconds": time.monotonic() - killed_at,
                           "readings": readings,
                           "health_s": max((h.get("health_s", 0) for h in readings.values()),
                                           default=0.0)}
        if not ok:
            failures.append("connections/pollers did not return to 0 within "
                            f"{args.drain_timeout} s")
        if args.redis:
            groups_ok, result["redis_after"] = wait_for_groups(
                args.redis, killed_at + args.drain_timeout)
            result["redis_after"]["seconds"] = time.monotonic() - killed_at
            if not groups_ok:
                failures.append(f"{result['redis_after']['group_members']} Redis group "
                                f"memberships left {args.drain_timeout} s after the kill: "
                                f"{result['redis_after']['groups']}")
        result["log_problems"] = log_problems(service.log())
        c = result["clients"]
        if c["clients_without_quotes"]:
            failures.append(f"{c['clients_without_quotes']} clients got no quote event")
        if c["invalid_events"]:
            failures.append(f"{c['invalid_events']} malformed quote events: {c['problems']}")
        if c["gap_s"]["under_interval"]:
            failures.append(f"{c['gap_s']['under_interval']} quote events came closer than "
                            "the interval")
        summary = {"args": vars(args), **{k: v for k, v in result.items() if k != "window"},
                   "service_log": str(service.log_path),
                   "sample_client": {k: v for k, v in vars(clients[0]).items()
                                     if k not in ("quote_times", "transport")}}
        print(json.dumps(summary, indent=2, default=str))
        print()
        print_markdown(result_rows(args, result))
    finally:
        if service is not None:
            service.stop()
        sandbox.stop()
    for failure in failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
