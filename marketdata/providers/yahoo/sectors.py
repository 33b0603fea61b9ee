"""v1 finance/sectors/{key}: one sector's overview, performance, industries, top companies
(the ``sectors`` fetcher), and a symbol's sector from its company profile (the
``symbol_sector`` fetcher).

Why the JSON API and not the sector web pages: the JSON carries every field the v1 sector
resources need (returns, market cap and weight, counts, industry weights, largest
companies) and does not break when Yahoo restyles its pages.

Wire shape (``formatted=true``): ``{"data": {key, name, symbol, overview: {companiesCount,
industriesCount (bare ints), marketCap, marketWeight, employeeCount ({raw, fmt})},
performance: {regMarketChangePercent, ytdChangePercent, oneYearChangePercent,
threeYearChangePercent, fiveYearChangePercent} (fractions), performanceOverviewBenchmark,
topCompanies: [{symbol, name, marketWeight, ...}], industries: [{key, name, symbol,
marketWeight, ...}], topETFs, topMutualFunds, researchReports}}``. The first industries row
is Yahoo's "All Industries" aggregate (no key, weight 1). Numbers are read with
:func:`marketdata.formatting.raw`, so bare numbers work too.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import integer, mapping, number, rows
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.providers.yahoo.quote_summary import fetch_quote_summary
from marketdata.records.market import (
    SECTOR_KEYS,
    SECTOR_NAMES,
    Industry,
    SectorData,
)

# The query Yahoo's own sector pages send.
SECTOR_PARAMS = {"formatted": "true", "withReturns": "true", "lang": "en-US", "region": "US"}

_ALL_INDUSTRIES = "All Industries"
# Yahoo's wire name first; finance-query's re-serialised bodies call it dayChangePercent.
_DAY_CHANGE = ("regMarketChangePercent", "dayChangePercent")
# quoteType is asked for too: a known symbol always has it, so a 404 means "unknown symbol"
# and a known one without a sector (index, ETF, crypto) has no sector key.
_PROFILE_MODULES = ("assetProfile", "quoteType")


def _by_weight(rows: list[tuple[Any, float | None]]) -> list[Any]:
    """Items ordered by weight, largest first; rows without a weight keep their order last."""
    ordered = sorted(enumerate(rows), key=lambda r: (r[1][1] is None, -(r[1][1] or 0), r[0]))
    return [item for _, (item, _) in ordered]


def parse_sector(payload: Any, key: str) -> SectorData:
    """Sector JSON -> SectorData. A body without ``data.performance`` is unusable (502)."""
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, dict) or not isinstance(data.get("performance"), dict):
        raise UpstreamBadResponse("yahoo", f"Yahoo Finance sector answer for '{key}' has no "
                                  "'data.performance' object")
    overview = mapping(data.get("overview"))
    performance = data["performance"]
    day = next((performance[k] for k in _DAY_CHANGE if k in performance), None)

    industries: list[tuple[Industry, float | None]] = []
    for row in rows(data.get("industries")):
        name = row.get("name")
        if not isinstance(name, str) or not name or name == _ALL_INDUSTRIES:
            continue
        weight = number(row.get("marketWeight"))
        industries.append((Industry(name, weight), weight))
    companies = [(str(row["symbol"]).upper(), number(row.get("marketWeight")))
                 for row in rows(data.get("topCompanies"))
                 if isinstance(row.get("symbol"), str) and row["symbol"]]

    industries_count = integer(overview.get("industriesCount"))
    return SectorData(
        key=key,
        name=SECTOR_NAMES.get(key) or str(data.get("name") or key),
        day_change=number(day),
        ytd_change=number(performance.get("ytdChangePercent")),
        one_year_change=number(performance.get("oneYearChangePercent")),
        three_year_change=number(performance.get("threeYearChangePercent")),
        five_year_change=number(performance.get("fiveYearChangePercent")),
        market_cap=number(overview.get("marketCap")),
        market_weight=number(overview.get("marketWeight")),
        industries_count=industries_count if industries_count is not None
        else len(industries),
        companies_count=integer(overview.get("companiesCount")) or 0,
        industries=_by_weight(industries),
        top_companies=list(dict.fromkeys(_by_weight(companies))),
    )


def fetch_sector(key: str) -> SectorData:
    """The ``sectors`` fetcher: one sector by key (one of SECTOR_NAMES), through the cache."""
    if key not in SECTOR_NAMES:
        raise NotFound(f"Unknown sector '{key}'")

    def fetch() -> SectorData:
        try:
            payload = get_json("sector",
                               f"{yahoo.QUERY1}/v1/finance/sectors/{quote(key, safe='')}",
                               SECTOR_PARAMS)
        except NotFound as exc:
            # The eleven keys are fixed: Yahoo not knowing one is its failure, not ours.
            raise UpstreamBadResponse("yahoo", f"Yahoo Finance has no sector '{key}'",
                                      404) from exc
        return parse_sector(payload, key)

    return yahoo_provider().cached("sector", {"key": key}, fetch, "sectors", group="sectors")


def sector_key_of(profile: dict[str, Any]) -> str | None:
    """The sector key of an assetProfile: by display name, else by its sectorKey."""
    name = profile.get("sector")
    if isinstance(name, str) and name in SECTOR_KEYS:
        return SECTOR_KEYS[name]
    key = profile.get("sectorKey")
    return key if isinstance(key, str) and key in SECTOR_NAMES else None


def sector_key_of_symbol(symbol: str) -> str | None:
    """The ``symbol_sector`` fetcher: the sector key of a validated symbol's company profile,
    None when it has none (ETF, index, currency...); NotFound when Yahoo has no such
    symbol."""
    modules = fetch_quote_summary(symbol, _PROFILE_MODULES, policy="sectors", group="sectors")
    profile = modules.get("assetProfile")
    return sector_key_of(profile) if isinstance(profile, dict) else None
