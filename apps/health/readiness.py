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
from typing import Final, Literal

from django.core.cache import cache as django_cache
from django.db import connections

from marketdata import outages
from marketdata.logs import get_logger
from marketdata.records.members import DOUBLE, member

log = get_logger("apps.health.readiness")

READY: Final = "ready"
NOT_READY: Final = "not_ready"
OK: Final = "ok"
FAILED: Final = "failed"


@dataclass(frozen=True)
class ProbeStatus:
    """One probe's outcome."""

    name: str  # the probe (not a member: the answer's ``checks`` names it)
    status: Literal["ok", "failed"] = member()
    latency_ms: float = member("One round trip (or the time to fail)", name="latency_ms",
                               schema=DOUBLE)
    error: str | None = member("Failed probes only: the exception class (details are in the "
                               "log)", optional=True, default=None)

    @property
    def ok(self) -> bool:
        return self.status == OK


@dataclass(frozen=True)
class ReadinessChecks:
    database: ProbeStatus = member("`SELECT 1` on the database")
    cache: ProbeStatus = member("Write, read and delete of a probe key in the cache")


@dataclass(frozen=True)
class Readiness:
    """The /readyz answer."""

    status: Literal["ready", "not_ready"] = member()
    checks: ReadinessChecks = member()
    failed: list[str] = member("Names of the probes that failed ([] when ready)")


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


def _probe(name: str, call: Callable[[], None]) -> ProbeStatus:
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
        return ProbeStatus(name, FAILED, latency, type(exc).__name__)
    if name == "cache":
        outages.succeeded("readiness cache probe")
    return ProbeStatus(name, OK, round((time.perf_counter() - started) * 1000, 2))


def readiness() -> tuple[bool, Readiness]:
    """(ready, answer): every probe's status and latency, and ``failed`` naming the probes
    that did not answer (empty when ready)."""
    results = {name: _probe(name, call) for name, call in PROBES.items()}
    failed = [r.name for r in results.values() if not r.ok]
    return not failed, Readiness(NOT_READY if failed else READY, ReadinessChecks(**results),
                                 failed)
