"""What the cache did for one request, kept in a context variable.

Separate from :mod:`marketdata.cache` so that the fan-out helper (which the cache uses) can
mark an answer partial without importing the cache back.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass, field

HIT, MISS, STALE = "HIT", "MISS", "STALE"


@dataclass
class CacheReport:
    """What the cache did for one request: worst status and the shortest remaining TTL."""

    statuses: list[str] = field(default_factory=list)
    min_ttl: float | None = None
    # An upstream error reached the caller; a service that answers anyway (a batch with
    # one item left out) must not have that partial answer stored as a whole response.
    incomplete: bool = False

    def note(self, status: str, remaining: float | None) -> None:
        self.statuses.append(status)
        if remaining is not None and (self.min_ttl is None or remaining < self.min_ttl):
            self.min_ttl = remaining

    @property
    def header(self) -> str | None:
        if not self.statuses:
            return None
        for status in (STALE, MISS):
            if status in self.statuses:
                return status
        return HIT


_report: contextvars.ContextVar[CacheReport | None] = contextvars.ContextVar(
    "cache_report", default=None)


def start_report() -> tuple[CacheReport, contextvars.Token]:
    report = CacheReport()
    return report, _report.set(report)


def end_report(token: contextvars.Token) -> None:
    _report.reset(token)


def note(status: str, remaining: float | None) -> None:
    report = _report.get()
    if report is not None:
        report.note(status, remaining)


def note_incomplete() -> None:
    """Mark the current request's answer as partial (never stored by the response cache)."""
    report = _report.get()
    if report is not None:
        report.incomplete = True
