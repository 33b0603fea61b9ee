"""Cache hits through the fast path vs the bare-ASGI floor (and the Django path), one run.

Starts, each with the production command and settings (gunicorn + the uvicorn worker,
sandbox mode, ``--workers`` processes, the default INFO access log):

- **floor**: ``bench/floor_asgi.py``, a bare ASGI app answering the same bytes (the
  server's own ceiling);
- **service**: ``bin/serve``, whose fast path answers response-cache hits on the loop;
- with ``--django``, **django path**: the same service with ``FAST_PATH=false``, so every
  hit goes through a2wsgi, a worker thread and Django's handler (the previous request
  path), for the A/B in the same run.

Every path is warmed until it is an ``X-Cache: HIT``, then ``wrk -t2 -cN -dDs --latency``
runs alternate between the servers (a 2 s warm-up before each), ``--rounds`` times, and the
table gives req/s, p50/p99 and each server's share of the floor. The machine's load
average (``uptime``) is printed before and after: wrk shares the cores with the servers.
Usage:

    .venv/bin/python bench/fastpath_bench.py [--duration 10] [--rounds 2] [--connections 50]
        [--workers 1] [--django] [--path '/v1/simple-quotes?symbols=AAPL' ...]
        [--redis redis://127.0.0.1:6379/14] [--env NAME=VALUE ...] [--log-level INFO]

``--redis`` points the service (and the Django path) at Redis: the response cache and the
rate-limit counters then live there, and each hit costs Redis round trips. Loopback only;
every run is bounded by ``--duration``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.http_bench import alternate_wrk, print_table, start_gunicorn  # noqa: E402
from tests.integration.servers import Process, http, start_service  # noqa: E402


def start_asgi_floor(tmp: Path, body: bytes, workers: int) -> Process:
    body_path = tmp / "floor-body.json"
    body_path.write_bytes(body)
    return start_gunicorn(tmp, "floor", ["bench.floor_asgi:application"],
                          {"BENCH_FLOOR_BODY": str(body_path), "WEB_CONCURRENCY": str(workers),
                           "DJANGO_SETTINGS_MODULE": "config.settings",
                           "MARKETDATA_UPSTREAM": "sandbox"}, "/")


def warm(server: Process, path: str, workers: int) -> bytes:
    """Requests until ``path`` is a response-cache hit (on every worker, roughly)."""
    body = b""
    for _ in range(20 * workers):
        status, headers, body = http("GET", server.base_url + path)
        assert status == 200, (path, status, body[:300])
    assert headers.get("X-Cache") == "HIT", (path, dict(headers))
    return body


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--path", action="append", default=[],
                        help="repeatable; default /v1/simple-quotes?symbols=AAPL")
    parser.add_argument("--django", action="store_true",
                        help="also run the service with FAST_PATH=false (the Django path)")
    parser.add_argument("--redis", default="", help="REDIS_URL for the service(s)")
    parser.add_argument("--log-level", default="INFO")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    paths = args.path or ["/v1/simple-quotes?symbols=AAPL"]
    if shutil.which("wrk") is None:
        sys.exit("wrk not found: apt-get install wrk")

    tmp = Path(tempfile.mkdtemp(prefix="bench-fastpath-"))
    env = {"MARKETDATA_UPSTREAM": "sandbox", "WEB_CONCURRENCY": str(args.workers),
           "LOG_LEVEL": args.log_level, **dict(item.split("=", 1) for item in args.env)}
    if args.redis:
        env["REDIS_URL"] = args.redis
    print(f"before: {uptime()}", flush=True)
    servers: dict[str, Process] = {}
    try:
        servers["service"] = start_service(tmp, env)
        if args.django:
            servers["django path"] = start_service(tmp, {**env, "FAST_PATH": "false"})
        bodies = {}
        for name, server in servers.items():
            for path in paths:
                bodies[(name, path)] = warm(server, path, args.workers)
        assert len({bodies[(n, p)] for n in servers for p in paths[:1]}) == 1
        servers["floor"] = start_asgi_floor(tmp, bodies[("service", paths[0])], args.workers)
        targets = {"floor": servers["floor"].base_url + "/"}
        for name in [n for n in servers if n != "floor"]:
            for path in paths:
                label = name if len(paths) == 1 else f"{name} {path}"
                targets[label] = servers[name].base_url + path
        results = alternate_wrk(targets, args.rounds, args.duration, args.connections)
        after = uptime()
        print(json.dumps({"paths": paths, "bytes": {p: len(bodies[("service", p)])
                                                    for p in paths},
                          "duration_s": args.duration, "connections": args.connections,
                          "workers": args.workers, "redis": bool(args.redis),
                          "log_level": args.log_level, "env": args.env,
                          "results": results}, indent=2))
        print()
        print_table(results)
        best_floor = max(r["rps"] for r in results["floor"])
        print()
        for name, runs in results.items():
            if name != "floor":
                best = max(r["rps"] for r in runs)
                print(f"{name}: best {best:,.0f} req/s = {best / best_floor:.1%} of the floor "
                      f"({best_floor:,.0f}); p99 {min(r['p99_ms'] for r in runs):.2f}-"
                      f"{max(r['p99_ms'] for r in runs):.2f} ms")
        print(f"\nafter: {after}")
    finally:
        for server in servers.values():
            server.stop()
        if os.environ.get("BENCH_KEEP_LOGS") is None:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
