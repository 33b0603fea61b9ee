"""/v1/health through the real service process (bin/serve -> gunicorn) against the sandbox
upstream server over loopback: every check succeeding, and every upstream hanging."""

from __future__ import annotations

import json
import time

import pytest

from tests.integration.servers import configure_sandbox, http

pytestmark = [pytest.mark.integration,
              pytest.mark.slow(
                  "a service's 28 health checks against the sandbox, then a real deadline")]

CHECK_COUNT = 28
LOCAL_CHECKS = {"Market Hours"}  # computed from the calendar, no upstream call


# The deadline the hanging test waits for (the default is 8 s; the bound is what is tested).
DEADLINE = 2.0


def _stack(server_pool, latency_ms: int, **env: str):
    """(service, sandbox): the worker's shared sandbox answering after ``latency_ms``."""
    service, sandbox = server_pool.stack({"USE_SECURITY": "false", **env})
    configure_sandbox(sandbox, latency_ms=latency_ms)
    return service, sandbox


def _checks(body: dict) -> dict[str, dict]:
    return {name: value for name, value in body["services"].items() if name != "status"}


def test_health_all_checks_succeed(server_pool):
    # A generous deadline: the sandbox builds its synthetic universe on first use.
    service, sandbox = _stack(server_pool, 5, HEALTH_CHECK_TIMEOUT_SECONDS="60")
    # A second round where the first was degraded: the first runs 28 checks at once on a
    # cold service and a cold sandbox, and on a loaded CI machine one of them once failed
    # (which one, the failure message below now says). The second finds both warm; a
    # check that fails twice is a failure.
    for _ in range(2):
        status, headers, raw = http("GET", f"{service.base_url}/v1/health", timeout=90)
        assert status == 200, raw
        body = json.loads(raw)
        if body["status"] == "healthy":
            break
    failed = {name: check for name, check in _checks(body).items()
              if check["status"] != "succeeded"}
    assert body["status"] == "healthy", failed
    assert body["upstream"] == "live"
    assert body["services"]["status"] == f"{CHECK_COUNT}/{CHECK_COUNT} succeeded", body
    assert len(_checks(body)) == CHECK_COUNT
    assert headers["Cache-Control"] == "no-cache"
    assert headers["X-Correlation-ID"]

    status, _, raw = http("GET", f"{sandbox.base_url}/__sandbox__/requests?"
                                 "path_prefix=/1/indexes/")
    assert status == 200
    assert json.loads(raw)["count"] >= 1, "search went to the primary provider"

    status, _, raw = http("GET", f"{service.base_url}/v2/health?fields=version,notices")
    assert status == 200
    v2 = json.loads(raw)
    assert set(v2) == {"version", "notices"}
    from marketdata.capabilities import CAPABILITIES

    # live mode: no synthetic-data notice; Yahoo, then one line per capability
    assert len(v2["notices"]) == 1 + len(CAPABILITIES)


def test_health_answers_in_time_when_every_upstream_hangs(server_pool):
    # The sandbox answers after 30 s: longer than every upstream timeout (10 s read, with
    # retries), so only the health deadline can bound the answer.
    # Warmed up at its start, as in production: the one check that answers (Market Hours)
    # reads the market calendar, which a lazy test server would build within the deadline.
    service, _ = _stack(server_pool, 30000, HEALTH_CHECK_TIMEOUT_SECONDS=str(DEADLINE),
                        MARKETDATA_WARM_UP="eager")
    started = time.monotonic()
    status, headers, raw = http("GET", f"{service.base_url}/v1/health", timeout=30)
    elapsed = time.monotonic() - started
    assert status == 200, raw
    assert elapsed < DEADLINE + 2, f"/v1/health took {elapsed:.1f} s"
    body = json.loads(raw)
    checks = _checks(body)
    assert len(checks) == CHECK_COUNT
    failed = {name: c["error"] for name, c in checks.items() if c["status"] == "failed"}
    assert set(failed) == set(checks) - LOCAL_CHECKS, body
    for name, reason in failed.items():
        assert reason.startswith(f"timed out after {DEADLINE} s"), (name, reason)
    assert body["services"]["status"] == f"1/{CHECK_COUNT} succeeded"
    assert body["status"] == "unhealthy"
    assert body["cache"]["status"] == "healthy"
    assert headers["Cache-Control"] == "no-cache"

    # The service itself is still responsive.
    status, _, _ = http("GET", f"{service.base_url}/v1/ping", timeout=5)
    assert status == 200
    log = service.log()
    assert "health check failed" in log
    assert headers["X-Correlation-ID"] in log
