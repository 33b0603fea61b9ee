"""Security search: the primary provider (Algolia), with Yahoo Finance as the automatic
fallback when the primary fails or the caller asks for the secondary provider (the
``security_search`` capability, :mod:`marketdata.capabilities.search`); the v2 search and
lookup (Yahoo's, through the ``search`` and ``lookup`` capabilities, the lookup completed
from the ``v2_quotes`` and ``logos`` capabilities)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from apps.quotes.serializers import region_of
from marketdata.capabilities import capability, quotes, search
from marketdata.concurrency import run_parallel
from marketdata.errors import MarketDataError
from marketdata.formatting import json_number, raw, text
from marketdata.logs import get_logger
from marketdata.records.quotes import GqlQuoteRecord, LogoUrls
from marketdata.symbols import normalize_symbol

log = get_logger("apps.search")

SECONDARY = capability("security_search").sources[-1].name


def search_securities(query: str, hits: int, security_type: str | None = None,
                      use_primary: bool = True) -> tuple[list[dict[str, str]], str]:
    """(results, provider that answered). Never more than ``hits`` results; an empty list
    when nothing matches. When both providers fail, the secondary's error is raised."""
    if not use_primary:
        log.info("secondary search provider requested", provider=SECONDARY)
    matches = search.securities(query, hits, security_type, use_primary=use_primary)
    return ([{"name": s.name, "symbol": s.symbol, "exchange": s.exchange, "type": s.type}
             for s in matches.securities], matches.source)


# -- v2 -------------------------------------------------------------------------------------------
SEARCH_MEMBERS = ("count", "quotes", "news", "researchReports", "totalTime")
LOOKUP_RESPONSE_MEMBERS = ("quotes", "start", "count")
DEFAULT_LANG, DEFAULT_REGION = "en-US", "US"
# Lookup members a quote batch fills when the lookup left them null (same names there).
FILLED_FROM_QUOTE = ("longName", "regularMarketChangePercent", "regularMarketPreviousClose")


def yahoo_locale(lang: str | None, region: str | None) -> tuple[str, str]:
    """(lang, region) for Yahoo: ``lang`` else en-US; ``region`` (``UK`` is ``GB``), else the
    region of ``lang``, else US."""
    if region == "UK":
        region = "GB"
    return lang or DEFAULT_LANG, region or region_of(lang) or DEFAULT_REGION


def v2_search(q: dict[str, Any]) -> dict[str, Any]:
    """``{count, quotes, news, researchReports, totalTime}`` for a validated ``/v2/search``
    query (every flag reaches the upstream and its cache key)."""
    lang, region = yahoo_locale(q.get("lang"), q.get("region"))
    answer = search.search(q["q"], quotes=q["quotes"], news=q["news"], fuzzy=q["fuzzy"],
                           logo=q["logo"], research=q["research"], cultural=q["cultural"],
                           lang=lang, region=region)
    return {"count": answer.count, "quotes": answer.quotes, "news": answer.news,
            "researchReports": answer.research_reports, "totalTime": answer.total_time}


def _or_nothing(what: str, fetch: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
    """``fetch`` whose failure is logged and means "nothing found", never an error: the
    lookup's own answer stands without the completion."""
    def call() -> dict[str, Any]:
        try:
            return fetch()
        except MarketDataError as exc:
            log.warning(f"lookup {what} failed", reason=exc.detail, error=type(exc).__name__)
            return {}
    return call


def _completion(missing: list[str], logo_symbols: list[str], lang: str,
                region: str) -> tuple[dict[str, GqlQuoteRecord], dict[str, LogoUrls]]:
    """One quote batch for the symbols with missing members, and the logos of
    ``logo_symbols`` (none when empty), concurrently."""
    calls: list[Callable[[], dict[str, Any]]] = []
    if missing:
        calls.append(_or_nothing("quote batch", lambda: quotes.v2_quotes(
            missing, lang=lang, region=region)))
    if logo_symbols:
        calls.append(_or_nothing("logo lookup", lambda: quotes.logos(logo_symbols)))
    found = [r if isinstance(r, dict) else {} for r in run_parallel(lambda c: c(), calls)]
    return (found[0] if missing else {}), (found[-1] if logo_symbols else {})


def _filled(row: dict[str, Any], record: GqlQuoteRecord | None) -> dict[str, Any]:
    if record is None:
        return row
    out = dict(row)
    if out["longName"] is None:
        out["longName"] = text(record.values.get("longName"))
    for name in FILLED_FROM_QUOTE[1:]:
        if out[name] is None:
            out[name] = json_number(raw(record.values.get(name)))
    return out


def v2_lookup(q: dict[str, Any]) -> dict[str, Any]:
    """``{quotes, start, count}`` for a validated ``/v2/lookup`` query.

    Yahoo's lookup leaves ``longName`` and the previous close out (and sometimes the
    change): one quote batch fills what is null, and with ``logo`` the logo lookup runs
    beside it. Either failing leaves its members null (logged), never fails the lookup.
    """
    lang, region = yahoo_locale(q.get("lang"), q.get("region"))
    answer = search.lookup(q["q"], type_=q["type"], count=q["count"], lang=lang, region=region)
    rows = [(normalize_symbol(str(row["symbol"])), row) for row in answer.quotes]
    missing = list(dict.fromkeys(s for s, row in rows if s and any(
        row[name] is None for name in FILLED_FROM_QUOTE)))
    logo_symbols = list(dict.fromkeys(s for s, _ in rows if s)) if q["logo"] else []
    records, logos = _completion(missing, logo_symbols, lang, region)
    out = []
    for symbol, row in rows:
        filled = _filled(row, records.get(symbol) if symbol else None)
        found = logos.get(symbol) if symbol else None
        if found is not None:
            filled["logoUrl"] = found.logo_url
            filled["companyLogoUrl"] = found.company_logo_url
        out.append(filled)
    return {"quotes": out, "start": answer.start, "count": len(out)}
