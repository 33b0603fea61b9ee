"""In-process cost of a fast-path hit, and what Redis adds: no server, no socket.

Each configuration runs in its own process (settings are read once): the fast path
(``apps.core.fastpath``) answers a cached ``/v1/simple-quotes?symbols=AAPL`` N times with a
no-op ``send``, one request at a time (every Redis call is a full round trip) and 50 at a
time (the calls of one loop turn are coalesced: one MGET, one script pipeline). The access
line is rendered and written to /dev/null at INFO; best of R rounds, microseconds per hit.
Usage:

    .venv/bin/python bench/fastpath_cost.py [--requests 5000] [--rounds 5]
        [--redis redis://127.0.0.1:6379/14]
    .venv/bin/python bench/fastpath_cost.py --encodings [--target /v2/quote/AAPL]

``--encodings`` (issue 27) measures, on local memory, one hit in each representation a
client can ask for: identity, ``Accept-Encoding: gzip``, ``gzip, deflate, br`` (br) and
the br request with ``If-None-Match`` of its ETag (a 304).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = "/v1/simple-quotes?symbols=AAPL"
LIMITS_ON = {"USE_SECURITY": "true", "APP_RATE_LIMIT_PER_DAY": "1000000000"}


ENCODINGS = {"identity": {}, "gzip": {"accept-encoding": "gzip"},
             "br": {"accept-encoding": "gzip, deflate, br"}}


def child(requests: int, rounds: int, target: str = TARGET,
          encodings: bool = False) -> dict[str, float]:
    import asyncio
    import logging

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import config.asgi as front
    from tests.config.fastpath_client import django_path, scope

    for handler in logging.getLogger().handlers:
        handler.stream = open(os.devnull, "w")  # lives as long as the process
    for _ in range(3):
        django_path(target)
    request = scope(target, {"user-agent": "bench", "accept": "*/*"})

    async def send(message):
        pass

    async def one_at_a_time() -> float:
        started = time.perf_counter()
        for _ in range(requests):
            assert await front.fast_path(dict(request), None, send)
        return time.perf_counter() - started

    async def fifty_at_a_time() -> float:
        started = time.perf_counter()
        for _ in range(requests // 50):
            done = await asyncio.gather(*(front.fast_path(dict(request), None, send)
                                          for _ in range(50)))
            assert all(done)
        return time.perf_counter() - started

    async def variants() -> dict[str, float]:
        sent: list[dict] = []

        async def record(message):
            sent.append(message)

        out = {}
        base = [(n, v) for n, v in request["headers"] if n != b"accept-encoding"]
        for name, extra in ENCODINGS.items():
            headers = base + [(n.encode(), v.encode()) for n, v in extra.items()]
            out[name] = await timed({**request, "headers": headers})
        assert await front.fast_path({**request, "headers": headers}, None, record)
        etag = dict(sent[0]["headers"])[b"etag"]
        out["304"] = await timed({**request, "headers": [*headers, (b"if-none-match", etag)]},
                                 status=304)
        return out

    async def timed(variant: dict, status: int = 200) -> float:
        statuses: list[int] = []

        async def check(message):
            if message["type"] == "http.response.start":
                statuses.append(message["status"])

        assert await front.fast_path(dict(variant), None, check) and statuses == [status]

        async def run() -> float:
            started = time.perf_counter()
            for _ in range(requests):
                assert await front.fast_path(dict(variant), None, send)
            return time.perf_counter() - started

        await run()  # warm
        return min([await run() for _ in range(rounds)]) / requests * 1e6

    async def measure() -> dict[str, float]:
        from marketdata.redis_async import close_client

        if encodings:
            return await variants()
        out = {}
        for name, run in (("sequential", one_at_a_time), ("50 concurrent", fifty_at_a_time)):
            await run()  # warm
            out[name] = min([await run() for _ in range(rounds)]) / requests * 1e6
        await close_client()
        return out

    return asyncio.run(measure())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--requests", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--redis", default="")
    parser.add_argument("--target", default=TARGET)
    parser.add_argument("--encodings", action="store_true",
                        help="one hit per representation (identity, gzip, br, 304)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.requests, args.rounds, args.target, args.encodings)))
        return
    if args.encodings:
        # The v2 bucket off: every timed request must be the hit, never a 429.
        env = {**os.environ, "MARKETDATA_UPSTREAM": "sandbox", "LOG_LEVEL": "INFO",
               "REDIS_URL": "", "CACHE_KEY_PREFIX": f"bench-fp-{os.getpid()}",
               "MARKETDATA_VAR_DIR": str(ROOT / "var"), "V2_RATE_LIMIT_CAPACITY": "0"}
        result = subprocess.run([sys.executable, __file__, "--child", "--encodings",
                                 "--requests", str(args.requests), "--rounds", str(args.rounds),
                                 "--target", args.target],
                                env=env, cwd=ROOT, capture_output=True, text=True, check=True)
        times = json.loads(result.stdout.strip().splitlines()[-1])
        print(f"| `{args.target}` | " + " | ".join(f"{times[k]:.1f}" for k in
                                                     ("identity", "gzip", "br", "304")) + " |")
        return
    configs = {"local memory": ("", {}), "local memory, v1 quota on": ("", LIMITS_ON)}
    if args.redis:
        configs |= {"redis": (args.redis, {}), "redis, v1 quota on": (args.redis, LIMITS_ON)}
    print("| cache backend | one at a time, us/hit | 50 at a time, us/hit |")
    print("|---|---|---|")
    for name, (url, extra) in configs.items():
        env = {**os.environ, "MARKETDATA_UPSTREAM": "sandbox", "LOG_LEVEL": "INFO",
               "REDIS_URL": url, "CACHE_KEY_PREFIX": f"bench-fp-{os.getpid()}",
               "MARKETDATA_VAR_DIR": str(ROOT / "var"), **extra}
        result = subprocess.run([sys.executable, __file__, "--child", "--requests",
                                 str(args.requests), "--rounds", str(args.rounds)],
                                env=env, cwd=ROOT, capture_output=True, text=True, check=True)
        times = json.loads(result.stdout.strip().splitlines()[-1])
        print(f"| {name} | {times['sequential']:.1f} | {times['50 concurrent']:.1f} |")


if __name__ == "__main__":
    main()
