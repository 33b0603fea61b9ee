"""v10 quoteSummary: per-symbol modules (full quotes, profiles, analysis, holders)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_error_description, yahoo_provider

# The modules a full quote is built from.
QUOTE_MODULES = ("assetProfile", "price", "summaryDetail", "defaultKeyStatistics",
                 "calendarEvents", "quoteUnadjustedPerformanceOverview")


def parse_quote_summary(payload: Any) -> dict[str, Any]:
    """quoteSummary body -> {module: body}. Module values keep Yahoo's shape: bare
    numbers or {raw, fmt} objects; read them with :func:`marketdata.formatting.raw`."""
    body = payload.get("quoteSummary") if isinstance(payload, dict) else None
    if not isinstance(body, dict):
        raise UpstreamBadResponse("yahoo", "Yahoo Finance quoteSummary answer has no "
                                  "'quoteSummary' object")
    results = body.get("result")
    if not results:
        raise NotFound(yahoo_error_description(payload) or "No data for symbol")
    return results[0] or {}


def fetch_quote_summary(symbol: str, modules: Sequence[str], policy: str = "quote_summary",
                        group: str = "quotes", *, formatted: bool = False,
                        lang: str | None = None, region: str | None = None) -> dict[str, Any]:
    """Modules for a validated symbol, through the cache.

    ``formatted`` asks Yahoo for ``{raw, fmt, longFmt}`` number objects (v2 quote's
    ``format``), ``lang``/``region`` for its translated texts. Each is part of the cache key
    only when set, so the default (bare numbers, Yahoo's own language) keeps its key.
    """
    module_list = ",".join(modules)
    params: dict[str, str] = {"modules": module_list,
                              "formatted": "true" if formatted else "false"}
    key: dict[str, str] = {"symbol": symbol, "modules": module_list}
    if formatted:
        key["formatted"] = "true"
    for name, value in (("lang", lang), ("region", region)):
        if value:
            params[name] = key[name] = value

    def fetch() -> dict[str, Any]:
        payload = get_json("quoteSummary",
                           f"{yahoo.QUERY2}/v10/finance/quoteSummary/{quote(symbol, safe='')}",
                           params, not_found=f"Symbol {symbol} not found")
        return parse_quote_summary(payload)

    return yahoo_provider().cached("quoteSummary", key, fetch, policy, group=group)


def fetch_module(symbol: str, module: str, policy: str, group: str) -> dict[str, Any]:
    """One module's body for a validated symbol ({} when Yahoo left it out); NotFound when
    Yahoo has no such symbol or no data for the module."""
    body = fetch_quote_summary(symbol, (module,), policy=policy, group=group).get(module)
    return body if isinstance(body, dict) else {}
