"""Cross-process single-flight on a real Redis: several OS processes, one cold key, one fetch.

Skipped unless REDIS_URL is set (``REDIS_URL=redis://127.0.0.1:6379/15``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.conftest import REDIS_URL

pytestmark = [pytest.mark.redis, pytest.mark.process,
              pytest.mark.slow("Python processes racing on one key through Redis"),
              pytest.mark.skipif(not REDIS_URL, reason="needs a real Redis (set REDIS_URL)")]

ROOT = Path(__file__).resolve().parents[2]

WORKER = r"""
import json, os, sys, time
sys.path.insert(0, os.environ["MD_ROOT"])
import django
django.setup()
import redis
from marketdata.cache import TTLPolicy, fetch_through
from marketdata.errors import UpstreamUnavailable

run, mode = sys.argv[1], sys.argv[2]
r = redis.Redis.from_url(os.environ["REDIS_URL"])

def fetch():
    r.incr(f"{run}:fetches")
    time.sleep(0.5)
    if mode == "error":
        raise UpstreamUnavailable("xproc", "Cross-process test upstream is down")
    return {"leader": os.getpid()}

r.incr(f"{run}:ready")
deadline = time.time() + 30
while not r.get(f"{run}:go"):
    if time.time() > deadline:
        sys.exit("never told to go")
    time.sleep(0.002)
policy = TTLPolicy("x", open=60, extended=60, closed=60, market_aware=False)
try:
    value = fetch_through("xproc", run, {"symbol": "AAPL"}, fetch, policy)
    print("RESULT " + json.dumps({"ok": value}))
except UpstreamUnavailable as exc:
    print("RESULT " + json.dumps({"error": type(exc).__name__, "detail": exc.detail}))
"""


def race(processes: int, mode: str) -> tuple[int, list[dict]]:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    run = f"md-test-xproc-{uuid.uuid4().hex}"
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "REDIS_URL": REDIS_URL,
           "MD_ROOT": str(ROOT), "LOG_LEVEL": "CRITICAL", "MARKETDATA_UPSTREAM": "live"}
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, run, mode], cwd=ROOT, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(processes)]
    try:
        deadline = time.time() + 60
        while int(client.get(f"{run}:ready") or 0) < processes:
            assert time.time() < deadline, "workers did not start"
            assert all(p.poll() is None for p in procs), [p.communicate() for p in procs]
            time.sleep(0.01)
        client.set(f"{run}:go", 1)
        outputs = [p.communicate(timeout=60) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    results = []
    for (out, err), p in zip(outputs, procs, strict=True):
        assert p.returncode == 0, err
        lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
        assert len(lines) == 1, (out, err)
        results.append(json.loads(lines[0][len("RESULT "):]))
    fetches = int(client.get(f"{run}:fetches") or 0)
    client.delete(f"{run}:ready", f"{run}:go", f"{run}:fetches")
    return fetches, results


def test_processes_racing_on_one_key_make_one_fetch():
    fetches, results = race(4, "ok")
    assert fetches == 1
    assert len(results) == 4
    assert all("ok" in r for r in results), results
    assert len({r["ok"]["leader"] for r in results}) == 1  # everyone got the leader's value


def test_processes_racing_on_a_failing_key_make_one_fetch():
    fetches, results = race(3, "error")
    assert fetches == 1
    assert results == [{"error": "UpstreamUnavailable",
                        "detail": "Cross-process test upstream is down"}] * 3
