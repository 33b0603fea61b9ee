"""Start the real processes over loopback: the sandbox upstream server and the service
under its production command (gunicorn via bin/serve)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import Message
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(url: str, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    last: Exception | None = None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status < 500:
                    return
        except urllib.error.HTTPError as exc:
            if exc.code < 500:
                return
            last = exc
        except OSError as exc:
            last = exc
        time.sleep(0.2)
    raise TimeoutError(f"{url} did not come up in {timeout}s: {last}")


@dataclass
class Process:
    base_url: str
    proc: subprocess.Popen
    log_path: Path
    env: dict[str, str] = field(default_factory=dict)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=5)


def _spawn(cmd: list[str], env: dict[str, str], log_path: Path) -> subprocess.Popen:
    log_file = open(log_path, "wb")
    return subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT,
                            start_new_session=True)


def start_sandbox(tmp: Path, latency_ms: int = 0, fail_rate: float = 0.0,
                  extra_args: tuple[str, ...] = ()) -> Process:
    port = free_port()
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings",
           "MARKETDATA_UPSTREAM": "live"}
    log_path = tmp / f"sandbox-{port}.log"
    proc = _spawn([PYTHON, "manage.py", "sandbox_upstream", "--host", "127.0.0.1", "--port",
                   str(port), "--latency-ms", str(latency_ms), "--fail-rate", str(fail_rate),
                   *extra_args],
                  env, log_path)
    server = Process(f"http://127.0.0.1:{port}", proc, log_path)
    try:
        wait_for(f"{server.base_url}/__sandbox__/requests", timeout=30)
    except TimeoutError:
        server.stop()
        raise AssertionError(f"sandbox did not start:\n{server.log()}") from None
    return server


def sandbox_host_map(sandbox_url: str) -> str:
    """UPSTREAM_HOST_MAP sending every upstream host of every simulated provider (Yahoo's,
    the search provider's, FRED's, ...) to the sandbox HTTP server."""
    from marketdata.sandbox.providers import SandboxOptions
    from marketdata.sandbox.registry import PROVIDERS

    hosts = [host for factory in PROVIDERS for host in factory(SandboxOptions()).hosts]
    return ",".join(f"{host}={sandbox_url}" for host in hosts)


def start_service(tmp: Path, extra_env: dict[str, str] | None = None,
                  port: int | None = None) -> Process:
    """bin/serve (migrate, collectstatic, gunicorn) on ``port`` (default: a free one)."""
    port = port or free_port()
    env = {k: v for k, v in os.environ.items() if k != "MARKETDATA_UPSTREAM"}
    env.update({
        "PORT": str(port), "HOST": "127.0.0.1", "PYTHON": PYTHON,
        "MARKETDATA_VAR_DIR": str(tmp / f"var-{port}"),
        "CACHE_KEY_PREFIX": f"it-{uuid.uuid4().hex[:8]}",
        "LOG_LEVEL": "INFO",
    })
    env.update(extra_env or {})
    log_path = tmp / f"service-{port}.log"
    proc = _spawn([str(ROOT / "bin" / "serve")], env, log_path)
    server = Process(f"http://127.0.0.1:{port}", proc, log_path, env)
    try:
        wait_for(f"{server.base_url}/v1/ping", timeout=90)
    except TimeoutError:
        server.stop()
        raise AssertionError(f"service did not start:\n{server.log()}") from None
    return server


def http(method: str, url: str, body: Any = None, timeout: float = 30.0,
         headers: dict[str, str] | None = None) -> tuple[int, Message, bytes]:
    """Status, headers (case-insensitive: uvicorn sends lower-case names) and body."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(url, data=data, method=method,
                                     headers={"Content-Type": "application/json",
                                              **(headers or {})})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


@contextmanager
def service_on_sandbox(tmp: Path, extra_env: dict[str, str] | None = None,
                       **sandbox_options: Any) -> Iterator[tuple[Process, Process]]:
    """(service, sandbox): the sandbox HTTP server, and the service in live mode with every
    provider host mapped to it; both stopped on exit. ``sandbox_options``: those of
    :func:`start_sandbox` (latency, fail rate)."""
    sandbox = start_sandbox(tmp, **sandbox_options)
    try:
        service = start_service(tmp, {"MARKETDATA_UPSTREAM": "live",
                                      "UPSTREAM_HOST_MAP": sandbox_host_map(sandbox.base_url),
                                      **(extra_env or {})})
    except BaseException:
        sandbox.stop()
        raise
    try:
        yield service, sandbox
    finally:
        service.stop()
        sandbox.stop()


def get_json(service: Process, path: str) -> tuple[int, Any, Any]:
    """GET ``path`` from the service: (status, headers, decoded JSON body); the answer must
    be JSON whatever its status."""
    status, headers, body = http("GET", f"{service.base_url}{path}")
    assert "json" in headers.get("Content-Type", ""), (path, headers)
    return status, headers, json.loads(body)
