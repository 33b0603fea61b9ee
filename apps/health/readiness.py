"""Readiness: can this process serve requests right now? (``GET /readyz``)

Two local dependencies decide it: the database (sessions, admin users) and the cache
backend (data cache, rate-limit counters, single-flight, channel layer when it is Redis).
Each is probed with one cheap round trip; no upstream provider is called, so a probe costs
milliseconds and an upstream outage never takes every replica out of a load balancer at
once (``/v1/health`` is the upstream report). ``/v1/ping`` stays the liveness probe: it
answers as long as the process does.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache as django_cache
from django.db import connections

from marketdata import outages
from marketdata.logs import get_logger

log = get_logger("apps.health.readiness")

READY = "ready"
NOT_READY = "not_ready"
OK = "ok"
FAILED = "failed"


@dataclass(frozen=True)
class ProbeResult:
    name: str
    ok: bool
    latency_ms: float
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        body: dict[str, Any] = {"status": OK if self.ok else FAILED,
                                "latency_ms": self.latency_ms}
        if self.error is not None:
            body["error"] = self.error
        return body


def database_round_trip() -> None:
    """``SELECT 1`` on the default database (opens a connection when none is open)."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def cache_round_trip() -> None:
    """Write, read and delete a probe key; a cache that loses the value is not ready."""
    key = f"md:readyz:{uuid.uuid4().hex}"
    django_cache.set(key, "1", timeout=10)
    value = django_cache.get(key)
    django_cache.delete(key)
    if value != "1":
        raise RuntimeError("the cache did not return the value just written")


PROBES: dict[str, Callable[[], None]] = {
    "database": database_round_trip,
    "cache": cache_round_trip,
}


def _probe(name: str, call: Callable[[], None]) -> ProbeResult:
    started = time.perf_counter()
    try:
        call()
    except Exception as exc:  # reported in the body and logged, never raised
        latency = round((time.perf_counter() - started) * 1000, 2)
        if name == "cache":  # logged once per outage, not at every probe
            outages.failed(exc, "readiness cache probe")
        else:
            # The class name only: driver messages can carry host names and user names.
            log.warning("readiness probe failed", probe=name, error=type(exc).__name__,
                        exc_info=True)
        return ProbeResult(name, False, latency, type(exc).__name__)
    if name == "cache":
        outages.succeeded("readiness cache probe")
    return ProbeResult(name, True, round((time.perf_counter() - started) * 1000, 2))


def readiness(probes: dict[str, Callable[[], None]] | None = None) -> tuple[bool, dict[str, Any]]:
    """(ready, body): every probe's status and latency, and ``failed`` naming the probes
    that did not answer (empty when ready)."""
    results = [_probe(name, call) for name, call in (probes or PROBES).items()]
    failed = [r.name for r in results if not r.ok]
    body = {"status": NOT_READY if failed else READY,
            "checks": {r.name: r.as_dict() for r in results},
            "failed": failed}
    return not failed, body
