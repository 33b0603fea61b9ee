"""Thread starvation (issue 23): slow clients and slow upstreams against the real server,
this tree side by side with a baseline commit, in one run.

For each server (this tree, and with ``--baseline REF`` that commit checked out into a
temporary git worktree), each scenario starts the sandbox upstream as its own HTTP server
(this tree's, per-path faults) and the service with its production command (``bin/serve``:
gunicorn, one uvicorn worker, live mode with every provider host mapped to the sandbox,
each server's default settings unless ``--env`` says otherwise), then measures **probes**:
cold requests (a new symbol or series each time, so every one reaches an upstream) to
FRED, the Treasury, the CFTC, and Yahoo's quoteSummary and search, one after another.

- ``idle``: probes alone (the reference latency).
- ``bodies``: ``--stalled`` connections (100) each send a POST head with
  ``Content-Length: 100000`` and a few bytes of body, then wait ``--hold`` seconds (60);
  probes meanwhile; when the server closed each stalled connection.
- ``hanging``: Yahoo's chart endpoint hangs (60 s); ``--hanging`` (40) concurrent cold
  ``/v2/chart`` requests; probes meanwhile; when and how the hanging ones were answered.
- ``slow``: Yahoo's chart answers after 3 s; ``--slow-clients`` (200) clients request cold
  charts in a closed loop for ``--slow-seconds``; probes meanwhile, the first of them on a
  fresh service, so the cookie/crumb handshake runs under the load.

Prints a markdown table per scenario: probe count, p50/p99/max (ms), statuses, and the
ratio of p99 to the idle p99 of the same server. Usage:

    .venv/bin/python bench/starvation.py [--baseline HEAD~1] [--scenario all|idle|bodies|
        hanging|slow] [--probes 100] [--stalled 100] [--hold 60] [--hanging 40]
        [--slow-clients 200] [--slow-seconds 20] [--env NAME=VALUE ...]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from marketdata.sandbox.fred.series import OTHER_SERIES  # noqa: E402
from tests.integration.servers import (  # noqa: E402
    Process,
    free_port,
    http,
    sandbox_host_map,
    start_sandbox,
    wait_for,
)

PYTHON = sys.executable


@dataclass
class Target:
    name: str
    root: Path


@dataclass
class Sample:
    status: int
    seconds: float
    path: str


@dataclass
class Result:
    scenario: str
    target: str
    probes: list[Sample] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def start(target: Target, tmp: Path, env: dict[str, str]) -> Process:
    """``bin/serve`` of ``target`` on a free port (as tests/integration/servers.py does
    for this tree)."""
    port = free_port()
    full = {k: v for k, v in os.environ.items() if k not in ("MARKETDATA_UPSTREAM",
                                                              "REDIS_URL", "DATABASE_URL")}
    full.update({"PORT": str(port), "HOST": "127.0.0.1", "PYTHON": PYTHON,
                 "MARKETDATA_VAR_DIR": str(tmp / f"var-{target.name}-{port}"),
                 "WEB_CONCURRENCY": "1", "LOG_LEVEL": "WARNING", **env})
    log_path = tmp / f"service-{target.name}-{port}.log"
    log_file = open(log_path, "wb")
    proc = subprocess.Popen([str(target.root / "bin" / "serve")], cwd=target.root, env=full,
                            stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
    server = Process(f"http://127.0.0.1:{port}", proc, log_path, full)
    wait_for(f"{server.base_url}/v1/ping", timeout=120)
    return server


def fault(sandbox: Process, prefix: str, latency_ms: int) -> None:
    http("POST", f"{sandbox.base_url}/__sandbox__/config",
         {"faults": [{"path_prefix": prefix, "fail_rate": 0.0, "latency_ms": latency_ms}]})


def token(prefix: str) -> str:
    return f"{prefix}{uuid.uuid4().hex[:6].upper()}"


def probe_paths() -> list[str]:
    """One cold request to each probed upstream."""
    series = sorted(OTHER_SERIES)  # the sandbox knows only its catalogue's ids
    return [f"/v2/macro/series/{series[uuid.uuid4().int % len(series)]}?limit=2",
            f"/v2/macro/treasury-yields?limit=2&year={1995 + uuid.uuid4().int % 30}",
            f"/v2/positioning/cot/GC=F?limit={2 + uuid.uuid4().int % 50}",
            f"/v2/quote/{token('Q')}",
            f"/v1/search?query={token('q').lower()}&hits=2"]


def timed(base: str, path: str, timeout: float = 60.0) -> Sample:
    started = time.monotonic()
    try:
        status, _, _ = http("GET", base + path, timeout=timeout)
    except OSError:
        status = 0
    return Sample(status, time.monotonic() - started, path)


def run_probes(base: str, count: int, stop: threading.Event | None = None) -> list[Sample]:
    samples: list[Sample] = []
    while len(samples) < count and not (stop and stop.is_set()):
        for path in probe_paths():
            samples.append(timed(base, path))
            if len(samples) >= count:
                break
    return samples


def stats(samples: list[Sample]) -> tuple[float, float, float]:
    times = sorted(s.seconds * 1000 for s in samples)
    if not times:
        return (0.0, 0.0, 0.0)
    p99 = times[min(len(times) - 1, round(0.99 * (len(times) - 1)))]
    return statistics.median(times), p99, times[-1]


# -- scenarios ---------------------------------------------------------------------------------
def idle(target: Target, tmp: Path, args: argparse.Namespace) -> Result:
    result = Result("idle", target.name)
    with stack(target, tmp, args) as (service, _sandbox):
        result.probes = run_probes(service.base_url, args.probes)
    return result


def bodies(target: Target, tmp: Path, args: argparse.Namespace) -> Result:
    result = Result("bodies", target.name)
    with stack(target, tmp, args) as (service, _sandbox):
        port = int(service.base_url.rsplit(":", 1)[1])
        closed_at: list[float] = []
        opened = time.monotonic()

        def stalled() -> None:
            with socket.create_connection(("127.0.0.1", port)) as sock:
                sock.sendall(b"POST /v2/backtest/AAPL HTTP/1.1\r\nHost: x\r\nContent-Type: "
                             b"application/json\r\nContent-Length: 100000\r\n\r\n{\"st")
                sock.settimeout(args.hold)
                try:
                    while sock.recv(4096):
                        pass
                    closed_at.append(time.monotonic() - opened)
                except TimeoutError:
                    pass  # still open when the client gave up
                except OSError:
                    closed_at.append(time.monotonic() - opened)

        threads = [threading.Thread(target=stalled, daemon=True) for _ in range(args.stalled)]
        for thread in threads:
            thread.start()
        time.sleep(0.5)
        result.probes = run_probes(service.base_url, args.probes)
        for thread in threads:
            thread.join(args.hold + 5)
        result.notes.append(f"{len(closed_at)} of {args.stalled} stalled connections closed by "
                            "the server" + (f", {min(closed_at):.1f}-{max(closed_at):.1f} s "
                                            "after opening" if closed_at else ""))
    return result


def hanging(target: Target, tmp: Path, args: argparse.Namespace) -> Result:
    result = Result("hanging", target.name)
    with stack(target, tmp, args) as (service, sandbox):
        run_probes(service.base_url, 5)  # handshake and connections
        fault(sandbox, "/v8/finance/chart", 60_000)
        with ThreadPoolExecutor(args.hanging) as pool:
            futures = [pool.submit(timed, service.base_url, f"/v2/chart/{token('H')}?range=5d")
                       for _ in range(args.hanging)]
            time.sleep(0.5)
            stop = threading.Event()
            probes: list[Sample] = []
            prober = threading.Thread(target=lambda: probes.extend(
                run_probes(service.base_url, args.probes, stop)))
            prober.start()
            answered = [f.result() for f in futures]
            stop.set()
            prober.join()
        result.probes = probes
        seconds = sorted(s.seconds for s in answered)
        result.notes.append(f"hanging requests: {dict(Counter(s.status for s in answered))}, "
                            f"answered {seconds[0]:.2f}-{seconds[-1]:.2f} s after sending")
    return result


def slow(target: Target, tmp: Path, args: argparse.Namespace) -> Result:
    result = Result("slow", target.name)
    with stack(target, tmp, args, warm=False) as (service, sandbox):
        http("GET", f"{service.base_url}/v2/macro/treasury-yields?limit=1")  # not Yahoo
        fault(sandbox, "/v8/finance/chart", 3000)
        stop = threading.Event()
        statuses: Counter[int] = Counter()

        def client() -> None:
            while not stop.is_set():
                sample = timed(service.base_url, f"/v2/chart/{token('C')}?range=5d")
                statuses[sample.status] += 1

        clients = [threading.Thread(target=client, daemon=True)
                   for _ in range(args.slow_clients)]
        for thread in clients:
            thread.start()
        time.sleep(1.0)
        started = time.monotonic()
        # The first quote of this fresh service makes the cookie/crumb handshake, now.
        first = timed(service.base_url, f"/v2/quote/{token('Q')}")
        probes = [first]
        while time.monotonic() - started < args.slow_seconds and len(probes) < args.probes:
            probes.extend(run_probes(service.base_url, 5))
        stop.set()
        for thread in clients:
            thread.join(70)
        result.probes = probes
        result.notes.append(f"first quote (with the handshake): {first.status} in "
                            f"{first.seconds * 1000:.0f} ms; slow chart requests answered: "
                            f"{dict(statuses)}")
    return result


class stack:  # noqa: N801 - a context manager used like a function
    """The sandbox HTTP server and ``target``'s service in front of it."""

    def __init__(self, target: Target, tmp: Path, args: argparse.Namespace,
                 warm: bool = True) -> None:
        self.target, self.tmp, self.args, self.warm = target, tmp, args, warm

    def __enter__(self) -> tuple[Process, Process]:
        self.sandbox = start_sandbox(self.tmp)
        env = {"MARKETDATA_UPSTREAM": "live",
               "UPSTREAM_HOST_MAP": sandbox_host_map(self.sandbox.base_url),
               **dict(item.split("=", 1) for item in self.args.env)}
        try:
            self.service = start(self.target, self.tmp, env)
        except BaseException:
            self.sandbox.stop()
            raise
        if self.warm:
            for path in probe_paths():
                timed(self.service.base_url, path)
        return self.service, self.sandbox

    def __exit__(self, *_exc: object) -> None:
        self.service.stop()
        self.sandbox.stop()


SCENARIOS = {"idle": idle, "bodies": bodies, "hanging": hanging, "slow": slow}


def worktree(ref: str, tmp: Path) -> Path:
    path = tmp / f"baseline-{ref.replace('/', '_').replace('~', '-')}"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(path), ref],
                   check=True, capture_output=True)
    return path


def report(results: list[Result]) -> None:
    idle_p99 = {r.target: stats(r.probes)[1] for r in results if r.scenario == "idle"}
    print("| scenario | server | probes | p50 ms | p99 ms | max ms | p99 / idle p99 | "
          "probe statuses |")
    print("|---|---|---|---|---|---|---|---|")
    for r in results:
        p50, p99, top = stats(r.probes)
        base = idle_p99.get(r.target)
        ratio = f"{p99 / base:.2f}" if base else "-"
        codes = dict(sorted(Counter(s.status for s in r.probes).items()))
        print(f"| {r.scenario} | {r.target} | {len(r.probes)} | {p50:.1f} | {p99:.1f} | "
              f"{top:.1f} | {ratio} | {json.dumps(codes)} |")
    for r in results:
        for note in r.notes:
            print(f"- {r.scenario}, {r.target}: {note}")
        slowest = sorted(r.probes, key=lambda s: -s.seconds)[:3]
        print(f"- {r.scenario}, {r.target}: slowest probes: " + ", ".join(
            f"{s.path.split('?')[0].rsplit('/', 1)[0]} {s.status} {s.seconds * 1000:.0f} ms"
            for s in slowest))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--baseline", help="a git ref to measure side by side")
    parser.add_argument("--scenario", default="all", choices=["all", *SCENARIOS])
    parser.add_argument("--probes", type=int, default=100)
    parser.add_argument("--stalled", type=int, default=100)
    parser.add_argument("--hold", type=float, default=60.0)
    parser.add_argument("--hanging", type=int, default=40)
    parser.add_argument("--slow-clients", type=int, default=200)
    parser.add_argument("--slow-seconds", type=float, default=20.0)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for both")
    args = parser.parse_args()

    tmp = Path(tempfile.mkdtemp(prefix="starvation-"))
    targets = [Target("this tree", ROOT)]
    try:
        if args.baseline:
            targets.append(Target(f"baseline {args.baseline}", worktree(args.baseline, tmp)))
        names = list(SCENARIOS) if args.scenario == "all" else ["idle", args.scenario]
        results = []
        print(f"load before: {os.getloadavg()}", file=sys.stderr)
        for name in dict.fromkeys(names):
            for target in targets:
                print(f"{name}: {target.name} ...", file=sys.stderr)
                results.append(SCENARIOS[name](target, tmp, args))
        print(f"load after: {os.getloadavg()}", file=sys.stderr)
        report(results)
    finally:
        for target in targets[1:]:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                            str(target.root)], capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
        signal.signal(signal.SIGINT, signal.SIG_DFL)


if __name__ == "__main__":
    main()
