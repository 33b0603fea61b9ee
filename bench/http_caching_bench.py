"""Compressed hits and 304s on the fast path next to an uncompressed hit and the bare ASGI
app, in one run (issue 27's targets: a compressed hit and a 304 at >= 90 % of an
uncompressed hit's rate; the hit path at >= 25 % of the bare app).

Starts the service with its production command (bin/serve: gunicorn + the uvicorn worker,
sandbox mode, ``--workers`` processes, INFO access log, the v2 bucket off so that no run
is a 429) and ``bench/floor_asgi.py`` answering the path's identity bytes. Each ``--path``
is warmed until it is an ``X-Cache: HIT``, its ETag read, then ``wrk`` runs alternate
(a 2 s warm-up before each, ``--rounds`` times) between:

- **floor**: the bare ASGI app;
- **identity**: the hit without ``Accept-Encoding``;
- **gzip**, **br**: the hit with ``Accept-Encoding: gzip`` / ``gzip, deflate, br`` (what
  browsers send), served from the variants stored with the entry;
- **304**: ``Accept-Encoding: gzip, deflate, br`` and ``If-None-Match`` with the br ETag.

Usage:

    .venv/bin/python bench/http_caching_bench.py [--duration 10] [--rounds 2]
        [--connections 50] [--workers 1] [--path '/v2/quote/AAPL?lang=en' ...]
        [--env NAME=VALUE ...]

Prints every run, each variant's best round as a share of the identity hit and of the
floor, and the bytes on the wire per answer. Needs wrk. Loopback only; every run is
bounded by ``--duration``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fastpath_bench import start_asgi_floor, uptime, warm  # noqa: E402
from bench.http_bench import alternate_wrk, print_table  # noqa: E402
from tests.integration.servers import Process, http, start_service  # noqa: E402

BROWSER = "gzip, deflate, br"
DEFAULT_PATHS = ["/v2/quote/AAPL?lang=en", "/v1/quotes?symbols=AAPL,MSFT"]


def variants(server: Process, path: str) -> dict[str, tuple[str, dict[str, str], int]]:
    """Each variant's (URL, request headers, bytes of its body), checked to be what it
    claims: a fast-path hit in that encoding, or a 304."""
    url = server.base_url + path
    out: dict[str, tuple[str, dict[str, str], int]] = {}
    etag = ""
    for name, headers in (("identity", {}), ("gzip", {"Accept-Encoding": "gzip"}),
                          ("br", {"Accept-Encoding": BROWSER})):
        status, got, body = http("GET", url, headers=headers)
        assert status == 200 and got.get("X-Cache") == "HIT", (path, name, status)
        assert got.get("Content-Encoding") == (None if name == "identity" else name), \
            (path, name, dict(got))
        out[name] = (url, headers, len(body))
        etag = got["ETag"]
    conditional = {"Accept-Encoding": BROWSER, "If-None-Match": etag}
    status, _, body = http("GET", url, headers=conditional)
    assert status == 304 and body == b"", (path, status)
    out["304"] = (url, conditional, 0)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--path", action="append", default=[],
                        help=f"repeatable; default {' and '.join(DEFAULT_PATHS)}")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    args = parser.parse_args()
    paths = args.path or DEFAULT_PATHS
    if shutil.which("wrk") is None:
        sys.exit("wrk not found: apt-get install wrk")

    tmp = Path(tempfile.mkdtemp(prefix="bench-caching-"))
    env = {"MARKETDATA_UPSTREAM": "sandbox", "WEB_CONCURRENCY": str(args.workers),
           "LOG_LEVEL": "INFO", "V2_RATE_LIMIT_CAPACITY": "0",
           **dict(item.split("=", 1) for item in args.env)}
    print(f"before: {uptime()}", flush=True)
    servers: dict[str, Process] = {}
    try:
        servers["service"] = service = start_service(tmp, env)
        bodies = {path: warm(service, path, args.workers) for path in paths}
        servers["floor"] = floor = start_asgi_floor(tmp, bodies[paths[0]], args.workers)
        targets: dict[str, str | tuple[str, dict[str, str]]] = {
            "floor": floor.base_url + "/"}
        sizes = {}
        for path in paths:
            for name, (url, headers, size) in variants(service, path).items():
                label = name if len(paths) == 1 else f"{name} {path}"
                targets[label] = (url, headers)
                sizes[label] = size
        results = alternate_wrk(targets, args.rounds, args.duration, args.connections)
        after = uptime()
        print(json.dumps({"paths": paths, "bytes": sizes, "duration_s": args.duration,
                          "connections": args.connections, "workers": args.workers,
                          "env": args.env, "results": results}, indent=2))
        print()
        print_table(results)
        best = {name: max(r["rps"] for r in runs) for name, runs in results.items()}
        print("\n| variant | body bytes | best req/s | of identity | of floor |")
        print("|---|---|---|---|---|")
        for path in paths:
            suffix = "" if len(paths) == 1 else f" {path}"
            for name in ("identity", "gzip", "br", "304"):
                label = name + suffix
                print(f"| {label} | {sizes[label]:,} | {best[label]:,.0f} | "
                      f"{best[label] / best['identity' + suffix]:.0%} | "
                      f"{best[label] / best['floor']:.0%} |")
        print(f"\nfloor: {best['floor']:,.0f} req/s ({len(bodies[paths[0]]):,} bytes)")
        print(f"after: {after}")
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
