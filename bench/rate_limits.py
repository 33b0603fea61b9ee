"""What the rate limits cost per request, in-process, side by side with limits off.

Each configuration runs in its own process (settings are read once): the WSGI application
(``config.wsgi.application``, every middleware, no server and no socket) answers a cached
``/v1/simple-quotes?symbols=AAPL`` (a response-cache hit) and ``/v2/health`` N times; the best
of R rounds is reported as microseconds per request. The limiter's two decisions (client IP
and one counter update) are also timed on their own. Usage:

    .venv/bin/python bench/rate_limits.py [--requests 5000] [--rounds 5]
        [--redis redis://127.0.0.1:6379/12]

Without ``--redis`` only the local-memory configurations run.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CONFIGS = {
    "limits off": {"USE_SECURITY": "false", "V2_RATE_LIMIT_CAPACITY": "0"},
    "v1 quota on, v2 bucket on": {"USE_SECURITY": "true",
                                  "APP_RATE_LIMIT_PER_DAY": "1000000000",
                                  "V2_RATE_LIMIT_CAPACITY": "1000000000",
                                  "V2_RATE_LIMIT_REFILL_PER_SECOND": "1000000"},
}
PATHS = ("/v1/simple-quotes", "symbols=AAPL"), ("/v2/health", "")
DECISIONS = ("v1 quota decision", "v2 bucket decision")


def child(requests: int, rounds: int) -> dict[str, float]:
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from config.wsgi import application

    def environ(path: str, query: str) -> dict:
        return {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": query,
                "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8000", "REMOTE_ADDR": "127.0.0.1",
                "wsgi.input": io.BytesIO(), "wsgi.url_scheme": "http",
                "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.errors": sys.stderr}

    def call(path: str, query: str) -> str:
        status = []
        body = application(environ(path, query), lambda s, h, *a: status.append(s))
        b"".join(body)
        return status[0]

    out = {}
    for path, query in PATHS:
        for _ in range(50):  # warm: data cache, response cache, code paths
            assert call(path, query).startswith("200"), (path, call(path, query))
        best = float("inf")
        for _ in range(rounds):
            started = time.perf_counter()
            for _ in range(requests):
                call(path, query)
            best = min(best, (time.perf_counter() - started) / requests)
        out[path] = best * 1e6

    # The limiter's own decisions, timed directly (steadier than whole requests on a
    # shared VM): client IP, then one counter update.
    from apps.ratelimit import limits

    config = limits.BucketConfig(10**9, 1e6, "global")
    meta = {"REMOTE_ADDR": "127.0.0.1"}
    for name, fn in (("v1 quota decision", lambda: limits.take_daily(limits.client_ip(meta))),
                     ("v2 bucket decision", lambda: limits.take_v2(limits.client_ip(meta),
                                                                   config))):
        best = float("inf")
        for _ in range(rounds):
            started = time.perf_counter()
            for _ in range(requests):
                fn()
            best = min(best, (time.perf_counter() - started) / requests)
        out[name] = best * 1e6
    return out


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
    backends = {"local memory": ""} | ({"redis": args.redis} if args.redis else {})
    print("| cache backend | configuration | "
          + " | ".join(f"{p} µs/request" for p, _ in PATHS) + " | "
          + " | ".join(f"{d} µs" for d in DECISIONS) + " |")
    print("|---|---|" + "---|" * (len(PATHS) + len(DECISIONS)))
    for backend, url in backends.items():
        for name, extra in CONFIGS.items():
            env = {**os.environ, "MARKETDATA_UPSTREAM": "sandbox", "LOG_LEVEL": "WARNING",
                   "REDIS_URL": url, "CACHE_KEY_PREFIX": f"bench-rl-{os.getpid()}", **extra}
            result = subprocess.run([sys.executable, __file__, "--child", "--requests",
                                     str(args.requests), "--rounds", str(args.rounds)],
                                    env=env, cwd=ROOT, capture_output=True, text=True,
                                    check=True)
            times = json.loads(result.stdout.strip().splitlines()[-1])
            print(f"| {backend} | {name} | "
                  + " | ".join(f"{times[p]:.0f}" for p, _ in PATHS) + " | "
                  + " | ".join(f"{times[d]:.0f}" if "on" in name else "-"
                               for d in DECISIONS) + " |")


if __name__ == "__main__":
    main()
