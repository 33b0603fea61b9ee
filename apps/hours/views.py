"""GET /v2/hours: is a region's main exchange open, and until when.

Computed locally from exchange calendars (:mod:`marketdata.exchange_hours`), so no upstream
provider is called and nothing is written to the data cache. The response cache
(:class:`apps.core.middleware.ResponseCacheMiddleware`) stores only answers built from
provider data, so these answers are never stored either: each request gets the clock of
its own moment.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.params import choice
from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import REGIONS, FieldsQuery, V2ApiView
from marketdata.exchange_hours import MarketClock, market_clock
from marketdata.records.members import member


class HoursQuery(FieldsQuery):
    region = choice(REGIONS, required=False, default="US",
                    help_text="Region (Region) whose main exchange is described; default US")


@dataclass(frozen=True)
class MarketHours:
    """The answer: the region's main exchange (a list, as the reference answers it)."""

    markets: list[MarketClock] = member(always=True)


HOURS_RESPONSE = record_schema(MarketHours, nested={"markets": {
    "type": "array", "items": record_schema(MarketClock, required=False)}})


def utc_now() -> datetime:
    """The request's "now" (a seam for tests)."""
    return datetime.now(UTC)


@route("v2/hours", name="v2-hours")
class V2HoursView(V2ApiView):
    """Trading hours of the region's main exchange (US: NYSE, GB: LSE, DE: Xetra, JP: TSE,
    ...), computed locally from exchange calendars with holidays, early closes, lunch breaks
    and DST; no upstream call.

    - `status` describes the regular session: `open` or `closed` (pre-market and
      after-hours are `closed`). On an early-close day (NYSE Black Friday, Christmas Eve)
      it is `open` until the early close, `close` is the early close and `message` says
      `closes early in ...`.
    - `open`/`close` are the current session's, or the next session's once the day's
      session has closed (weekends and holidays too); ISO 8601 UTC. `time` is now.
    - `message`: `closes in 2 h 5 min`, `opens in 14 h 2 min`, `opens in 2 d 16 h 30 min`,
      `lunch break, reopens in 35 min` (rounded up to the minute).
    - `timezone` is the IANA name, `timezoneShort` the abbreviation in force now,
      `dst` whether daylight saving time is in force now, `gmtOffset` the UTC offset now
      in **seconds**.
    - QA and VN (and GR, whose calendar the installed calendar package cannot build) use
      the exchange's documented regular hours and weekends, without holidays or early
      closes; CN, IN and SG calendars list holidays only to the end of 2026, later days
      use their regular hours without holidays.

    `fields` selects members of each market entry (`markets` is always present)."""

    query_serializer = HoursQuery
    response_schema = HOURS_RESPONSE
    output = record_output(MarketClock, at=("markets",))
    operation_id, tag = "get_market_hours", "Market hours (v2)"
    summary = "Market hours of a region"

    def get(self, request: Request) -> Response:
        return self.answer(MarketHours([market_clock(self.params["region"], utc_now())]))
