"""A 12-symbol dashboard as one GraphQL query next to the 36 REST calls it replaces, in one
run, and what GraphQL adds per resolved field.

Starts the service with its production command (bin/serve: gunicorn + the uvicorn worker,
sandbox mode, ``--workers`` processes (1), INFO access log, the v2 bucket off so that no run
is a 429), warms every request below (the cache is warm for all of them), then runs
``--rounds`` rounds; each round times every approach once, in an order rotated each round:

- **graphql**: ``tickers(symbols: [12]) { quote {...} chart(range: "1y") {...}
  indicators {...} }``, one POST over a keep-alive ``requests`` session;
- **rest sequential**: ``/v2/quotes?symbols=S``, ``/v2/chart/S?range=1y`` and
  ``/v2/indicators/S`` for the 12 symbols, one after another over one keep-alive session;
- **rest 8 threads**: the same 36 GETs from a pool of 8 threads (a keep-alive session each);
- **graphql 1 leaf**, **graphql all leaves**: the same 25 in-process requests (one quote
  batch, 12 charts, 12 indicator sets) over the same cached answers, selecting one leaf of
  each field or every leaf (every candle's seven members, every indicator): the difference
  in time over the difference in resolved fields (every member of every object of the
  answer) is GraphQL's cost per resolved field; the 1-leaf query's time is the in-process
  REST work plus GraphQL's fixed cost.

Usage:

    .venv/bin/python bench/graphql_dashboard.py [--rounds 40] [--workers 1]
        [--env NAME=VALUE ...] [--json]

Prints each approach's median and p90 (ms), the ratios to the GraphQL query, the bytes of
each, and the per-field cost. Loopback only.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from threading import local
from typing import Any

import requests

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fastpath_bench import uptime  # noqa: E402
from tests.integration.servers import Process, start_service  # noqa: E402

SYMBOLS = ["AAPL", "MSFT", "GOOGL", "AMZN", "META", "NVDA", "TSLA", "JPM", "V", "WMT", "XOM",
           "UNH"]

# What a dashboard shows: the price and day's move, a year of closes, RSI and the trend.
DASHBOARD = """
query Dashboard($symbols: [String!]!) {
  tickers(symbols: $symbols) {
    symbol
    quote { symbol shortName regularMarketPrice regularMarketChange
            regularMarketChangePercent regularMarketVolume marketCap currency }
    chart(range: "1y") { candles { nodes { timestamp close volume } } }
    indicators { rsi14 sma50 sma200 macd { macd signal histogram } }
  }
}
"""

ONE_LEAF = """
query OneLeaf($symbols: [String!]!) {
  tickers(symbols: $symbols) {
    quote { symbol }
    chart(range: "1y") { symbol }
    indicators { rsi14 }
  }
}
"""


def all_leaves(session: requests.Session, url: str) -> str:
    """The query of every leaf of the same three fields (from the schema's introspection:
    objects two levels deep, connections through ``nodes``)."""
    def fields_of(name: str) -> list[dict[str, Any]]:
        query = ('query($n: String!) { __type(name: $n) { fields { name type { kind name '
                 'ofType { kind name ofType { kind name ofType { kind name } } } } } } }')
        answer = session.post(url, json={"query": query, "variables": {"n": name}},
                              timeout=60).json()
        return answer["data"]["__type"]["fields"]

    def named(kind: dict[str, Any]) -> dict[str, Any]:
        while kind.get("ofType"):
            kind = kind["ofType"]
        return kind

    def selection(type_name: str, levels: int) -> str:
        parts = []
        for field in fields_of(type_name):
            kind = named(field["type"])
            if kind["kind"] in ("SCALAR", "ENUM"):
                parts.append(field["name"])
            elif levels > 0 and field["name"] not in ("edges", "pageInfo"):
                inner = selection(kind["name"], levels - 1)
                if inner:
                    parts.append(f"{field['name']} {{ {inner} }}")
        return " ".join(parts)

    ticker = {f["name"]: named(f["type"])["name"] for f in fields_of("Ticker")}
    return ("query AllLeaves($symbols: [String!]!) { tickers(symbols: $symbols) { "
            f"quote {{ {selection(ticker['quote'], 2)} }} "
            f"chart(range: \"1y\") {{ {selection(ticker['chart'], 2)} }} "
            f"indicators {{ {selection(ticker['indicators'], 2)} }} }} }}")


def resolved(value: Any) -> int:
    """The fields GraphQL resolved for an answer: every member of every object."""
    if isinstance(value, dict):
        return len(value) + sum(resolved(v) for v in value.values())
    if isinstance(value, list):
        return sum(resolved(v) for v in value)
    return 0


def rest_paths() -> list[str]:
    return [path for symbol in SYMBOLS for path in (
        f"/v2/quotes?symbols={symbol}", f"/v2/chart/{symbol}?range=1y",
        f"/v2/indicators/{symbol}")]


class Client:
    """The approaches, each a callable returning the bytes it received."""

    def __init__(self, base: str, threads: int = 8) -> None:
        self.base = base
        self.session = requests.Session()
        self.pool = ThreadPoolExecutor(threads)
        self._local = local()
        self.paths = rest_paths()

    def graphql(self, query: str) -> Callable[[], int]:
        payload = {"query": query, "variables": {"symbols": SYMBOLS}}

        def run() -> int:
            answer = self.session.post(f"{self.base}/graphql", json=payload, timeout=60)
            # Not parsed here (nor are REST's answers): the answer's errors come first.
            assert answer.status_code == 200 and not answer.content.startswith(
                b'{"errors"'), answer.text[:300]
            return len(answer.content)
        return run

    def _get(self, session: requests.Session, path: str) -> int:
        answer = session.get(self.base + path, timeout=60)
        assert answer.status_code == 200, (path, answer.status_code)
        return len(answer.content)

    def rest_sequential(self) -> int:
        return sum(self._get(self.session, path) for path in self.paths)

    def _thread_session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
        return session

    def rest_threads(self) -> int:
        return sum(self.pool.map(lambda p: self._get(self._thread_session(), p), self.paths))


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=40)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--json", action="store_true", help="also print every timing")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="bench-graphql-"))
    env = {"MARKETDATA_UPSTREAM": "sandbox", "WEB_CONCURRENCY": str(args.workers),
           "LOG_LEVEL": "INFO", "V2_RATE_LIMIT_CAPACITY": "0",
           **dict(item.split("=", 1) for item in args.env)}
    print(f"before: {uptime()}", flush=True)
    service: Process | None = None
    try:
        service = start_service(tmp, env)
        client = Client(service.base_url, args.threads)
        every_leaf = all_leaves(client.session, f"{service.base_url}/graphql")
        approaches: dict[str, Callable[[], int]] = {
            "graphql": client.graphql(DASHBOARD),
            "rest sequential": client.rest_sequential,
            f"rest {args.threads} threads": client.rest_threads,
            "graphql 1 leaf": client.graphql(ONE_LEAF),
            "graphql all leaves": client.graphql(every_leaf),
        }
        fields = {}
        for name, query in (("graphql", DASHBOARD), ("graphql 1 leaf", ONE_LEAF),
                            ("graphql all leaves", every_leaf)):
            answer = client.session.post(f"{service.base_url}/graphql", timeout=60, json={
                "query": query, "variables": {"symbols": SYMBOLS}}).json()
            fields[name] = resolved(answer["data"])
        sizes = {}
        for _ in range(3):  # warm: every answer cached, every connection open
            for name, run in approaches.items():
                sizes[name] = run()
        times: dict[str, list[float]] = {name: [] for name in approaches}
        names = list(approaches)
        for round_ in range(args.rounds):
            shift = round_ % len(names)
            for name in names[shift:] + names[:shift]:
                started = time.perf_counter()
                approaches[name]()
                times[name].append((time.perf_counter() - started) * 1000)
        after = uptime()
        client.pool.shutdown()
    finally:
        if service is not None:
            service.stop()
        shutil.rmtree(tmp, ignore_errors=True)

    median = {name: statistics.median(values) for name, values in times.items()}
    p90 = {name: percentile(values, 0.9) for name, values in times.items()}
    if args.json:
        print(json.dumps({"rounds": args.rounds, "workers": args.workers, "env": args.env,
                          "times_ms": times, "bytes": sizes, "fields": fields}, indent=1))
    print(f"\n{args.rounds} rounds, {len(SYMBOLS)} symbols, {args.workers} worker(s)\n")
    print("| approach | requests | bytes | median ms | p90 ms | median / graphql |")
    print("|---|---|---|---|---|---|")
    for name in names:
        requests_made = 1 if name.startswith("graphql") else len(client.paths)
        print(f"| {name} | {requests_made} | {sizes[name]:,} | {median[name]:.1f} | "
              f"{p90[name]:.1f} | {median[name] / median['graphql']:.2f} |")
    few, many = fields["graphql 1 leaf"], fields["graphql all leaves"]
    per_field = (median["graphql all leaves"] - median["graphql 1 leaf"]) / (many - few)
    print(f"\nresolved fields: dashboard {fields['graphql']:,}, 1 leaf {few:,}, all leaves "
          f"{many:,}")
    print(f"GraphQL per resolved field: ({median['graphql all leaves']:.1f} - "
          f"{median['graphql 1 leaf']:.1f} ms) / {many - few:,} fields = "
          f"{per_field * 1000:.2f} us")
    print(f"the dashboard's fields at that rate: {fields['graphql'] * per_field:.1f} ms of "
          f"its {median['graphql']:.1f} ms")
    print(f"after: {after}")


if __name__ == "__main__":
    main()
