"""In-process cost of a fast-path hit, and what Redis adds: no server, no socket.

Each configuration runs in its own process (settings are read once): the fast path
(``apps.core.fastpath``) answers a cached ``/v1/simple-quotes?symbols=AAPL`` N times with a
no-op ``send``, one request at a time (every Redis call is a full round trip) and 50 at a
time (the calls of one loop turn are coalesced: one MGET, one script pipeline). The access
line is rendered and written to /dev/null at INFO; best of R rounds, microseconds per hit.
Usage:

    .venv/bin/python bench/fastpath_cost.py [--requests 5000] [--rounds 5]
        [--redis redis://127.0.0.1:6379/14]
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


def child(requests: int, rounds: int) -> dict[str, float]:
    import asyncio
    import logging

    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import config.asgi as front
    from tests.config.fastpath_client import django_path, scope

    for handler in logging.getLogger().handlers:
        handler.stream = open(os.devnull, "w")  # lives as long as the process
    for _ in range(3):
        django_path(TARGET)
    request = scope(TARGET, {"user-agent": "bench", "accept": "*/*"})

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

    async def measure() -> dict[str, float]:
        from marketdata.redis_async import close_client

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
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.requests, args.rounds)))
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
