"""Yahoo's calendar service: the market-wide earnings, splits, IPO and economic-event
calendars (the one Yahoo's calendar pages and open-source clients read).

``POST /v1/finance/visualization?crumb=...&lang=en-US&region=US`` with a JSON query::

    {"sortType": "ASC", "entityIdType": "sp_earnings", "sortField": "startdatetime",
     "includeFields": ["ticker", "companyshortname", ...],
     "query": {"operator": "and", "operands": [
         {"operator": "gte", "operands": ["startdatetime", "2025-03-03"]},
         {"operator": "lt", "operands": ["startdatetime", "2025-03-11"]}, ...]},
     "offset": 0, "size": 100}

The answer is a table::

    {"finance": {"result": [{"documents": [{
        "columns": [{"id": "ticker", "label": "Symbol", "type": "STRING"}, ...],
        "rows": [["AAPL", "Apple Inc.", ...], ...]}]}], "error": null}}

read here by column id (the labels are display text). Entities and their columns:

- ``sp_earnings``: ``ticker``, ``companyshortname``, ``intradaymarketcap``,
  ``startdatetime`` (ISO 8601 instant), ``startdatetimetype`` (BMO, AMC, TAS, TNS),
  ``epsestimate``, ``epsactual``, ``epssurprisepct``; filtered to ``region`` and to the
  announcement event types (``eventtype`` EAD, ERA);
- ``splits``: ``ticker``, ``companyshortname``, ``startdatetime``, ``optionable``,
  ``old_share_worth`` (shares before), ``share_worth`` (shares after);
- ``ipo_info``: ``ticker``, ``companyshortname``, ``exchange_short_name``,
  ``startdatetime``, ``pricefrom``, ``priceto``, ``offerprice``, ``shares``, ``dealtype``;
- ``economic_event``: ``econ_release``, ``country_code``, ``startdatetime``, ``period``,
  ``after_release_actual``, ``consensus_estimate``, ``prior_release_actual``.

Yahoo serves at most :data:`PAGE_SIZE` rows a query: a window is read page by page
(``offset``) up to :data:`MAX_PAGES` pages, in date order. Each window is one cache entry
(an hour: calendars move slowly). No recording of this service exists; the parsers are
tested on bodies in this shape.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from marketdata.errors import UpstreamBadResponse
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import finance_result, yahoo_provider
from marketdata.records.calendars import (
    YAHOO_TIMINGS,
    EarningsRow,
    EconomicRow,
    IpoRow,
    SplitRow,
    split_ratio,
)
from marketdata.symbols import normalize_symbol

VISUALIZATION_URL = f"{yahoo.QUERY1}/v1/finance/visualization"
ENDPOINT = "visualization"
POLICY = "analysis"  # an hour, whatever the market does
GROUP = "calendar"
PAGE_SIZE = 100
MAX_PAGES = 10
EXCHANGE_ZONE = ZoneInfo("America/New_York")

INCLUDE_FIELDS: dict[str, tuple[str, ...]] = {
    "sp_earnings": ("ticker", "companyshortname", "intradaymarketcap", "eventname",
                    "startdatetime", "startdatetimetype", "epsestimate", "epsactual",
                    "epssurprisepct"),
    "splits": ("ticker", "companyshortname", "startdatetime", "optionable",
               "old_share_worth", "share_worth"),
    "ipo_info": ("ticker", "companyshortname", "exchange_short_name", "filingdate",
                 "startdatetime", "amendeddate", "pricefrom", "priceto", "offerprice",
                 "currencyname", "shares", "dealtype"),
    "economic_event": ("econ_release", "country_code", "startdatetime", "period",
                       "after_release_actual", "consensus_estimate", "prior_release_actual",
                       "originally_reported_actual"),
}

T = TypeVar("T")


# -- the query ---------------------------------------------------------------------------------
def _eq_any(field: str, values: Sequence[str]) -> dict[str, Any]:
    return {"operator": "or", "operands": [{"operator": "eq", "operands": [field, value]}
                                           for value in values]}


def visualization_query(entity: str, start: str, end: str, *, offset: int = 0,
                        size: int = PAGE_SIZE, region: str | None = None,
                        symbols: Sequence[str] = ()) -> dict[str, Any]:
    """The JSON body of one page of a calendar: the days ``start`` to ``end`` (ISO,
    inclusive: the upper bound sent is the day after, exclusive), oldest first."""
    after_end = (date.fromisoformat(end) + timedelta(days=1)).isoformat()
    operands: list[dict[str, Any]] = [
        {"operator": "gte", "operands": ["startdatetime", start]},
        {"operator": "lt", "operands": ["startdatetime", after_end]}]
    if entity == "sp_earnings":
        operands.append({"operator": "eq", "operands": ["region", (region or "US").lower()]})
        operands.append(_eq_any("eventtype", ("EAD", "ERA")))
    if symbols:
        operands.append(_eq_any("ticker", symbols))
    return {"sortType": "ASC", "entityIdType": entity, "sortField": "startdatetime",
            "includeFields": list(INCLUDE_FIELDS[entity]),
            "query": {"operator": "and", "operands": operands},
            "offset": offset, "size": size}


# -- the answer ----------------------------------------------------------------------------------
def parse_table(payload: Any) -> list[dict[str, Any]]:
    """The answer's rows as ``{column id: value}``; an error envelope or a body without the
    table is an unusable answer (502)."""
    result = finance_result(payload, "calendar")
    documents = result.get("documents")
    if documents == []:
        return []
    if not isinstance(documents, list) or not isinstance(documents[0], dict):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance calendar answer has no documents")
    columns, rows = documents[0].get("columns"), documents[0].get("rows")
    if not isinstance(columns, list) or not isinstance(rows, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance calendar answer has no table")
    ids = [c.get("id") if isinstance(c, dict) else None for c in columns]
    return [{name: value for name, value in zip(ids, row, strict=False) if name}
            for row in rows if isinstance(row, list)]


def instant(value: Any) -> datetime | None:
    """A ``startdatetime``: an ISO 8601 instant (``2025-01-30T21:30:00.000Z``, or with an
    offset; a bare day is 00:00 UTC) or epoch milliseconds; None when unreadable."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and math.isfinite(value):
        seconds = value / 1000 if abs(value) > 1e11 else value
        try:
            return datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return None
    if not isinstance(value, str) or not value.strip():
        return None
    text = value.strip().replace("Z", "+00:00")
    try:
        found = datetime.fromisoformat(text)
    except ValueError:
        return None
    return found.replace(tzinfo=UTC) if found.tzinfo is None else found.astimezone(UTC)


def num(value: Any) -> float | None:
    """A number (or numeric text; ``{raw}`` objects too), finite; None otherwise."""
    if isinstance(value, dict):
        value = value.get("raw")
    if isinstance(value, str):
        try:
            value = float(value.replace(",", "").strip())
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def whole(value: Any) -> int | None:
    found = num(value)
    return int(found) if found is not None else None


def text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def ticker(value: Any) -> str | None:
    found = text(value)
    return normalize_symbol(found) if found is not None else None


def flag(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "false", "yes", "no"):
        return value.strip().lower() in ("true", "yes")
    return None


def _exchange_day(moment: datetime) -> str:
    """The event's day: an instant at 00:00 UTC is a bare day (Yahoo dates day events so),
    any other the exchange's day (America/New_York)."""
    if (moment.hour, moment.minute, moment.second, moment.microsecond) == (0, 0, 0, 0):
        return moment.date().isoformat()
    return moment.astimezone(EXCHANGE_ZONE).date().isoformat()


def _shares(value: float) -> float:
    """A share count of a split: an integer when it is one (``4``, not ``4.0``, as
    ``/v2/splits/{symbol}`` writes it)."""
    return int(value) if value.is_integer() else value


def earnings_row(item: dict[str, Any]) -> EarningsRow | None:
    symbol, moment = ticker(item.get("ticker")), instant(item.get("startdatetime"))
    if symbol is None or moment is None:
        return None
    timing = YAHOO_TIMINGS.get((text(item.get("startdatetimetype")) or "").upper(), "UNKNOWN")
    return EarningsRow(symbol=symbol, name=text(item.get("companyshortname")),
                       date=_exchange_day(moment), timing=timing,  # type: ignore[arg-type]
                       eps_estimate=num(item.get("epsestimate")),
                       eps_actual=num(item.get("epsactual")),
                       surprise_percent=num(item.get("epssurprisepct")),
                       market_cap=whole(item.get("intradaymarketcap")))


def split_row(item: dict[str, Any]) -> SplitRow | None:
    symbol, moment = ticker(item.get("ticker")), instant(item.get("startdatetime"))
    after, before = num(item.get("share_worth")), num(item.get("old_share_worth"))
    if symbol is None or moment is None or not after or not before or after < 0 \
            or before < 0:
        return None
    return SplitRow(symbol=symbol, date=_exchange_day(moment), numerator=_shares(after),
                    denominator=_shares(before), ratio=split_ratio(after, before),
                    optionable=flag(item.get("optionable")))


def ipo_row(item: dict[str, Any]) -> IpoRow | None:
    moment = instant(item.get("startdatetime"))
    if moment is None:
        return None
    status = text(item.get("dealtype"))
    return IpoRow(symbol=ticker(item.get("ticker")), name=text(item.get("companyshortname")),
                  exchange=text(item.get("exchange_short_name")), date=_exchange_day(moment),
                  price_low=num(item.get("pricefrom")), price_high=num(item.get("priceto")),
                  price=num(item.get("offerprice")), shares=whole(item.get("shares")),
                  status=status.upper() if status else None)


def economic_row(item: dict[str, Any]) -> EconomicRow | None:
    moment, event = instant(item.get("startdatetime")), text(item.get("econ_release"))
    if moment is None or event is None:
        return None
    country = text(item.get("country_code"))
    return EconomicRow(date=moment.date().isoformat(), time=moment.strftime("%H:%M"),
                       country=country.upper() if country else None, event=event,
                       period=text(item.get("period")),
                       actual=num(item.get("after_release_actual")),
                       forecast=num(item.get("consensus_estimate")),
                       prior=num(item.get("prior_release_actual")), unit=None,
                       importance=None)


def parse_rows(payload: Any, row: Callable[[dict[str, Any]], T | None]) -> list[T]:
    """One page's rows, those without what a row needs (a symbol, a date) left out."""
    return [found for found in map(row, parse_table(payload)) if found is not None]


# -- the fetchers ------------------------------------------------------------------------------
def _fetch(entity: str, row: Callable[[dict[str, Any]], T | None], start: str, end: str,
           region: str | None = None, symbols: Sequence[str] = ()) -> list[T]:
    """Every row of the window (up to MAX_PAGES pages), through the cache."""

    def fetch() -> list[T]:
        out: list[T] = []
        params = {"lang": "en-US", "region": "US"}
        for page in range(MAX_PAGES):
            query = visualization_query(entity, start, end, offset=page * PAGE_SIZE,
                                        region=region, symbols=symbols)
            payload = yahoo_provider().get_json(
                ENDPOINT, VISUALIZATION_URL, params, method="POST",
                data=json.dumps(query, separators=(",", ":")).encode(),
                headers={"Content-Type": "application/json"},
                not_found="Yahoo Finance has no calendar endpoint")
            table = parse_table(payload)
            out += [found for found in map(row, table) if found is not None]
            if len(table) < PAGE_SIZE:
                break
        return out

    key = {"entity": entity, "start": start, "end": end, "region": region or "",
           "symbols": ",".join(symbols)}
    return yahoo_provider().cached("visualization", key, fetch, POLICY, group=GROUP)


def earnings_calendar(start: str, end: str, region: str,
                      symbols: tuple[str, ...]) -> list[EarningsRow]:
    """The ``earnings_calendar`` fetcher."""
    return _fetch("sp_earnings", earnings_row, start, end, region, symbols)


def splits_calendar(start: str, end: str, symbols: tuple[str, ...]) -> list[SplitRow]:
    """The ``splits_calendar`` fetcher."""
    return _fetch("splits", split_row, start, end, None, symbols)


def ipo_calendar(start: str, end: str, symbols: tuple[str, ...]) -> list[IpoRow]:
    """The ``ipo_calendar`` fetcher."""
    return _fetch("ipo_info", ipo_row, start, end, None, symbols)


def economic_calendar(start: str, end: str) -> list[EconomicRow]:
    """The ``economic_calendar`` fetcher (every country; the service filters)."""
    return _fetch("economic_event", economic_row, start, end)
