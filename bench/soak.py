"""Memory soak: a long mixed load on one worker, with its RSS (and the sandbox server's) every
few seconds.

Why: issue 23 measured the worker's RSS growing from 257 MB to 550 MB over a 5-minute
soak and still rising, and the sandbox HTTP server reaching 1.3 GB. Done when, with 20 SSE
clients, every request is answered and the RSS curve is flat over the last two minutes.

Starts the sandbox HTTP server and the service with its production command (bin/serve ->
gunicorn + one uvicorn worker, WEB_CONCURRENCY=1, local-memory cache, no Redis, live mode
with every provider host mapped to the sandbox, as the integration tests do), then for
``--minutes`` runs at once:

- ``--sse`` SSE clients on ``/v1/stream/quotes?symbols=...`` (5 symbols each), reading and
  counting events; each must get a 200 and stay connected to the end;
- ``--concurrency`` keep-alive HTTP clients (asyncio, raw HTTP/1.1) sending a wide mix of
  requests drawn over ``--symbols`` distinct generated symbols (log-uniform: a hot head
  and a long tail, so the caches fill and churn): v1 and v2 quotes, historical and v2
  charts over every valid range/interval, indicators, analysis, holders, financials,
  transcripts, news, macro, treasury, forex, futures, positioning, hours, calendar,
  backtests (POST), search, movers, ping, and deliberate 400s and 404s (counted apart);
  with ``USE_SECURITY`` on and ``--clients`` client addresses (``X-Forwarded-For`` from a
  trusted proxy), so the rate-limit counters churn too.

Every ``--sample-seconds`` it reads the RSS of the gunicorn worker (the master's child:
a new pid is reported as a restart) and of the sandbox server from /proc, and the sandbox
server's own report (``/__sandbox__/stats``: its caches' entries, its request log). At the
end it prints the curve (time, worker RSS, sandbox RSS, requests done, non-2xx by
status), the slope of each RSS over the last two minutes (least squares, MB/min), the
statuses per request kind, the ``X-Cache`` of the 200s, and the SSE clients' results;
``--json`` writes everything, ``--keep-logs`` the two servers' logs. Exits 1 when a valid
request was not answered 200 (a 404 counts as an answer only where the API documents it:
news for a symbol without articles), an SSE client failed, the worker restarted, or the
worker's slope over the last two minutes exceeds ``--flat-mb-per-min``.

``--env`` / ``--sandbox-env`` add environment to either server, e.g. the allocator:
``MALLOC_ARENA_MAX=2`` or ``LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2``.
Diagnosis only (they slow the worker): ``--debug-hook`` serves ``GET /__soak__/memory``
from the worker through a settings module written into the temporary directory (object
counts by type after a collection, what holds dead weak references, the cache's usage,
glibc's ``mallinfo2``), read every ``--debug-every`` samples; ``--trim`` also calls
``malloc_trim(0)`` at every sample and times it; ``--tracemalloc N`` traces the worker's
allocations. Usage:

    .venv/bin/python bench/soak.py [--minutes 5] [--sse 20] [--concurrency 12]
        [--symbols 20000] [--sample-seconds 10] [--env NAME=VALUE ...] [--json out.json]
    .venv/bin/python bench/soak.py --minutes 1          # a quick check

Linux only (reads /proc); loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.stream_load import body_chunks, log_problems, read_head  # noqa: E402
from marketdata.sandbox.instruments import EQUITY, get_instrument, sample_symbols  # noqa: E402
from tests.integration.servers import (  # noqa: E402
    Process,
    http,
    sandbox_host_map,
    start_sandbox,
    start_service,
)
from tests.sse import SseParser  # noqa: E402

MIB = 1024 * 1024


# --- /proc ------------------------------------------------------------------------------------
def rss_mib(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def children_of(pid: int) -> list[int]:
    """Direct children of ``pid`` (the gunicorn master's workers)."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry))
    return sorted(out)


def threads_of(pid: int) -> int:
    try:
        return len(os.listdir(f"/proc/{pid}/task"))
    except OSError:
        return 0


# --- the diagnostic hook (--debug-hook) -------------------------------------------------------
# A settings module wrapping the service's, written into the temporary directory (nothing in
# the project changes): its URL configuration adds GET /__soak__/memory, answered by the
# worker with what holds its memory. For diagnosis runs only: it runs gc.collect(), and
# with --tracemalloc the worker traces every allocation (several times slower).
DEBUG_SETTINGS = """
from config.settings import *  # noqa: F403
ROOT_URLCONF = "soak_debug_urls"
"""
DEBUG_URLS = """
import ctypes, gc, threading, tracemalloc, weakref
from collections import Counter

from django.http import JsonResponse
from django.urls import path

from config.urls import urlpatterns as _base

_previous = []


class _MallInfo2(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks",
        "fordblks", "keepcost")]


def _mallinfo():
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
        info = libc.mallinfo2()
    except (OSError, AttributeError):
        return {}
    # arena: main-arena heap; hblkhd: mmapped blocks; uordblks: in use; fordblks: free
    return {n: round(getattr(info, n) / 2**20, 1)
            for n in ("arena", "hblkhd", "uordblks", "fordblks")}


def _rss():
    with open("/proc/self/status") as status:
        return next(int(l.split()[1]) / 1024 for l in status if l.startswith("VmRSS:"))


def memory(request):
    from django.core.cache import caches
    if request.GET.get("trim"):
        import time
        before, started = _rss(), time.perf_counter()
        ctypes.CDLL("libc.so.6").malloc_trim(0)
        took = time.perf_counter() - started
        return JsonResponse({"trim_ms": round(took * 1000, 2), "rss_before": before,
                             "rss_after": _rss(), "malloc_mib": _mallinfo()})
    gc.collect()
    objects = gc.get_objects()  # the frozen start-up objects are not listed
    types = Counter(type(o).__qualname__ for o in objects)
    refs = [o for o in objects if type(o) is weakref.ReferenceType]
    targets = Counter(type(r()).__qualname__ for r in refs)
    holders = Counter()
    for r in [r for r in refs if r() is None][-200:]:
        for h in gc.get_referrers(r):
            if h is not refs and h is not objects:
                holders[type(h).__qualname__ + ":" + repr(h)[:80]] += 1
    import re as _re
    cached = set(map(id, _re._cache.values()))
    pattern_holders = Counter()
    patterns = [o for o in objects if type(o) is _re.Pattern and id(o) not in cached]
    for pat in patterns[-100:]:
        for h in gc.get_referrers(pat):
            if h is not patterns and h is not objects:
                pattern_holders[type(h).__qualname__ + ":" + repr(h)[:100]] += 1
    pattern_samples = [p.pattern[:80] for p in patterns[-10:]]
    del objects, refs, patterns
    cache = caches["default"]
    if hasattr(cache, "usage"):
        usage = cache.usage()
    else:
        store = getattr(cache, "_cache", {})
        usage = {"entries": len(store),
                 "bytes": sum(len(k) + len(v) + 256 for k, v in list(store.items()))}
    out = {"types": types.most_common(30), "weakref_targets": targets.most_common(8),
           "dead_weakref_holders": holders.most_common(8),
           "pattern_holders": pattern_holders.most_common(8),
           "pattern_samples": pattern_samples,
           "cache": usage,
           "threads": threading.active_count(), "malloc_mib": _mallinfo()}
    if tracemalloc.is_tracing():
        snap = tracemalloc.take_snapshot().filter_traces(
            [tracemalloc.Filter(False, tracemalloc.__file__)])
        out["traced_mib"] = round(tracemalloc.get_traced_memory()[0] / 2**20, 1)
        out["top"] = ["%.1f MiB %d %s" % (s.size / 2**20, s.count, s.traceback)
                      for s in snap.statistics("lineno")[:25]]
        if _previous:
            out["growth"] = ["%+.1f MiB %+d %s" % (d.size_diff / 2**20, d.count_diff,
                                                   d.traceback)
                             for d in snap.compare_to(_previous[-1], "lineno")[:25]]
        _previous[:] = [snap]
    return JsonResponse(out)


urlpatterns = [path("__soak__/memory", memory), *_base]
"""


def debug_memory(base_url: str, trim: bool = False) -> dict[str, Any]:
    query = "?trim=1" if trim else ""
    status, _, raw = http("GET", f"{base_url}/__soak__/memory{query}", timeout=300)
    return json.loads(raw) if status == 200 else {"status": status, "body": raw[:300].decode()}


# --- the request mix --------------------------------------------------------------------------
_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXY"  # no Z: ZZZZ... is the sandbox's unknown symbol


def is_equity(symbol: str) -> bool:
    inst = get_instrument(symbol)
    return inst is not None and inst.kind == EQUITY


def equities(count: int) -> list[str]:
    """The sandbox's famous US equities (its sample symbols), at most ``count``."""
    return [s for s in sample_symbols(101) if s.isalpha() and is_equity(s)][:count]


def symbol_pool(count: int, seed: int) -> list[str]:
    """``count`` distinct plain tickers (2-5 letters) the sandbox answers as equities (every
    endpoint has data for those: funds have no financials, ETFs no analysts), the famous
    ones first: index 0 is the hottest."""
    rng = random.Random(seed)
    pool = equities(count)
    seen = set(pool)
    while len(pool) < count:
        sym = "".join(rng.choice(_LETTERS) for _ in range(rng.randint(2, 5)))
        if sym not in seen and is_equity(sym):
            seen.add(sym)
            pool.append(sym)
    return pool


@dataclass
class Mix:
    symbols: list[str]

    def sym(self, rng: random.Random) -> str:
        """Log-uniform over the pool: half the draws among the first ~sqrt(n) symbols."""
        n = len(self.symbols)
        return self.symbols[min(n - 1, int(n ** rng.random()) - 1)]

    def syms(self, rng: random.Random, lo: int = 1, hi: int = 8) -> str:
        return ",".join(dict.fromkeys(self.sym(rng) for _ in range(rng.randint(lo, hi))))


# (range, interval) pairs the v1 historical endpoint accepts (the spec's table).
V1_CHART = [(r, "1d") for r in ("1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y", "2y", "5y",
                                "10y")] + \
    [(r, "1wk") for r in ("1y", "2y", "5y", "10y")] + [("max", "1mo"), ("10y", "1mo")] + \
    [(r, "1m") for r in ("1d", "5d")] + \
    [(r, i) for i in ("5m", "15m", "30m") for r in ("1d", "5d", "1mo")] + \
    [(r, "1h") for r in ("1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y")]
V2_CHART = V1_CHART + [(r, "2m") for r in ("1d", "5d")] + [("1mo", "90m"), ("5y", "3mo"),
                                                            ("10y", "5d")]
ANALYSIS = ("recommendations", "upgrades_downgrades", "price_targets", "earnings_estimate",
            "revenue_estimate", "earnings_history", "sustainability")
V2_ANALYSIS = ("recommendations", "upgrades-downgrades", "earnings-estimate",
               "earnings-history")
HOLDERS = ("major", "institutional", "mutualfund", "insider_transactions",
           "insider_purchases", "insider_roster")
FUNCTIONS = ("SMA", "EMA", "WMA", "VWMA", "RSI", "SRSI", "STOCH", "CCI", "OBV", "BBANDS",
             "AROON", "ADX", "MACD", "SUPERTREND", "ICHIMOKU")
V2_FIELDS = ("rsi14", "sma10", "obv", "vwap", "macd", "vwma20", "mfi14")
STRATEGIES = ("sma_crossover", "ema_crossover", "rsi_reversal", "macd_signal",
              "bollinger_mean_reversion", "supertrend_follow", "donchian_breakout",
              "buy_and_hold")
FRED = ("CPIAUCSL", "DGS10", "GDP", "UNRATE", "SOFR", "DFF", "DGS2", "T10Y2Y")
CURRENCIES = ("EUR", "USD", "JPY", "GBP", "CHF", "CAD", "AUD", "SEK", "NOK", "PLN")
FUTURES = ("GC", "SI", "CL", "NG", "HG", "ZC", "ZW", "ES", "NQ")
COT = ("GC=F", "SI=F", "CL=F", "NG=F", "ZC=F")
WORDS = ("apple", "bank", "energy", "micro", "global", "tech", "gold", "health", "auto",
         "pharma", "semi", "retail", "capital", "power", "data")

ANALYSTS = ("grading-actions", "price-target-consensus", "price-target-summary")
PRESS = equities(20)  # SEC EDGAR's sandbox knows the famous companies

Request = tuple[str, str, bytes | None]  # method, target, JSON body


def _q(text: str) -> str:
    return quote(text, safe=",")


def _chart_v1(m: Mix, r: random.Random) -> Request:
    rng, interval = r.choice(V1_CHART)
    return "GET", f"/v1/historical?symbol={m.sym(r)}&range={rng}&interval={interval}", None


def _chart_v2(m: Mix, r: random.Random) -> Request:
    rng, interval = r.choice(V2_CHART)
    extra = r.choice(("", "&events=true", "&patterns=true&limit=20", "&limit=50"))
    return "GET", f"/v2/chart/{m.sym(r)}?range={rng}&interval={interval}{extra}", None


def _backtest(m: Mix, r: random.Random) -> Request:
    body = {"strategy": r.choice(STRATEGIES), "range": r.choice(("1y", "2y", "5y")),
            "equityLimit": 10, "tradesLimit": 5}
    return "POST", f"/v2/backtest/{m.sym(r)}", json.dumps(body).encode()


# name -> (weight, expected: "ok" (200), "ok/404" (200, or the documented 404) or "bad"
# (a deliberate client error: any 4xx), request builder)
KINDS: dict[str, tuple[float, str, Callable[[Mix, random.Random], Request]]] = {
    "v1 quotes": (6, "ok", lambda m, r: ("GET", f"/v1/quotes?symbols={m.syms(r)}", None)),
    "v1 simple-quotes": (3, "ok", lambda m, r: (
        "GET", f"/v1/simple-quotes?symbols={m.syms(r)}", None)),
    "v2 quote": (4, "ok", lambda m, r: ("GET", f"/v2/quote/{m.sym(r)}", None)),
    "v2 quotes": (3, "ok", lambda m, r: ("GET", f"/v2/quotes?symbols={m.syms(r)}", None)),
    "v2 quote-type": (1, "ok", lambda m, r: ("GET", f"/v2/quote-type/{m.sym(r)}", None)),
    "v1 historical": (8, "ok", _chart_v1),
    "v2 chart": (5, "ok", _chart_v2),
    "v2 charts": (2, "ok", lambda m, r: (
        "GET", f"/v2/charts?symbols={m.syms(r, 1, 4)}&range={r.choice(('5d', '1mo', '1y'))}",
        None)),
    "v1 indicator": (3, "ok", lambda m, r: (
        "GET", f"/v1/indicator?function={r.choice(FUNCTIONS)}&symbol={m.sym(r)}"
               f"&range={r.choice(('1y', '2y', '5y'))}", None)),
    "v1 indicators": (2, "ok", lambda m, r: (
        "GET", f"/v1/indicators?symbol={m.sym(r)}&functions="
               f"{','.join(r.sample(FUNCTIONS, 2))}", None)),
    "v2 indicators": (2, "ok", lambda m, r: (
        "GET", f"/v2/indicators?symbols={m.syms(r, 1, 3)}&fields="
               f"{','.join(r.sample(V2_FIELDS, 2))}", None)),
    "v2 indicators/symbol": (1, "ok", lambda m, r: (
        "GET", f"/v2/indicators/{m.sym(r)}?fields={','.join(r.sample(V2_FIELDS, 3))}", None)),
    "v1 analysis": (3, "ok", lambda m, r: (
        "GET", f"/v1/analysis/{m.sym(r)}?analysis_type={r.choice(ANALYSIS)}", None)),
    "v2 analysis": (1, "ok", lambda m, r: (
        "GET", f"/v2/analysis/{m.sym(r)}/{r.choice(V2_ANALYSIS)}", None)),
    "v1 holders": (2, "ok", lambda m, r: (
        "GET", f"/v1/holders/{m.sym(r)}?holder_type={r.choice(HOLDERS)}", None)),
    "v2 holders": (1, "ok", lambda m, r: ("GET", f"/v2/holders/{m.sym(r)}/major", None)),
    "v1 financials": (2, "ok", lambda m, r: (
        "GET", f"/v1/financials/{m.sym(r)}?statement="
               f"{r.choice(('income', 'balance', 'cashflow'))}"
               f"&frequency={r.choice(('annual', 'quarterly'))}", None)),
    "v1 earnings-transcript": (1, "ok", lambda m, r: (
        "GET", f"/v1/earnings-transcript/{m.sym(r)}", None)),
    # 404 is the documented answer for a symbol no article is tagged with (a short ticker
    # whose search matches another company first).
    "v1 news": (1, "ok/404", lambda m, r: ("GET", f"/v1/news?symbol={m.sym(r)}", None)),
    "v2 worldnews": (1, "ok", lambda m, r: ("GET", f"/v2/worldnews/news/{m.sym(r)}", None)),
    "v2 macro series": (1, "ok", lambda m, r: (
        "GET", f"/v2/macro/series/{r.choice(FRED)}?limit={r.choice((5, 50, 500))}", None)),
    "v2 treasury": (1, "ok", lambda m, r: ("GET", "/v2/macro/treasury-yields", None)),
    "v2 forex": (1, "ok", lambda m, r: (
        "GET", "/v2/forex/{}/{}".format(*r.sample(CURRENCIES, 2)), None)),
    "v2 futures": (1, "ok", lambda m, r: ("GET", f"/v2/futures/{r.choice(FUTURES)}", None)),
    "v2 positioning": (0.5, "ok", lambda m, r: (
        "GET", f"/v2/positioning/cot/{_q(r.choice(COT))}", None)),
    "v2 hours": (1, "ok", lambda m, r: (
        "GET", f"/v2/hours?region={r.choice(('US', 'GB', 'JP'))}", None)),
    "v2 calendar": (1, "ok", lambda m, r: (
        "GET", f"/v2/calendar?symbols={m.syms(r, 1, 3)}&range={r.choice(('1mo', '3mo'))}",
        None)),
    "v2 capital-gains": (0.5, "ok", lambda m, r: (
        "GET", f"/v2/capital-gains/{r.choice(('SPY', 'VFIAX', 'QQQ', m.sym(r)))}", None)),
    "v2 analysts": (1, "ok", lambda m, r: ("GET", f"/v2/{r.choice(ANALYSTS)}/{m.sym(r)}", None)),
    "v2 press-releases": (0.5, "ok", lambda m, r: (
        "GET", f"/v2/press-releases/{r.choice(PRESS)}", None)),
    "v2 index-constituents": (0.3, "ok", lambda m, r: (
        "GET", f"/v2/index-constituents/{r.choice(('%5EDJI', '%5EGSPC', 'NDX'))}", None)),
    "v2 backtest": (1, "ok", _backtest),
    "v1 search": (1, "ok", lambda m, r: (
        "GET", f"/v1/search?query={r.choice(WORDS)}{r.choice(('', ' ' + r.choice(WORDS)))}"
               .replace(" ", "%20") + f"&hits={r.choice((5, 10))}", None)),
    "v1 similar": (0.5, "ok", lambda m, r: ("GET", f"/v1/similar?symbol={m.sym(r)}", None)),
    "v1 movers": (1, "ok", lambda m, r: (
        "GET", f"/v1/{r.choice(('actives', 'gainers', 'losers'))}"
               f"?count={r.choice((25, 50, 100))}", None)),
    "v1 indices+sectors": (0.5, "ok", lambda m, r: (
        "GET", r.choice(("/v1/indices?index=snp&index=dax", "/v1/sectors",
                         f"/v1/sectors/symbol/{m.sym(r)}",
                         "/v1/sectors/details/Technology")), None)),
    "v1 ping": (2, "ok", lambda m, r: ("GET", "/v1/ping", None)),
    # Deliberate client errors: counted apart, any 4xx expected.
    "bad: unknown symbol": (1, "bad", lambda m, r: (
        "GET", f"/v2/quote/ZZZZ{r.randrange(100000)}", None)),
    "bad: range/interval": (1, "bad", lambda m, r: (
        "GET", f"/v1/historical?symbol={m.sym(r)}&range=max&interval=1d", None)),
    "bad: parameter": (0.5, "bad", lambda m, r: (
        "GET", f"/v1/analysis/{m.sym(r)}?analysis_type=foo{r.randrange(1000)}", None)),
    "bad: no route": (0.5, "bad", lambda m, r: (
        "GET", f"/v1/nope/{r.randrange(100000)}", None)),
}


# --- HTTP load ----------------------------------------------------------------------------------
@dataclass
class Tally:
    done: int = 0
    statuses: Counter[int] = field(default_factory=Counter)
    by_kind: dict[str, Counter[int]] = field(default_factory=dict)
    unexpected: dict[str, list[str]] = field(default_factory=dict)  # samples per kind
    errors: Counter[str] = field(default_factory=Counter)  # transport errors
    latencies: list[float] = field(default_factory=list)
    x_cache: Counter[str] = field(default_factory=Counter)  # X-Cache of the 200s

    def record(self, kind: str, expected: str, target: str, status: int, body: bytes,
               seconds: float, x_cache: str | None = None) -> None:
        self.done += 1
        if status == 200:
            self.x_cache[x_cache or "-"] += 1
        self.statuses[status] += 1
        self.by_kind.setdefault(kind, Counter())[status] += 1
        if len(self.latencies) < 2_000_000:
            self.latencies.append(seconds)
        if expected == "bad":
            wrong = not 400 <= status < 500
        else:
            wrong = status != 200 and not (expected == "ok/404" and status == 404)
        samples = self.unexpected.setdefault(kind, []) if wrong else []
        if wrong and len(samples) < 5:
            samples.append(f"{status} {target[:120]} {body[:160]!r}")


async def http_worker(host: str, port: int, mix: Mix, clients: list[str], seed: int,
                      stop_at: float, tally: Tally) -> None:
    rng = random.Random(seed)
    names = list(KINDS)
    weights = [KINDS[n][0] for n in names]
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    while time.monotonic() < stop_at:
        kind = rng.choices(names, weights)[0]
        _, expected, build = KINDS[kind]
        method, target, body = build(mix, rng)
        head = (f"{method} {target} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                f"X-Forwarded-For: {rng.choice(clients)}\r\nAccept: application/json\r\n")
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        payload = head.encode() + b"\r\n" + (body or b"")
        started = time.monotonic()
        try:
            if writer is None:
                reader, writer = await asyncio.open_connection(host, port)
            assert reader is not None
            writer.write(payload)
            status, headers = await asyncio.wait_for(read_head(reader), 60)
            data = b"".join([c async for c in body_chunks(reader, headers)])
        except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError) as exc:
            tally.errors[f"{kind}: {type(exc).__name__}"] += 1
            if writer is not None:
                writer.transport.abort()
            reader = writer = None
            await asyncio.sleep(0.1)
            continue
        tally.record(kind, expected, target, status, data, time.monotonic() - started,
                     headers.get("x-cache"))
        if headers.get("connection", "").lower() == "close":
            writer.close()
            reader = writer = None
    if writer is not None:
        writer.close()


# --- SSE clients --------------------------------------------------------------------------------
@dataclass
class SseClient:
    index: int
    symbols: tuple[str, ...]
    status: int | None = None
    events: Counter[str] = field(default_factory=Counter)
    heartbeats: int = 0
    last_event: float | None = None
    failure: str | None = None
    transport: asyncio.BaseTransport | None = None


async def sse_client(host: str, port: int, client: SseClient, stopping: asyncio.Event) -> None:
    target = f"/v1/stream/quotes?symbols={','.join(quote(s, safe='') for s in client.symbols)}"
    request = (f"GET {target} HTTP/1.1\r\nHost: {host}:{port}\r\n"
               "Accept: text/event-stream\r\nCache-Control: no-cache\r\n\r\n").encode()
    try:
        reader, writer = await asyncio.open_connection(host, port)
        client.transport = writer.transport
        writer.write(request)
        client.status, headers = await asyncio.wait_for(read_head(reader), 30)
        if client.status != 200:
            raise ConnectionError(f"HTTP {client.status}")
        parser = SseParser()
        decoder = codecs.getincrementaldecoder("utf-8")()
        async for chunk in body_chunks(reader, headers):
            for block in parser.feed(decoder.decode(chunk)):
                if block.data is not None:
                    client.events[block.event or "message"] += 1
                    client.last_event = time.time()
                elif block.comments:
                    client.heartbeats += 1
        if not stopping.is_set():
            client.failure = "the server ended the stream"
    except (OSError, asyncio.IncompleteReadError, TimeoutError, ValueError) as exc:
        if not stopping.is_set():
            client.failure = f"{type(exc).__name__}: {exc}"


# --- sampling ------------------------------------------------------------------------------------
@dataclass
class Sample:
    t: float
    worker_pid: int | None
    worker_rss: float | None
    worker_threads: int
    sandbox_rss: float | None
    done: int
    non_2xx: dict[str, int]
    sse_events: int
    sandbox_stats: dict[str, Any] | None = None
    debug: dict[str, Any] | None = None


def sandbox_stats(base_url: str) -> dict[str, Any] | None:
    """The sandbox server's own memory report (``/__sandbox__/stats``), None when absent."""
    try:
        status, _, raw = http("GET", f"{base_url}/__sandbox__/stats", timeout=60)
    except OSError:
        return None
    return json.loads(raw) if status == 200 else None


def slope_mb_per_min(points: list[tuple[float, float]]) -> float:
    """Least-squares slope of (seconds, MB) points, in MB per minute."""
    if len(points) < 2:
        return float("nan")
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return 60.0 * sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var \
        if var else float("nan")


async def run_soak(service: Process, sandbox: Process, args: argparse.Namespace
                   ) -> dict[str, Any]:
    parts = urlsplit(service.base_url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    master = service.proc.pid
    mix = Mix(symbol_pool(args.symbols, args.seed))
    clients = [f"198.51.{i // 250}.{i % 250 + 1}" for i in range(args.clients)]
    stream_syms = sample_symbols(100)
    sse = [SseClient(i, tuple(stream_syms[(i * 5 + j) % len(stream_syms)] for j in range(5)))
           for i in range(args.sse)]
    stopping = asyncio.Event()
    sse_tasks = [asyncio.create_task(sse_client(host, port, c, stopping)) for c in sse]
    tally = Tally()
    started = time.monotonic()
    stop_at = started + args.minutes * 60
    workers = [asyncio.create_task(http_worker(host, port, mix, clients, args.seed * 1000 + i,
                                               stop_at, tally))
               for i in range(args.concurrency)]
    samples: list[Sample] = []
    pids_seen: list[int] = []

    async def take() -> None:
        kids = children_of(master)
        pid = kids[0] if kids else None
        if pid is not None and pid not in pids_seen:
            pids_seen.append(pid)
        sample = Sample(round(time.monotonic() - started, 1), pid,
                        rss_mib(pid) if pid else None, threads_of(pid) if pid else 0,
                        rss_mib(sandbox.proc.pid), tally.done,
                        {str(s): n for s, n in sorted(tally.statuses.items()) if s >= 300},
                        sum(sum(c.events.values()) for c in sse))
        if args.sandbox_stats:
            sample.sandbox_stats = await asyncio.to_thread(sandbox_stats, sandbox.base_url)
        if args.trim:
            trimmed = await asyncio.to_thread(debug_memory, service.base_url, True)
            sample.debug = {"trim": trimmed}
            print(f"  trim: {trimmed}", flush=True)
        if args.debug_hook and len(samples) % args.debug_every == 0:
            report = await asyncio.to_thread(debug_memory, service.base_url)
            sample.debug = {**(sample.debug or {}), **report}
            print(f"  debug: {json.dumps(sample.debug)[:3000]}", flush=True)
        samples.append(sample)
        print(f"  t={sample.t:6.0f}s worker {sample.worker_rss or 0:7.1f} MB "
              f"({sample.worker_threads} threads)  sandbox {sample.sandbox_rss or 0:7.1f} MB  "
              f"requests {sample.done:8d}  non-2xx {sample.non_2xx}  "
              f"sse events {sample.sse_events}", flush=True)

    await take()
    while time.monotonic() < stop_at:
        await asyncio.sleep(min(args.sample_seconds, max(0.0, stop_at - time.monotonic())))
        await take()
    await asyncio.gather(*workers)
    stopping.set()
    for c in sse:
        if c.transport is not None:
            c.transport.abort()
    await asyncio.gather(*sse_tasks, return_exceptions=True)

    window = 120.0
    end_t = samples[-1].t
    tail = [s for s in samples if s.t >= end_t - window]
    worker_slope = slope_mb_per_min([(s.t, s.worker_rss) for s in tail
                                     if s.worker_rss is not None])
    sandbox_slope = slope_mb_per_min([(s.t, s.sandbox_rss) for s in tail
                                      if s.sandbox_rss is not None])
    ok_kinds = {k for k, v in KINDS.items() if v[1] != "bad"}
    not_200 = {k: {str(s): n for s, n in c.items()
                   if s != 200 and not (KINDS[k][1] == "ok/404" and s == 404)}
               for k, c in tally.by_kind.items() if k in ok_kinds}
    documented_404 = {k: c[404] for k, c in tally.by_kind.items()
                      if KINDS[k][1] == "ok/404" and c[404]}
    not_200 = {k: v for k, v in not_200.items() if v}
    bad_kinds = {k: {str(s): n for s, n in c.items()} for k, c in tally.by_kind.items()
                 if k not in ok_kinds}
    valid = sum(n for k, c in tally.by_kind.items() if k in ok_kinds for n in c.values())
    lat = sorted(tally.latencies)
    return {
        "minutes": args.minutes,
        "samples": [vars(s) for s in samples],
        "worker_pids": pids_seen,
        "worker_restarted": len(pids_seen) > 1,
        "worker_rss_start_mib": samples[0].worker_rss,
        "worker_rss_end_mib": samples[-1].worker_rss,
        "worker_rss_peak_mib": max((s.worker_rss or 0) for s in samples),
        "sandbox_rss_start_mib": samples[0].sandbox_rss,
        "sandbox_rss_end_mib": samples[-1].sandbox_rss,
        "sandbox_rss_peak_mib": max((s.sandbox_rss or 0) for s in samples),
        "worker_slope_last_2min_mb_per_min": worker_slope,
        "sandbox_slope_last_2min_mb_per_min": sandbox_slope,
        "requests": tally.done,
        "requests_per_s": tally.done / (args.minutes * 60),
        "latency_ms": {"p50": 1000 * lat[len(lat) // 2] if lat else None,
                       "p99": 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))]
                       if lat else None},
        "valid_requests": valid,
        "x_cache": dict(tally.x_cache.most_common()),
        "valid_not_200": not_200,
        "documented_404": documented_404,
        "deliberate_bad": bad_kinds,
        "statuses": {str(s): n for s, n in sorted(tally.statuses.items())},
        "by_kind": {k: dict(sorted((str(s), n) for s, n in c.items()))
                    for k, c in sorted(tally.by_kind.items())},
        "unexpected_samples": tally.unexpected,
        "transport_errors": dict(tally.errors),
        "sse": [{"symbols": ",".join(c.symbols), "status": c.status,
                 "events": dict(c.events), "heartbeats": c.heartbeats,
                 "failure": c.failure} for c in sse],
        "sse_all_200_and_connected": all(c.status == 200 and c.failure is None for c in sse),
        "sse_events_total": sum(sum(c.events.values()) for c in sse),
    }


def _mb(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def print_report(out: dict[str, Any], flat: float) -> None:
    print("\n| t (s) | worker RSS (MB) | sandbox RSS (MB) | requests | non-2xx |")
    print("|---|---|---|---|---|")
    for s in out["samples"]:
        non = ", ".join(f"{k}: {v}" for k, v in s["non_2xx"].items()) or "-"
        print(f"| {s['t']:.0f} | {_mb(s['worker_rss'])} | {_mb(s['sandbox_rss'])} | "
              f"{s['done']} | {non} |")
    print(f"\nworker RSS {_mb(out['worker_rss_start_mib'])} -> {_mb(out['worker_rss_end_mib'])} MB "
          f"(peak {_mb(out['worker_rss_peak_mib'])}); slope over the last 2 min "
          f"{out['worker_slope_last_2min_mb_per_min']:+.2f} MB/min "
          f"({'flat' if abs(out['worker_slope_last_2min_mb_per_min']) <= flat else 'NOT flat'}"
          f", threshold {flat} MB/min)")
    print(f"sandbox RSS {_mb(out['sandbox_rss_start_mib'])} -> {_mb(out['sandbox_rss_end_mib'])} "
          f"MB (peak {_mb(out['sandbox_rss_peak_mib'])}); slope over the last 2 min "
          f"{out['sandbox_slope_last_2min_mb_per_min']:+.2f} MB/min")
    print(f"requests {out['requests']} ({out['requests_per_s']:.0f}/s, p50 "
          f"{out['latency_ms']['p50']:.1f} ms, p99 {out['latency_ms']['p99']:.1f} ms); "
          f"valid {out['valid_requests']}, valid not 200: {out['valid_not_200'] or 'none'}"
          f"{'; documented 404s: ' + str(out['documented_404']) if out['documented_404'] else ''}")
    x_cache = out["x_cache"]
    answered = sum(x_cache.values())
    print(f"X-Cache of the 200s: {x_cache} (HIT {100 * x_cache.get('HIT', 0) / answered:.1f} %)"
          if answered else "X-Cache: no 200s")
    print(f"deliberate 4xx: {out['deliberate_bad']}")
    if out["transport_errors"]:
        print(f"transport errors: {out['transport_errors']}")
    for kind, lines in out["unexpected_samples"].items():
        for line in lines[:3]:
            print(f"  unexpected ({kind}): {line}")
    failed = [c for c in out["sse"] if c["status"] != 200 or c["failure"]]
    events = [sum(c["events"].values()) for c in out["sse"]]
    print(f"SSE: {len(out['sse'])} clients, all 200 and connected to the end: "
          f"{out['sse_all_200_and_connected']}; events per client min {min(events, default=0)}"
          f" max {max(events, default=0)}; failed: {failed or 'none'}")
    print(f"worker pids: {out['worker_pids']} (restarted: {out['worker_restarted']})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--sse", type=int, default=20, help="SSE clients")
    parser.add_argument("--concurrency", type=int, default=12, help="HTTP clients")
    parser.add_argument("--symbols", type=int, default=20000, help="distinct symbols")
    parser.add_argument("--clients", type=int, default=2000,
                        help="distinct client addresses (X-Forwarded-For)")
    parser.add_argument("--sample-seconds", type=float, default=10.0)
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--flat-mb-per-min", type=float, default=2.0,
                        help="largest worker RSS slope over the last 2 minutes called flat")
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="extra environment for the service (repeatable)")
    parser.add_argument("--sandbox-env", action="append", default=[], metavar="NAME=VALUE",
                        help="extra environment for the sandbox server (repeatable)")
    parser.add_argument("--no-sandbox-stats", dest="sandbox_stats", action="store_false",
                        help="do not read /__sandbox__/stats at each sample")
    parser.add_argument("--json", type=Path, help="write the results here")
    parser.add_argument("--debug-hook", action="store_true",
                        help="diagnosis: serve GET /__soak__/memory from the worker (object "
                             "counts by type, cache usage, malloc) and read it every "
                             "--debug-every samples")
    parser.add_argument("--debug-every", type=int, default=6)
    parser.add_argument("--trim", action="store_true",
                        help="with --debug-hook: call malloc_trim(0) in the worker at every "
                             "sample (before reading its RSS next time), timing it")
    parser.add_argument("--tracemalloc", type=int, default=0, metavar="FRAMES",
                        help="with --debug-hook: trace allocations in the worker "
                             "(PYTHONTRACEMALLOC), reporting the top lines and their growth")
    parser.add_argument("--keep-logs", type=Path, metavar="DIR",
                        help="copy the service's and the sandbox's logs into DIR")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="soak-") as tmp_name:
        tmp = Path(tmp_name)
        saved = dict(os.environ)
        os.environ.update(dict(e.split("=", 1) for e in args.sandbox_env))
        try:
            sandbox = start_sandbox(tmp)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        env = {"MARKETDATA_UPSTREAM": "live", "UPSTREAM_HOST_MAP":
               sandbox_host_map(sandbox.base_url), "WEB_CONCURRENCY": "1",
               "REDIS_URL": "", "LOG_LEVEL": args.log_level,
               # The sandbox is a replay server: GDELT's 5 s pacing would only refuse.
               "GDELT_MIN_INTERVAL_SECONDS": "0",
               # Rate limits counted for every request (per client address behind a trusted
               # proxy) but set too high to refuse: every valid request must be a 200.
               "USE_SECURITY": "true", "TRUSTED_PROXIES": "127.0.0.1",
               "APP_RATE_LIMIT_PER_DAY": "1000000000", "V2_RATE_LIMIT_SCOPE": "ip",
               "V2_RATE_LIMIT_CAPACITY": "1000000000",
               **dict(e.split("=", 1) for e in args.env)}
        if args.debug_hook:
            (tmp / "soak_debug_settings.py").write_text(DEBUG_SETTINGS)
            (tmp / "soak_debug_urls.py").write_text(DEBUG_URLS)
            env["PYTHONPATH"] = os.pathsep.join(filter(None, (
                str(tmp), str(ROOT), os.environ.get("PYTHONPATH", ""))))
            env["DJANGO_SETTINGS_MODULE"] = "soak_debug_settings"
            if args.tracemalloc:
                env["PYTHONTRACEMALLOC"] = str(args.tracemalloc)
        try:
            service = start_service(tmp, env)
        except BaseException:
            sandbox.stop()
            raise
        try:
            print(f"service {service.base_url} (master {service.proc.pid}), sandbox "
                  f"{sandbox.base_url} (pid {sandbox.proc.pid}); {args.minutes} min, "
                  f"{args.sse} SSE clients, {args.concurrency} HTTP clients, "
                  f"{args.symbols} symbols", flush=True)
            out = asyncio.run(run_soak(service, sandbox, args))
            out["env"] = {k: v for k, v in env.items() if k != "UPSTREAM_HOST_MAP"}
            out["args"] = {k: str(v) for k, v in vars(args).items()}
            out["service_log_problems"] = dict(list(log_problems(service.log()).items())[:15])
            out["master_alive_at_end"] = service.proc.poll() is None
        finally:
            service.stop()
            sandbox.stop()
            if args.keep_logs:
                args.keep_logs.mkdir(parents=True, exist_ok=True)
                for proc, name in ((service, "service.log"), (sandbox, "sandbox.log")):
                    (args.keep_logs / name).write_text(proc.log())
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, default=str))
    print_report(out, args.flat_mb_per_min)
    if out["service_log_problems"]:
        print(f"service log warnings/errors: {out['service_log_problems']}")
    if not out["master_alive_at_end"]:
        print("the gunicorn master was gone at the end")
    slope = out["worker_slope_last_2min_mb_per_min"]
    failed = (out["valid_not_200"] or not out["sse_all_200_and_connected"]
              or out["worker_restarted"] or math.isnan(slope) or abs(slope) > args.flat_mb_per_min)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
