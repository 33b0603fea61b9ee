"""The financial event calendar's events, whichever source dated them: a symbol's earnings
and dividend dates (its calendar events), the monthly options expirations of the market
calendar and the market-wide economic releases.

An event is ``{date, symbol, timestamp, event}``, ``event`` holding one member, the event's
kind, whose object is that kind's record (:data:`EVENT_BODIES`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from marketdata.records.members import member


@dataclass(frozen=True)
class EarningsEstimates:
    """An ``EARNINGS`` event: whether its date is an estimate and the analysts' estimates;
    None where the source has none."""

    eps_estimate_avg: float | None = member()
    eps_estimate_high: float | None = member()
    eps_estimate_low: float | None = member()
    is_estimate: bool | None = member()
    revenue_estimate_avg: int | None = member()


@dataclass(frozen=True)
class DividendAmount:
    """An ``EX_DIVIDEND`` or ``DIVIDEND`` event: the amount, not known from the source."""

    amount: None = member("Not known from this source: null", default=None)


@dataclass(frozen=True)
class ExpiringContracts:
    """An ``OPTIONS_EXPIRATION`` event: the contracts expiring, not counted."""

    contract_count: int | None = member("Listed contracts expiring that day: null (the "
                                        "chains are not loaded)", default=None)


@dataclass(frozen=True)
class ReleaseName:
    """An ``ECONOMIC_RELEASE`` event: which release."""

    name: str = member("The release's name (FRED's)")
    series_id: str = member("FRED's release id, as a string (\"10\": the Consumer Price "
                            "Index)")


# Each kind's record, in the order events of one time and symbol are listed.
EVENT_BODIES: dict[str, type] = {
    "EARNINGS": EarningsEstimates, "EX_DIVIDEND": DividendAmount, "DIVIDEND": DividendAmount,
    "OPTIONS_EXPIRATION": ExpiringContracts, "ECONOMIC_RELEASE": ReleaseName}
EVENT_KINDS = tuple(EVENT_BODIES)


@dataclass(frozen=True)
class CalendarEvent:
    """One event at ``timestamp`` (Unix seconds), of ``symbol`` (None for a market-wide
    one); ``event`` is ``{kind: record}``: :meth:`at` makes it."""

    date: str = member("UTC date of `timestamp`", schema={"format": "date"})
    symbol: str | None = member("The symbol; null for a market-wide event "
                                "(`ECONOMIC_RELEASE`)")
    timestamp: int = member("Unix seconds")
    event: Any = member(
        "Keyed by event kind: " + ", ".join(f"`{kind}`" for kind in EVENT_KINDS[:-1])
        + f" or `{EVENT_KINDS[-1]}`",
        schema={"type": "object", "minProperties": 1, "maxProperties": 1})

    @classmethod
    def at(cls, symbol: str | None, timestamp: int, kind: str, body: Any) -> CalendarEvent:
        return cls(datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d"), symbol,
                   timestamp, {kind: body})

    @property
    def kind(self) -> str:
        return next(iter(self.event))
