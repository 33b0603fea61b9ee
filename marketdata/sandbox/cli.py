"""Command-line options shared by ``python -m marketdata.sandbox`` and the Django command."""

from __future__ import annotations

import argparse
import logging
from collections.abc import Callable
from datetime import datetime

from marketdata.sandbox.core import UpstreamSandbox, make_clock, parse_instant
from marketdata.sandbox.server import make_server

log = logging.getLogger("marketdata.sandbox")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=9000)
    parser.add_argument("--latency-ms", type=int, default=0)
    parser.add_argument("--fail-rate", type=float, default=0.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--crumb-ttl", type=float, default=None,
                        help="expire issued crumbs after this many seconds")
    parser.add_argument("--clock-start", type=parse_instant, default=None,
                        help="the simulated time at start-up (ISO 8601 in UTC, e.g. "
                             "2026-11-24T14:31:00Z: a trading session); default now")
    parser.add_argument("--clock-speed", type=float, default=1.0,
                        help="simulated seconds per real second (60: a session minute, and "
                             "so a new price, every second); default 1")


def serve(host: str, port: int, latency_ms: int = 0, fail_rate: float = 0.0, seed: int = 0,
          crumb_ttl: float | None = None, announce: object = None,
          clock: Callable[[], datetime] | None = None) -> None:
    """Serve forever; ``announce`` (a callable) receives the one start-up line."""
    sandbox = UpstreamSandbox(fail_rate=fail_rate, latency_ms=latency_ms, seed=seed,
                              crumb_ttl_seconds=crumb_ttl, clock=clock)
    server = make_server(host, port, sandbox)
    bound_host, bound_port = server.socket.getsockname()[:2]  # what server_address holds
    line = (f"Sandbox upstream ({', '.join(sandbox.provider_names)}) listening on "
            f"http://{bound_host}:{bound_port} "
            f"(latency_ms={latency_ms}, fail_rate={fail_rate}, seed={seed}, "
            f"crumb_ttl={crumb_ttl})")
    if callable(announce):
        announce(line)
    else:
        log.warning(line)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m marketdata.sandbox",
        description="Serve the upstream sandbox (Yahoo, Algolia...) over HTTP.")
    add_arguments(parser)
    args = parser.parse_args(argv)
    serve(args.host, args.port, args.latency_ms, args.fail_rate, args.seed, args.crumb_ttl,
          announce=lambda line: print(line, flush=True),
          clock=make_clock(args.clock_start, args.clock_speed))
