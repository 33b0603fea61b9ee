"""HTTP benchmark: the service's cached /v1/simple-quotes vs the floor, side by side.

Starts (1) the service with its production command (bin/serve -> gunicorn) in sandbox mode
and (2) the floor app (bench/floor_app.py, a bare Django view returning the same bytes)
under the same gunicorn settings, then alternates wrk runs against both and prints
requests/s and p50/p99. Usage:

    .venv/bin/python bench/http_bench.py [--duration 15] [--connections 50] [--rounds 2]
                                         [--workers 1] [--path '/v1/simple-quotes?symbols=AAPL']
                                         [--path '/v2/quote/AAPL' ...]
                                         [--env USE_SECURITY=true --env ...]

With several ``--path`` options every path is measured on the same service in the same run,
alternating with the floor (whose body is the first path's), e.g. a cached ``/v2/quote``
hit next to a cached ``/v1/quotes`` hit. Needs wrk (apt-get install wrk). Loopback only;
every run is bounded by --duration.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.integration.servers import (  # noqa: E402
    Process,
    _spawn,
    free_port,
    http,
    start_service,
    wait_for,
)


def start_gunicorn(tmp: Path, name: str, args: list[str], env: dict[str, str],
                   ready_path: str) -> Process:
    """gunicorn with the production config (``args`` may override it) on a free port."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PORT": str(port), "HOST": "127.0.0.1",
           "MARKETDATA_VAR_DIR": str(tmp / f"var-{name}"), **env}
    gunicorn = str(Path(sys.executable).parent / "gunicorn")
    log_path = tmp / f"{name}.log"
    proc = _spawn([gunicorn, "-c", "config/gunicorn.conf.py", *args], env, log_path)
    server = Process(f"http://127.0.0.1:{port}", proc, log_path)
    try:
        wait_for(server.base_url + ready_path, timeout=90)
    except TimeoutError:
        server.stop()  # never leave a half-started server behind
        raise AssertionError(f"{name} did not start:\n{server.log()[-3000:]}") from None
    return server


def start_floor(tmp: Path, body: bytes, workers: int, threads: int) -> Process:
    body_path = tmp / "floor-body.json"
    body_path.write_bytes(body)
    return start_gunicorn(tmp, "floor", ["bench.floor_app"],
                          {"BENCH_FLOOR_BODY": str(body_path), "WEB_CONCURRENCY": str(workers),
                           "WEB_THREADS": str(threads)}, "/v1/simple-quotes")


def run_wrk(url: str, duration: int, connections: int,
            headers: dict[str, str] | None = None,
            script: Path | None = None) -> dict[str, float]:
    """One wrk run: req/s, p50 and p99 in ms, non-2xx answers, socket errors. ``script``:
    a wrk Lua script (e.g. a header that changes per request)."""
    extra = [arg for name, value in (headers or {}).items()
             for arg in ("-H", f"{name}: {value}")]
    if script is not None:
        extra += ["-s", str(script)]
    out = subprocess.run(["wrk", "-t2", f"-c{connections}", f"-d{duration}s", "--latency",
                          *extra, url], capture_output=True, text=True, check=True).stdout
    rps = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    lat = dict(re.findall(r"^\s+(50|99)%\s+([\d.]+\w+)", out, re.M))
    non2xx = re.search(r"Non-2xx or 3xx responses:\s+(\d+)", out)
    errors = re.search(r"Socket errors: (.*)", out)
    # A script's done hook may print "tail NAME MICROSECONDS" lines (bench/serving_tail.py).
    tail = {f"{name}_ms": int(us) / 1000.0
            for name, us in re.findall(r"^tail (\S+) (\d+)$", out, re.M)}
    return {"rps": rps, "p50_ms": _ms(lat["50"]), "p99_ms": _ms(lat["99"]),
            "non_2xx": int(non2xx.group(1)) if non2xx else 0,
            "socket_errors": errors.group(1) if errors else "", **tail}


def _ms(text: str) -> float:
    value, unit = re.match(r"([\d.]+)(\w+)", text).groups()
    return float(value) * {"us": 0.001, "ms": 1.0, "s": 1000.0}[unit]


def alternate_wrk(urls: dict[str, str | tuple[str, dict[str, str]]], rounds: int,
                  duration: int, connections: int) -> dict[str, list[dict[str, float]]]:
    """``rounds`` wrk runs per URL, alternating between them (a 2 s warm-up before each), so
    every server sees the same machine conditions. A target is a URL, or (URL, request
    headers)."""
    results: dict[str, list[dict[str, float]]] = {name: [] for name in urls}
    for _ in range(rounds):
        for name, target in urls.items():
            url, headers = (target, None) if isinstance(target, str) else target
            run_wrk(url, 2, connections, headers)
            results[name].append(run_wrk(url, duration, connections, headers))
            time.sleep(1)
    return results


def print_table(results: dict[str, list[dict[str, float]]]) -> None:
    print("| server | round | req/s | p50 ms | p99 ms | non-2xx |")
    print("|---|---|---|---|---|---|")
    for name, runs in results.items():
        for i, r in enumerate(runs, 1):
            print(f"| {name} | {i} | {r['rps']:.0f} | {r['p50_ms']:.2f} | "
                  f"{r['p99_ms']:.2f} | {r['non_2xx']} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=int, default=15)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=16)
    parser.add_argument("--path", action="append", default=[],
                        help="repeatable; default /v1/simple-quotes?symbols=AAPL")
    parser.add_argument("--log-level", default="INFO",
                        help="the service's LOG_LEVEL (INFO writes one access line a request)")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                        help="extra environment for the service (repeatable), e.g. "
                             "USE_SECURITY=true APP_RATE_LIMIT_PER_DAY=1000000000")
    args = parser.parse_args()
    paths = args.path or ["/v1/simple-quotes?symbols=AAPL"]
    if shutil.which("wrk") is None:
        sys.exit("wrk not found: apt-get install wrk")

    tmp = Path(tempfile.mkdtemp(prefix="bench-"))
    env = {"MARKETDATA_UPSTREAM": "sandbox", "WEB_CONCURRENCY": str(args.workers),
           "WEB_THREADS": str(args.threads), "LOG_LEVEL": args.log_level,
           **dict(item.split("=", 1) for item in args.env)}
    service = start_service(tmp, env)
    floor = None
    try:
        # Warm every worker process (with the local-memory cache each has its own).
        bodies = {}
        for path in paths:
            for _ in range(20 * args.workers):
                status, headers, body = http("GET", service.base_url + path)
                assert status == 200, body
            assert headers.get("X-Cache") == "HIT", (path, headers)
            bodies[path] = body
        floor = start_floor(tmp, bodies[paths[0]], args.workers, args.threads)
        floor_path = "/v1/simple-quotes"  # the floor answers its fixed bytes there
        targets = {"floor": floor.base_url + floor_path}
        for path in paths:
            targets["service" if len(paths) == 1 else f"service {path}"] = \
                service.base_url + path
        results = alternate_wrk(targets, args.rounds, args.duration, args.connections)
        summary = {
            "paths": paths, "bytes": {p: len(b) for p, b in bodies.items()},
            "duration_s": args.duration,
            "connections": args.connections, "workers": args.workers, "threads": args.threads,
            "log_level": args.log_level, "env": args.env,
            "results": results,
        }
        print(json.dumps(summary, indent=2))
        print()
        print_table(results)
        best = {n: max(r["rps"] for r in runs) for n, runs in results.items()}
        for name in best:
            if name != "floor":
                print(f"\n{name} / floor (best rounds): {best[name] / best['floor']:.0%}")
    finally:
        service.stop()
        if floor is not None:
            floor.stop()


if __name__ == "__main__":
    main()
