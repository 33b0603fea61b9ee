"""Yahoo's screeners: the predefined ones and custom screens.

- ``movers`` (v1 actives, gainers, losers): one call per (screener, count) to
  ``/v1/finance/screener/predefined/saved?scrIds=DAY_GAINERS``; the parser keeps raw numbers
  (bare or ``{raw, fmt}``) so the service formats movers the same way as its own quotes
  rather than passing Yahoo's display strings through.
- ``predefined_screener`` (v2): the same call with ``formatted=true``, every ScreenerQuote
  member kept as ``{raw, fmt, longFmt}`` so the client may ask for either form.
- ``custom_screener`` (v2): ``POST /v1/finance/screener`` with the screen as a JSON query
  (``useRecordsResponse=true``: rows keyed by screen field names).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import number
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import finance_result, get_json, yahoo_provider
from marketdata.records.market import ScreenerQuote
from marketdata.records.members import member_names, members_of
from marketdata.records.screeners import (
    CUSTOM_DESCRIPTION,
    CUSTOM_TYPE,
    FIELD_MEMBERS,
    INCLUDE_FIELDS,
    CustomScreen,
    ScreenerResult,
    ScreenerRow,
)
from marketdata.records.screeners import (
    SCREENERS as PREDEFINED_SCREENERS,
)

SCREENER_URL = f"{yahoo.QUERY1}/v1/finance/screener/predefined/saved"
CUSTOM_SCREENER_URL = f"{yahoo.QUERY1}/v1/finance/screener"

# Mover list (:data:`marketdata.records.market.MOVER_LISTS`) -> Yahoo's predefined screener.
SCREENERS = {"actives": "MOST_ACTIVES", "gainers": "DAY_GAINERS", "losers": "DAY_LOSERS"}

# Only what a mover needs: Yahoo sends ~80 fields per row otherwise.
FIELDS = ("symbol", "shortName", "longName", "regularMarketPrice", "regularMarketChange",
          "regularMarketChangePercent", "regularMarketVolume", "priceHint")


def parse_screener_quote(item: Any) -> ScreenerQuote | None:
    """A row, or None when it lacks what a mover must show (symbol, price, change, percent)."""
    if not isinstance(item, dict) or not isinstance(item.get("symbol"), str):
        return None
    price = number(item.get("regularMarketPrice"))
    change = number(item.get("regularMarketChange"))
    percent = number(item.get("regularMarketChangePercent"))
    if price is None or change is None or percent is None:
        return None
    hint = number(item.get("priceHint"))
    volume = number(item.get("regularMarketVolume"))
    symbol = item["symbol"].strip().upper()
    return ScreenerQuote(
        symbol=symbol,
        name=item.get("longName") or item.get("shortName") or symbol,
        price=price, change=change, change_percent=percent,
        volume=int(volume) if volume is not None else None,
        price_hint=int(hint) if hint is not None else 2,
    )


def _result(payload: Any) -> dict[str, Any]:
    """``finance.result[0]`` of Yahoo's envelope, or the bare result object itself (some
    recorders and proxies strip the envelope)."""
    if isinstance(payload, dict) and "finance" in payload:
        return finance_result(payload, "screener")
    if isinstance(payload, dict) and isinstance(payload.get("quotes"), list):
        return payload
    raise UpstreamBadResponse("yahoo", "Yahoo Finance screener answer has no quotes")


def parse_screener(payload: Any) -> list[ScreenerQuote]:
    """Screener body -> rows in Yahoo's order (its sort is the screener's ranking).

    Rows without a price, change or percent are left out rather than shown half empty.
    """
    quotes = _result(payload).get("quotes")
    if not isinstance(quotes, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance screener answer has no quotes")
    return [row for row in (parse_screener_quote(item) for item in quotes) if row is not None]


def fetch_screener(scr_id: str, count: int) -> list[ScreenerQuote]:
    """Rows of one predefined screener, through the cache (one entry per id and count)."""

    def fetch() -> list[ScreenerQuote]:
        params = {"scrIds": scr_id, "count": count, "formatted": "false",
                  "fields": ",".join(FIELDS), "lang": "en-US", "region": "US"}
        try:
            payload = get_json("screener", SCREENER_URL, params,
                               not_found=f"Screener {scr_id} not found")
        except NotFound as exc:
            # The ids are ours and fixed: Yahoo not knowing one is an upstream fault, and
            # must not reach clients as a 404 the endpoint does not document.
            raise UpstreamBadResponse("yahoo", f"Yahoo Finance has no screener {scr_id}",
                                      404) from exc
        return parse_screener(payload)[:count]

    return yahoo_provider().cached("screener", {"scrIds": scr_id, "count": count}, fetch,
                                   "movers", group="movers")


def movers(mover_list: str, count: int) -> list[ScreenerQuote]:
    """The ``movers`` fetcher: at most ``count`` rows of a mover list (actives, gainers,
    losers), Yahoo's order (its ranking)."""
    return fetch_screener(SCREENERS[mover_list], count)


# -- v2: every ScreenerQuote member ------------------------------------------------------------
_NUMBER_KEYS = ("raw", "fmt", "longFmt")


def _number_value(value: Any) -> dict[str, Any] | None:
    """A number as ``{raw, fmt?, longFmt?}`` (a bare number is ``{raw}``), or None."""
    if isinstance(value, dict):
        raw = value.get("raw")
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            return None
        return {"raw": raw, **{k: value[k] for k in _NUMBER_KEYS[1:]
                               if isinstance(value.get(k), str)}}
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return {"raw": value}


def _text_value(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# A row's members, read under their names (Yahoo's); the text ones (the others are numbers).
_ROW = members_of(ScreenerRow)
_TEXT = frozenset(m.name for m in _ROW if "string" in m.schema.get("type", ()))


def screener_row(item: Any, renamed: dict[str, str] | None = None,
                 defaults: dict[str, str] | None = None) -> ScreenerRow | None:
    """One row with every member (None where Yahoo sends nothing usable), or None without a
    symbol. ``renamed``: screen field -> member, for a custom screen's records (a member
    Yahoo also sends under its quote name keeps that value)."""
    if not isinstance(item, dict):
        return None
    source = dict(item)
    for field, member in (renamed or {}).items():
        if source.get(member) is None and field in item:
            source[member] = item[field]
    row: dict[str, Any] = {
        m.attribute: (_text_value(source.get(m.name)) or (defaults or {}).get(m.name))
        if m.name in _TEXT else _number_value(source.get(m.name)) for m in _ROW}
    if row["symbol"] is None:
        return None
    row["symbol"] = row["symbol"].strip().upper()
    return ScreenerRow(**row)


def _int_or_none(value: Any) -> int | None:
    found = number(value)
    return int(found) if found is not None else None


def parse_predefined(payload: Any) -> ScreenerResult:
    """A predefined screener's body (Yahoo's envelope, or the bare result) -> its rows in
    Yahoo's order (the screener's ranking), name, description, update time and total."""
    result = _result(payload)
    quotes = result.get("quotes")
    if not isinstance(quotes, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance screener answer has no quotes")
    rows = [row for row in (screener_row(item) for item in quotes) if row is not None]
    kind = result.get("canonicalName") or result.get("type")
    return ScreenerResult(
        quotes=rows, type=kind if isinstance(kind, str) else "",
        description=_text_value(result.get("description")),
        last_updated=_int_or_none(result.get("lastUpdated")),
        total=_int_or_none(result.get("total")))


def fetch_predefined(screener: str, count: int) -> ScreenerResult:
    """The ``predefined_screener`` fetcher: at most ``count`` rows of a predefined screener
    (a name of :data:`marketdata.records.screeners.SCREENERS`), through the cache."""
    scr_id = PREDEFINED_SCREENERS[screener].scr_id

    def fetch() -> ScreenerResult:
        params = {"scrIds": scr_id, "count": count, "formatted": "true",
                  "fields": ",".join(member_names(ScreenerRow)), "lang": "en-US",
                  "region": "US"}
        try:
            payload = get_json("screener", SCREENER_URL, params,
                               not_found=f"Screener {scr_id} not found")
        except NotFound as exc:  # our ids are fixed: an unknown one is an upstream fault
            raise UpstreamBadResponse("yahoo", f"Yahoo Finance has no screener {scr_id}",
                                      404) from exc
        found = parse_predefined(payload)
        return ScreenerResult(found.quotes[:count], found.type, found.description,
                              found.last_updated, found.total)

    return yahoo_provider().cached("screener_v2", {"scrIds": scr_id, "count": count}, fetch,
                                   "movers", group="movers")


def custom_query(screen: CustomScreen) -> dict[str, Any]:
    """Yahoo's JSON body for a screen: the conditions ANDed, the quote type's columns."""
    return {
        "size": screen.size, "offset": screen.offset, "sortType": screen.sort_type,
        "sortField": screen.sort_field,
        "includeFields": list(INCLUDE_FIELDS[screen.quote_type]),
        "topOperator": "and",
        "query": {"operator": "and", "operands": [
            {"operator": f.operator, "operands": f.operands()} for f in screen.filters]},
        "quoteType": screen.quote_type,
    }


def parse_custom(payload: Any, quote_type: str) -> ScreenerResult:
    """A custom screen's body -> its rows (``records``, or ``quotes`` when Yahoo sends
    those) in Yahoo's order, and the total number of matches."""
    result = _result(payload)
    items = result.get("records")
    if not isinstance(items, list):
        items = result.get("quotes")
    if not isinstance(items, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance screener answer has no records")
    rows = []
    for item in items:
        row = screener_row(item, FIELD_MEMBERS, {"quoteType": quote_type})
        if row is not None:
            rows.append(replace(row, short_name=row.short_name or row.symbol))
    return ScreenerResult(quotes=rows, type=CUSTOM_TYPE, description=CUSTOM_DESCRIPTION,
                          last_updated=None, total=_int_or_none(result.get("total")))


def fetch_custom(screen: CustomScreen) -> ScreenerResult:
    """The ``custom_screener`` fetcher: one POST per distinct screen, cached by the screen
    (its canonical text, hashed in the key) for the movers' time."""

    def fetch() -> ScreenerResult:
        params = {"formatted": "true", "useRecordsResponse": "true", "lang": "en-US",
                  "region": "US"}
        body = json.dumps(custom_query(screen), separators=(",", ":")).encode()
        # A JSON POST through the same call path as every GET (crumb, retries, mapping).
        payload = yahoo_provider().get_json(
            "custom_screener", CUSTOM_SCREENER_URL, params, method="POST", data=body,
            headers={"Content-Type": "application/json"},
            not_found="Yahoo Finance has no screener endpoint")
        return parse_custom(payload, screen.quote_type)

    return yahoo_provider().cached("custom_screener", {"screen": screen.canonical()}, fetch,
                                   "movers", group="movers")
