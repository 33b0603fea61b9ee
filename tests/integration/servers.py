"""Start the real processes over loopback: the sandbox upstream server and the service
under its production command (gunicorn via bin/serve)."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
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
    started = time.monotonic()
    try:
        wait_for(f"{server.base_url}/__sandbox__/requests", timeout=30)
    except TimeoutError:
        server.stop()
        raise AssertionError(f"sandbox did not start:\n{server.log()}") from None
    record_start("sandbox", time.monotonic() - started)
    return server


def sandbox_host_map(sandbox_url: str) -> str:
    """UPSTREAM_HOST_MAP sending every upstream host of every simulated provider (Yahoo's,
    the search provider's, FRED's, ...) to the sandbox HTTP server."""
    from marketdata.sandbox.providers import SandboxOptions
    from marketdata.sandbox.registry import PROVIDERS

    hosts = [host for factory in PROVIDERS for host in factory(SandboxOptions()).hosts]
    return ",".join(f"{host}={sandbox_url}" for host in hosts)


# What a test run's services start with unless the test says otherwise: one worker
# (gunicorn's default with Redis is one per core, each importing the whole application:
# twice the CPU of every start, and two processes' background work, for tests that need one),
# and no warm-up (marketdata/warmup.py): the market calendar, the compiled kernels and every
# region's exchange calendar are built by the first request that needs them, not by every
# start (~2 s of CPU each of the ~60 starts of a run, most of which never need them). A test
# that times a request beside a cold start asks for MARKETDATA_WARM_UP=eager.
TEST_SERVICE_DEFAULTS = {"WEB_CONCURRENCY": "1", "MARKETDATA_WARM_UP": "lazy"}

# The run's data folder: set by tests/conftest.py (a folder every xdist worker of the run
# shares), prepared once by the first service start that uses it.
RUN_DIR: Path | None = None


def record_start(kind: str, seconds: float) -> None:
    """One line per server start in the run's folder, for the count and the slowest start
    printed at the end of the run (tests/conftest.py)."""
    if RUN_DIR is None:
        return
    RUN_DIR.mkdir(parents=True, exist_ok=True)
    test = os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0]
    with open(RUN_DIR / "starts.log", "a") as log:
        log.write(json.dumps({"kind": kind, "seconds": round(seconds, 2), "test": test}) + "\n")


def read_starts() -> list[dict[str, Any]]:
    path = RUN_DIR / "starts.log" if RUN_DIR else None
    if path is None or not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def prepared_var_dir(base: Path) -> Path:
    """The data folder (migrations, static files, compressed assets, the secret key) that
    every service of this test run shares, prepared by ``manage.py prepare`` once per run,
    not per start (the run's workers take turns under a lock; the second finds it done).
    The indicator kernels are numba's cache in ``NUMBA_CACHE_DIR``, kept between runs."""
    var_dir = base / "var"
    done = var_dir / ".prepared"
    base.mkdir(parents=True, exist_ok=True)
    with open(base / "prepare.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            env = {**os.environ, "MARKETDATA_VAR_DIR": str(var_dir),
                   "MARKETDATA_UPSTREAM": "sandbox"}
            run = subprocess.run([PYTHON, "manage.py", "prepare"], cwd=ROOT, env=env,
                                 capture_output=True, text=True, timeout=600)
            assert run.returncode == 0, f"manage.py prepare failed:\n{run.stdout}{run.stderr}"
            done.touch()
    return var_dir


def start_service(tmp: Path, extra_env: dict[str, str] | None = None,
                  port: int | None = None, own_var_dir: bool = False) -> Process:
    """bin/serve (gunicorn) on ``port`` (default: a free one), on the run's prepared data
    folder (:func:`prepared_var_dir`: bin/serve skips ``prepare``) with this instance's own
    metrics folder, no control socket and, without DATABASE_URL, its own copy of the prepared
    SQLite database, and :data:`TEST_SERVICE_DEFAULTS` (one worker: ``WEB_CONCURRENCY`` in
    ``extra_env`` for more).
    ``own_var_dir`` (or outside a test run: the benches): a fresh data folder that
    bin/serve prepares itself."""
    port = port or free_port()
    env = {k: v for k, v in os.environ.items() if k != "MARKETDATA_UPSTREAM"}
    env.update({
        "PORT": str(port), "HOST": "127.0.0.1", "PYTHON": PYTHON,
        "CACHE_KEY_PREFIX": f"it-{uuid.uuid4().hex[:8]}",
        "LOG_LEVEL": "INFO",
    })
    if RUN_DIR is not None:
        env.update(TEST_SERVICE_DEFAULTS)
    if own_var_dir or RUN_DIR is None:
        env["MARKETDATA_VAR_DIR"] = str(tmp / f"var-{port}")
    else:
        var_dir = prepared_var_dir(RUN_DIR)
        instance = tmp / f"instance-{port}"
        instance.mkdir(parents=True, exist_ok=True)
        env.update({"MARKETDATA_VAR_DIR": str(var_dir), "MARKETDATA_SKIP_PREPARE": "1",
                    "PROMETHEUS_MULTIPROC_DIR": str(instance / "prometheus"),
                    # No test but the production command's uses it (own_var_dir).
                    "GUNICORN_CONTROL_SOCKET": "off"})
        if not env.get("DATABASE_URL"):
            shutil.copyfile(var_dir / "db.sqlite3", instance / "db.sqlite3")
            env["DATABASE_URL"] = f"sqlite:///{instance / 'db.sqlite3'}"
    env.update(extra_env or {})
    log_path = tmp / f"service-{port}.log"
    proc = _spawn([str(ROOT / "bin" / "serve")], env, log_path)
    server = Process(f"http://127.0.0.1:{port}", proc, log_path, env)
    started = time.monotonic()
    try:
        wait_for(f"{server.base_url}/v1/ping", timeout=90)
    except TimeoutError:
        server.stop()
        raise AssertionError(f"service did not start:\n{server.log()}") from None
    record_start("service" if not own_var_dir else "service (own data folder)",
                 time.monotonic() - started)
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


def time_pings(base_url: str, stop: threading.Event, out: list[float],
               pause: float = 0.01) -> None:
    """``GET /v1/ping`` one after another until ``stop`` is set, each one's time (ms)
    appended to ``out``: how long a client waits meanwhile (run it in a thread)."""
    while not stop.is_set():
        started = time.perf_counter()
        with urllib.request.urlopen(f"{base_url}/v1/ping", timeout=30) as response:
            response.read()
        out.append((time.perf_counter() - started) * 1000)
        time.sleep(pause)


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


def configure_sandbox(sandbox: Process, **conf: Any) -> dict[str, Any]:
    """``POST /__sandbox__/config`` (faults, fail_rate, latency_ms, clock: see
    marketdata/sandbox/server.py); the sandbox's configuration after it."""
    status, _, body = http("POST", f"{sandbox.base_url}/__sandbox__/config", conf, timeout=10)
    assert status == 200, body
    return json.loads(body)


# Sandbox behaviour every test on the shared sandbox starts from (ServicePool.restore).
SANDBOX_DEFAULTS = {"fail_rate": 0.0, "latency_ms": 0, "faults": [], "clock": None}


class ServicePool:
    """The servers one test worker shares across its test files (a session fixture,
    ``tests/conftest.py``): one sandbox HTTP server, and the service in live mode on it, one
    process per distinct environment (the default, a keyed FMP, a refused FRED key, ...),
    each started on first use and kept until the run ends. A test file asks for its stack
    instead of starting processes; a test that needs a service of its own (one it stops, a
    breaker it opens, two processes sharing one Redis) asks for one (:meth:`own_service`),
    and only one that needs more (the production command's layout, a log it reads whole)
    starts it itself, saying why beside it.

    What one file leaves behind must not reach the next: the sandbox's faults, latency and
    clock are set back after every test (:meth:`restore`); its request log is only ever read
    as a difference or after a reset; answers cached by the service are shared, as they are
    between the tests of one file (tests that need a cold cache ask for a fresh symbol)."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self._sandbox: Process | None = None
        self._services: dict[tuple[tuple[str, str], ...], Process] = {}
        self._own: list[Process] = []

    def sandbox(self) -> Process:
        if self._sandbox is None or self._sandbox.proc.poll() is not None:
            self._sandbox = start_sandbox(self.tmp)
        return self._sandbox

    def service(self, env: dict[str, str] | None = None) -> Process:
        """The service on the shared sandbox with ``env`` over the defaults (asking for a
        default, one worker, is the same process)."""
        key = tuple(sorted({**TEST_SERVICE_DEFAULTS, **(env or {})}.items()))
        service = self._services.get(key)
        if service is None or service.proc.poll() is not None:
            service = self._services[key] = self._start(env)
        return service

    def own_service(self, env: dict[str, str] | None = None) -> Process:
        """A service on the shared sandbox that no other test gets (one the test stops, or
        whose state, a breaker it opens, must not reach the others); stopped at the end of
        the run if the test did not."""
        service = self._start(env)
        self._own.append(service)
        return service

    def _start(self, env: dict[str, str] | None) -> Process:
        return start_service(self.tmp, {
            "MARKETDATA_UPSTREAM": "live",
            "UPSTREAM_HOST_MAP": sandbox_host_map(self.sandbox().base_url), **(env or {})})

    def stack(self, env: dict[str, str] | None = None) -> tuple[Process, Process]:
        """(service, sandbox), as :func:`service_on_sandbox` gives them."""
        service = self.service(env)
        return service, self.sandbox()

    def restore(self) -> None:
        """The shared sandbox back to :data:`SANDBOX_DEFAULTS` (after every test)."""
        if self._sandbox is not None and self._sandbox.proc.poll() is None:
            configure_sandbox(self._sandbox, **SANDBOX_DEFAULTS)

    def stop(self) -> None:
        for service in [*self._services.values(), *self._own]:
            service.stop()
        if self._sandbox is not None:
            self._sandbox.stop()
