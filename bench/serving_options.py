"""Serving options for one port (stream issue): gunicorn gthread (today's production
command) vs uvicorn running the same WSGI application through a2wsgi, side by side.

Both serve a response-cache hit of ``--path`` in sandbox mode with one worker process;
wrk runs alternate between them. Usage:

    .venv/bin/python bench/serving_options.py [--duration 10] [--rounds 2] [--connections 50]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.http_bench import alternate_wrk, print_table, start_gunicorn  # noqa: E402
from tests.integration.servers import Process, http, start_service  # noqa: E402


def start_gthread(tmp: Path, env: dict[str, str]) -> Process:
    """gunicorn's threaded WSGI workers on the same config (the command line wins)."""
    return start_gunicorn(tmp, "gthread", ["-k", "gthread", "config.wsgi"], env, "/v1/ping")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--connections", type=int, default=50)
    parser.add_argument("--path", default="/v1/simple-quotes?symbols=AAPL")
    args = parser.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench-serving-"))
    env = {"MARKETDATA_UPSTREAM": "sandbox", "WEB_CONCURRENCY": "1", "WEB_THREADS": "16",
           "LOG_LEVEL": "WARNING"}
    servers = {"bin/serve (uvicorn worker + a2wsgi)": start_service(tmp, env)}
    try:
        servers["gunicorn gthread (before)"] = start_gthread(tmp, env)
        for server in servers.values():
            for _ in range(20):
                status, _, body = http("GET", server.base_url + args.path)
                assert status == 200, body
        print_table(alternate_wrk({name: server.base_url + args.path
                                   for name, server in servers.items()},
                                  args.rounds, args.duration, args.connections))
    finally:
        for server in servers.values():
            server.stop()


if __name__ == "__main__":
    main()
