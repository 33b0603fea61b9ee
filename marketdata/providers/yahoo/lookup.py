"""Yahoo v1 lookup (``/v1/finance/lookup``): instruments whose symbol or name matches a
query, optionally of one kind (the ``lookup`` fetcher behind ``/v2/lookup``).

The answer is ``{"finance": {"result": [{"start", "count", "total", "documents": [...]}],
"error": null}}``; each document carries ``symbol, shortName, quoteType`` (lower case:
``equity``), ``exchange``, ``industryName``, ``rank`` and, with ``fetchPricingData=true``,
``regularMarketPrice``, ``regularMarketChange`` and ``regularMarketPercentChange`` (percent
units; bare numbers with ``formatted=false``, ``{raw, fmt}`` objects otherwise: both are
read). No recording of this endpoint exists: the parser follows the shape clients of the
endpoint (yfinance's ``Lookup``) read, and reads the usual Yahoo spellings of the other
members (``longName``, ``exchDisp``, ``typeDisp``, ``sector``,
``regularMarketPreviousClose``, logo URLs) when they are sent.

The crumb is sent, as with every quote-like call: lookup answers without one today, but
pricing data is what Yahoo gates first.
"""

from __future__ import annotations

from typing import Any

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import integer, json_number, raw, rows
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.providers.yahoo.search import query_key
from marketdata.records.members import members_of
from marketdata.records.search import LookupAnswer, LookupQuote

LOOKUP_URL = f"{yahoo.QUERY1}/v1/finance/lookup"
_NUMBERS = ("regularMarketPrice", "regularMarketChange", "regularMarketChangePercent",
            "regularMarketPreviousClose")
# Our member -> Yahoo's names for it, first found wins.
_SOURCES: dict[str, tuple[str, ...]] = {
    "shortName": ("shortName", "shortname"),
    "longName": ("longName", "longname"),
    "industry": ("industryName", "industry"),
    "sector": ("sectorName", "sector"),
    "regularMarketChangePercent": ("regularMarketPercentChange",
                                   "regularMarketChangePercent"),
}


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _member(document: dict[str, Any], name: str) -> Any:
    for key in _SOURCES.get(name, (name,)):
        value = json_number(raw(document.get(key))) if name in _NUMBERS \
            else _string(document.get(key))
        if value is not None:
            return value
    return None


def parse_document(document: dict[str, Any]) -> LookupQuote | None:
    """One document -> :class:`LookupQuote` (its members read under Yahoo's names, None
    where absent; ``quoteType`` upper-cased as the other Yahoo answers write it); None
    without a symbol."""
    if _string(document.get("symbol")) is None:
        return None
    out = {m.attribute: _member(document, m.name) for m in members_of(LookupQuote)}
    if out["quote_type"]:
        out["quote_type"] = out["quote_type"].upper()
    return LookupQuote(**out)


def parse_lookup(payload: Any) -> LookupAnswer:
    """Lookup body -> :class:`LookupAnswer`, Yahoo's order kept. ``finance.error`` or a body
    without ``finance.result`` is an unusable answer; an empty result is no match."""
    finance = payload.get("finance") if isinstance(payload, dict) else None
    if not isinstance(finance, dict):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance lookup answer has no finance object")
    error = finance.get("error")
    if error:
        detail = error.get("description") if isinstance(error, dict) else None
        raise UpstreamBadResponse("yahoo", f"Yahoo Finance lookup answered an error: "
                                           f"{detail or error}")
    results = finance.get("result")
    if not isinstance(results, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance lookup answer has no result list")
    if not results or not isinstance(results[0], dict):
        return LookupAnswer([], 0, 0, total=0)
    result = results[0]
    documents = result.get("documents")
    if documents is not None and not isinstance(documents, list):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance lookup answer has no documents list")
    quotes = [q for q in map(parse_document, rows(documents)) if q]
    return LookupAnswer(quotes, integer(result.get("start")) or 0, len(quotes),
                        total=integer(result.get("total")))


def lookup(query: str, *, type_: str, count: int, lang: str, region: str) -> LookupAnswer:
    """The ``lookup`` fetcher: the first ``count`` instruments matching ``query`` (already
    normalised), of kind ``type_`` (``all`` for every kind), through the search cache (the
    key holds every parameter sent)."""
    params = {"query": query, "type": type_, "start": "0", "count": str(count),
              "formatted": "false", "fetchPricingData": "true", "lang": lang,
              "region": region}

    def fetch() -> LookupAnswer:
        try:
            payload = get_json("lookup", LOOKUP_URL, params)
        except NotFound as exc:  # a lookup without a match answers 200 with no documents
            raise UpstreamBadResponse("yahoo", "Yahoo Finance answered HTTP 404 for lookup",
                                      404) from exc
        return parse_lookup(payload)

    return yahoo_provider().cached(
        "lookup", {"q": query_key(query), "type": type_, "count": count, "lang": lang,
                   "region": region}, fetch, "search", group="search")
