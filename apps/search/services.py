"""Security search: the primary provider (Algolia), with Yahoo Finance as the automatic
fallback when the primary fails or the caller asks for the secondary provider (the
``security_search`` capability, :mod:`marketdata.capabilities.search`); the v2 search and
lookup (Yahoo's, through the ``search`` and ``lookup`` capabilities, the lookup completed
from the ``v2_quotes`` and ``logos`` capabilities)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from apps.quotes.serializers import region_of
from marketdata.capabilities import capability, quotes, search
from marketdata.concurrency import run_parallel
from marketdata.errors import MarketDataError
from marketdata.formatting import json_number, raw, text
from marketdata.logs import get_logger
from marketdata.records.quotes import GqlQuote, LogoUrls
from marketdata.records.search import LookupAnswer, LookupQuote, SearchAnswer, Security
from marketdata.symbols import normalize_symbol

log = get_logger("apps.search")

SECONDARY = capability("security_search").sources[-1].name


def search_securities(query: str, hits: int, security_type: str | None = None,
                      use_primary: bool = True) -> tuple[list[Security], str]:
    """(results, provider that answered). Never more than ``hits`` results; an empty list
    when nothing matches. When both providers fail, the secondary's error is raised."""
    if not use_primary:
        log.info("secondary search provider requested", provider=SECONDARY)
    matches = search.securities(query, hits, security_type, use_primary=use_primary)
    return matches.securities, matches.source


# -- v2 -------------------------------------------------------------------------------------------
DEFAULT_LANG, DEFAULT_REGION = "en-US", "US"
# Lookup members a quote batch fills when the lookup left them null (the GqlQuote's members
# of the same attribute names).
FILLED_FROM_QUOTE = ("long_name", "regular_market_change_percent",
                     "regular_market_previous_close")


def yahoo_locale(lang: str | None, region: str | None) -> tuple[str, str]:
    """(lang, region) for Yahoo: ``lang`` else en-US; ``region`` (``UK`` is ``GB``), else the
    region of ``lang``, else US."""
    if region == "UK":
        region = "GB"
    return lang or DEFAULT_LANG, region or region_of(lang) or DEFAULT_REGION


def v2_search(q: dict[str, Any]) -> SearchAnswer:
    """The search of a validated ``/v2/search`` query (every flag reaches the upstream and
    its cache key)."""
    lang, region = yahoo_locale(q.get("lang"), q.get("region"))
    return search.search(q["q"], quotes=q["quotes"], news=q["news"], fuzzy=q["fuzzy"],
                         logo=q["logo"], research=q["research"], cultural=q["cultural"],
                         lang=lang, region=region)


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
                region: str) -> tuple[dict[str, GqlQuote], dict[str, LogoUrls]]:
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


def _completed(quote: LookupQuote, record: GqlQuote | None,
               logos: LogoUrls | None) -> LookupQuote:
    """``quote`` with what the quote batch has where the lookup left a member null, and
    its logos when looked up."""
    changes: dict[str, Any] = {}
    if record is not None:
        if quote.long_name is None:
            changes["long_name"] = text(record.long_name)
        for name in FILLED_FROM_QUOTE[1:]:
            if getattr(quote, name) is None:
                changes[name] = json_number(raw(getattr(record, name)))
    if logos is not None:
        changes.update(logo_url=logos.logo_url, company_logo_url=logos.company_logo_url)
    return replace(quote, **changes) if changes else quote


def v2_lookup(q: dict[str, Any]) -> LookupAnswer:
    """The lookup of a validated ``/v2/lookup`` query.

    Yahoo's lookup leaves ``longName`` and the previous close out (and sometimes the
    change): one quote batch fills what is null, and with ``logo`` the logo lookup runs
    beside it. Either failing leaves its members null (logged), never fails the lookup.
    """
    lang, region = yahoo_locale(q.get("lang"), q.get("region"))
    answer = search.lookup(q["q"], type_=q["type"], count=q["count"], lang=lang, region=region)
    found = [(normalize_symbol(str(quote.symbol)), quote) for quote in answer.quotes]
    missing = list(dict.fromkeys(s for s, quote in found if s and any(
        getattr(quote, name) is None for name in FILLED_FROM_QUOTE)))
    logo_symbols = list(dict.fromkeys(s for s, _ in found if s)) if q["logo"] else []
    records, logos = _completion(missing, logo_symbols, lang, region)
    return replace(answer, quotes=[
        _completed(quote, records.get(symbol) if symbol else None,
                   logos.get(symbol) if symbol else None) for symbol, quote in found])
