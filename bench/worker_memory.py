"""A worker's memory (RSS) after warm-up, in live and in sandbox mode, and what holds it.

For each mode it starts the service with its production command (one worker): **live**
against the sandbox HTTP server as a stand-in upstream (``UPSTREAM_HOST_MAP``, as the
integration tests do, so the worker runs the live code paths and never loads the
simulator), **sandbox** with the in-process simulator. It reads the worker's RSS when it
is ready, then sends one request to every endpoint (``--rounds`` times; the equivalence
tests' sample list) and reads it again. Each mode's service starts twice on one var
directory and the second start is measured: the first compiles the numba kernels into
the var directory's cache, as only a machine's very first start does. ``--breakdown``
also imports the worker's parts one by one in a fresh process of each mode and prints
the RSS each adds. Usage:

    .venv/bin/python bench/worker_memory.py [--rounds 2] [--breakdown]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.integration.servers import (  # noqa: E402
    http,
    sandbox_host_map,
    start_sandbox,
    start_service,
)

HEAVY = ("llvmlite", "numba", "pandas", "exchange_calendars", "talib", "scipy")


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def workers_of(master: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(master)], capture_output=True,
                         text=True).stdout
    return [int(p) for p in out.split()]


def libraries(pid: int) -> list[str]:
    """Which heavy native libraries the process has mapped."""
    maps = Path(f"/proc/{pid}/maps").read_text()
    return [name for name in HEAVY if f"/{name}" in maps]


def measure(mode: str, rounds: int, tmp: Path) -> dict:
    """Start the service twice on one var directory and measure the second start: the
    first compiles the numba kernels into the var directory's cache (a machine's very first
    start), every later start (a restart, a new worker) loads them."""
    from tests.config.test_fastpath_equivalence import SAMPLES

    sandbox = None
    env = {"MARKETDATA_UPSTREAM": mode, "WEB_CONCURRENCY": "1", "LOG_LEVEL": "WARNING",
           "MARKETDATA_VAR_DIR": str(tmp / f"var-{mode}")}
    if mode == "live":
        sandbox = start_sandbox(tmp)
        env["UPSTREAM_HOST_MAP"] = sandbox_host_map(sandbox.base_url)
    first = start_service(tmp, env)
    [worker] = workers_of(first.proc.pid)
    compiling = rss_mib(worker)
    first.stop()
    service = start_service(tmp, env)
    try:
        master = service.proc.pid
        # bin/serve execs gunicorn, so the spawned pid is the master.
        [worker] = workers_of(master)
        time.sleep(1)
        ready = rss_mib(worker)
        statuses = {}
        for _ in range(rounds):
            for target in SAMPLES:
                status, _, _ = http("GET", service.base_url + target, timeout=60)
                statuses[status] = statuses.get(status, 0) + 1
        warmed = rss_mib(worker)
        return {"mode": mode, "first_start_mib": round(compiling, 1),
                "ready_mib": round(ready, 1), "warm_mib": round(warmed, 1),
                "master_mib": round(rss_mib(master), 1), "statuses": statuses,
                "native_libraries": libraries(worker)}
    finally:
        service.stop()
        if sandbox is not None:
            sandbox.stop()


# -- breakdown: each part's RSS, imported in order in a fresh process --------------------------
def _breakdown_child() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    steps = []

    def step(name: str) -> None:
        steps.append((name, rss_mib(os.getpid()),
                      [m for m in HEAVY if m in sys.modules]))

    step("interpreter")
    import django

    django.setup()
    step("django.setup() (apps, settings)")
    import config.asgi  # noqa: F401 - what the worker loads (URLs via the fast path's setup)

    step("config.asgi (URL configuration, views)")
    from marketdata.markets import market_status

    market_status()
    step("market calendar (post_worker_init)")
    from marketdata.indicators.warmup import warm_up

    warm_up()
    step("indicator kernels (post_worker_init)")
    from marketdata.backtest.warmup import warm_up as warm_up_backtest

    warm_up_backtest()
    step("backtest kernel (post_worker_init)")
    print(json.dumps(steps))


def breakdown(mode: str, tmp: Path) -> list[tuple[str, float, list[str]]]:
    """The parts, in a process whose numba cache is warm (the measured starts filled it)."""
    env = {**os.environ, "MARKETDATA_UPSTREAM": mode, "LOG_LEVEL": "WARNING",
           "PYTHONPATH": str(ROOT), "MARKETDATA_VAR_DIR": str(tmp / f"var-{mode}")}
    out = subprocess.run([sys.executable, __file__, "--child"], env=env, cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--breakdown", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _breakdown_child()
        return
    tmp = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    rows = [measure(mode, args.rounds, tmp) for mode in ("live", "sandbox")]
    print("| mode | first start (compiling) MiB | worker RSS when ready MiB | after warm-up "
          "MiB | master MiB | native libraries mapped | answers |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['mode']} | {r['first_start_mib']} | {r['ready_mib']} | {r['warm_mib']} | "
              f"{r['master_mib']} | {', '.join(r['native_libraries']) or '-'} | "
              f"{r['statuses']} |")
    if args.breakdown:
        for mode in ("live", "sandbox"):
            print(f"\n{mode}: RSS after each part (MiB, cumulative)\n")
            print("| part | RSS MiB | + MiB | heavy modules loaded |")
            print("|---|---|---|---|")
            last = 0.0
            for name, rss, heavy in breakdown(mode, tmp):
                print(f"| {name} | {rss:.0f} | {rss - last:+.0f} | {', '.join(heavy) or '-'} |")
                last = rss


if __name__ == "__main__":
    main()
