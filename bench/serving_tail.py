"""A cached hit's tail in steady state (issue 47): the production command next to a bare
ASGI app under the same gunicorn and uvicorn worker, alternately, ``--rounds`` times.

- **service**: ``bin/serve`` as ``make run`` starts it: one worker, default settings
  (eager warm-up, the embedded SQLite and local-memory cache: REDIS_URL and DATABASE_URL
  are dropped from the environment), sandbox mode, the access log at INFO written to a
  file (the process's stdout, redirected);
- **bare app**: ``bench/floor_asgi.py``, answering the service's bytes with a constant body.

Both are warmed until the path is an ``X-Cache: HIT`` on the service, then wrk loads the
service for ``--steady`` seconds (30 by default: caches, the allocator, the loop-lag
monitor and the access-log writer in their steady state), the bare app for 5. Then rounds
of ``wrk -t2 -cN -dDs --latency`` alternate between them (a 2 s warm-up before each). Per
round: req/s, the service's share of the bare app's, p50, p99 and p99.9 (a wrk Lua
``done`` hook reads the 99.9th percentile, which ``--latency`` does not print), and the
service's loop lag over the round (``marketdata_event_loop_lag_seconds`` read from
``/metrics`` before and after: the round's own observations, as bucket upper bounds).
Ends with the issue's targets: best-round throughput >= 35 % of the bare app's, and p99
within 5x the bare app's in at least two rounds of three. Usage:

    .venv/bin/python bench/serving_tail.py [--rounds 3] [--duration 10] [--connections 50]
        [--steady 30] [--path '/v1/simple-quotes?symbols=AAPL'] [--env NAME=VALUE ...]
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from prometheus_client.parser import text_string_to_metric_families  # noqa: E402

from bench.fastpath_bench import start_asgi_floor, uptime, warm  # noqa: E402
from bench.http_bench import run_wrk  # noqa: E402
from tests.integration.servers import Process, http, start_service  # noqa: E402

# wrk's Lua hook: the 99.9th and 99.99th percentiles and the maximum, in microseconds.
TAIL_SCRIPT = """
done = function(summary, latency, requests)
  io.write(string.format("tail p99.9 %d\\n", latency:percentile(99.9)))
  io.write(string.format("tail p99.99 %d\\n", latency:percentile(99.99)))
  io.write(string.format("tail max %d\\n", latency.max))
end
"""
LAG_METRIC = "marketdata_event_loop_lag_seconds"
TARGET_SHARE = 0.35
TARGET_P99_RATIO = 5.0


def lag_buckets(server: Process) -> dict[float, float]:
    """The service's cumulative loop-lag histogram: upper bound (s) -> count (summed over
    the workers' series), read with prometheus_client's own text parser."""
    status, _, body = http("GET", server.base_url + "/metrics")
    assert status == 200, body[:200]
    out: dict[float, float] = {}
    for family in text_string_to_metric_families(body.decode()):
        if family.name != LAG_METRIC:
            continue
        for sample in family.samples:
            if sample.name == f"{LAG_METRIC}_bucket":
                bound = float(sample.labels["le"])  # "+Inf" parses as inf
                out[bound] = out.get(bound, 0.0) + sample.value
    return out


def lag_summary(before: dict[float, float], after: dict[float, float]) -> dict[str, float]:
    """The round's own lag observations: their count, and the bucket bounds under which
    50 %, 99 % and all of them fall (ms; inf past the largest bucket)."""
    bounds = sorted(after)
    counts = [after[b] - before.get(b, 0.0) for b in bounds]
    total = counts[-1] if counts else 0.0

    def quantile(share: float) -> float:
        for bound, count in zip(bounds, counts, strict=True):
            if total and count >= share * total:
                return bound * 1000.0
        return float("nan")

    return {"ticks": total, "lag_p50_ms": quantile(0.5), "lag_p99_ms": quantile(0.99),
            "lag_max_ms": quantile(1.0)}


def wrk_round(url: str, duration: int, connections: int, script: Path) -> dict[str, float]:
    run_wrk(url, 2, connections)
    return run_wrk(url, duration, connections, script=script)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--steady", type=int, default=30)
    parser.add_argument("--path", default="/v1/simple-quotes?symbols=AAPL")
    parser.add_argument("--env", action="append", default=[],
                        help="NAME=VALUE for the service (repeatable), e.g. an A/B switch")
    args = parser.parse_args()
    for name in ("REDIS_URL", "DATABASE_URL", "MARKETDATA_WARM_UP"):
        os.environ.pop(name, None)  # make run's embedded defaults
    env = {"MARKETDATA_UPSTREAM": "sandbox", "WEB_CONCURRENCY": "1", "LOG_LEVEL": "INFO",
           **dict(item.split("=", 1) for item in args.env)}
    tmp = Path(tempfile.mkdtemp(prefix="bench-tail-"))
    script = tmp / "tail.lua"
    script.write_text(TAIL_SCRIPT)
    print(f"before: {uptime()}")
    service = start_service(tmp, env)
    servers: dict[str, Process] = {"service": service}
    try:
        body = warm(service, args.path, 1)
        servers["bare app"] = start_asgi_floor(tmp, body, 1)
        urls = {name: server.base_url + args.path for name, server in servers.items()}
        run_wrk(urls["service"], args.steady, args.connections)
        run_wrk(urls["bare app"], 5, args.connections)
        rows: list[tuple[int, dict[str, float], dict[str, float]]] = []
        for round_no in range(1, args.rounds + 1):
            before = lag_buckets(service)
            mine = wrk_round(urls["service"], args.duration, args.connections, script)
            mine.update(lag_summary(before, lag_buckets(service)))
            time.sleep(1)
            bare = wrk_round(urls["bare app"], args.duration, args.connections, script)
            time.sleep(1)
            rows.append((round_no, mine, bare))
        print(f"after: {uptime()}")
        print(f"\n{args.path}, wrk -t2 -c{args.connections} -d{args.duration}s, "
              f"{args.steady} s steady state first\n")
        print("| round | service req/s | share | p50 | p99 | p99.9 | max | bare req/s | "
              "bare p50 | bare p99 | bare p99.9 | p99 ratio | loop lag p50 / p99 / max |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for round_no, mine, bare in rows:
            print(f"| {round_no} | {mine['rps']:,.0f} | {mine['rps'] / bare['rps']:.1%} | "
                  f"{mine['p50_ms']:.2f} | {mine['p99_ms']:.2f} | {mine['p99.9_ms']:.2f} | "
                  f"{mine['max_ms']:.1f} | {bare['rps']:,.0f} | {bare['p50_ms']:.2f} | "
                  f"{bare['p99_ms']:.2f} | {bare['p99.9_ms']:.2f} | "
                  f"{mine['p99_ms'] / bare['p99_ms']:.1f}x | "
                  f"<= {mine['lag_p50_ms']:g} / {mine['lag_p99_ms']:g} / "
                  f"{mine['lag_max_ms']:g} ms ({mine['ticks']:.0f} ticks) |")
        best_share = max(mine["rps"] / bare["rps"] for _, mine, bare in rows)
        within = sum(mine["p99_ms"] <= TARGET_P99_RATIO * bare["p99_ms"]
                     for _, mine, bare in rows)
        print(f"\nbest-round share {best_share:.1%} (target >= {TARGET_SHARE:.0%}): "
              f"{'met' if best_share >= TARGET_SHARE else 'NOT met'}; p99 within "
              f"{TARGET_P99_RATIO:g}x the bare app's in {within} of {len(rows)} rounds "
              f"(target: 2 of 3): {'met' if within >= 2 else 'NOT met'}")
        lines = service.log().splitlines()
        errors = [line for line in lines if '"level":"ERROR"' in line or "Traceback" in line]
        print(f"service log: {len(lines)} lines, {len(errors)} errors")
    finally:
        for server in servers.values():
            server.stop()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
