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

from typing import Any, TypeVar, cast
from urllib.parse import quote

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.formatting import integer, mapping, number, rows, text
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json, yahoo_provider
from marketdata.providers.yahoo.full_quote import usable_value
from marketdata.providers.yahoo.quote_summary import fetch_quote_summary
from marketdata.records.market import (
    SECTOR_KEYS,
    SECTOR_NAMES,
    Industry,
    SectorData,
)
from marketdata.records.members import members_of
from marketdata.records.quotes import NUMBER as NUMBER_KIND
from marketdata.records.sectors import (
    INDUSTRIES,
    Fund,
    GrowthCompany,
    IndustryCompany,
    IndustryOverview,
    IndustryProfile,
    IndustryReport,
    NamedPerformance,
    Performance,
    PerformingCompany,
    SectorCompany,
    SectorIndustry,
    SectorOverview,
    SectorProfile,
    SectorReport,
    industry_sector,
)

# The query Yahoo's own sector pages send.
SECTOR_PARAMS = {"formatted": "true", "withReturns": "true", "lang": "en-US", "region": "US"}
DEFAULT_LANG = SECTOR_PARAMS["lang"]

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


# -- v2: the whole sector, and industries ---------------------------------------------------
# The v2 answers keep every member Yahoo sends, under the v2 names (see
# marketdata.records.sectors); numbers stay in Yahoo's {raw, fmt} form so the client's
# ``format`` applies after the cache. Industries: ``/v1/finance/industries/{slug}``, whose
# ``data`` is shaped like a sector's (name, key, symbol, overview, performance,
# performanceOverviewBenchmark, topCompanies, researchReports) plus sectorName/sectorKey,
# topPerformingCompanies and topGrowthCompanies.
_WIRE_NAMES = {"dayChangePercent": ("regMarketChangePercent", "dayChangePercent"),
               "headline": ("headHtml", "headline"), "title": ("reportTitle", "title")}
_STRINGS = {"symbol", "name", "key", "description", "rating", "id", "headline", "provider",
            "reportDate", "reportTitle", "reportType", "targetPriceStatus", "investmentRating",
            "title"}


def _member(row: dict[str, Any], name: str) -> Any:
    """One member of a Yahoo object by its v2 name (Yahoo's wire name first): strings
    cleaned, numbers kept as sent when they are numbers, else None."""
    value = next((row[wire] for wire in _WIRE_NAMES.get(name, (name,)) if wire in row), None)
    if name in _STRINGS:
        return text(value)
    return usable_value(NUMBER_KIND, value)


R = TypeVar("R")


def _object(value: Any, record: type[R]) -> R | None:
    """A Yahoo object as ``record``, its members read by their v2 names; None when it is no
    object."""
    if not isinstance(value, dict):
        return None
    declared = members_of(cast(type, record))
    return record(**{m.attribute: _member(value, m.name) for m in declared})


def _list(value: Any, record: type[R], *, keyed: str | None = "symbol") -> list[R]:
    """The rows of a Yahoo list as records; a row without its ``keyed`` member (a
    company without a symbol, the industries' "All Industries" aggregate without a key) is
    left out."""
    out = [_object(row, record) for row in rows(value)]
    return [row for row in out if row is not None and (keyed is None or getattr(row, keyed))]


def _data(payload: Any, what: str) -> dict[str, Any]:
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, dict) or not data:
        raise UpstreamBadResponse("yahoo", f"Yahoo Finance {what} answer has no 'data' object")
    return data


def parse_sector_profile(payload: Any, key: str) -> SectorProfile:
    """Sector JSON -> the v2 sector (:class:`SectorProfile`); a body without ``data`` is a
    502."""
    data = _data(payload, f"sector '{key}'")
    benchmark = data.get("performanceOverviewBenchmark")
    return SectorProfile(
        name=text(data.get("name")) or SECTOR_NAMES.get(key), symbol=text(data.get("symbol")),
        key=text(data.get("key")) or key,
        overview=_object(data.get("overview"), SectorOverview),
        performance=_object(data.get("performance"), Performance),
        benchmark=_object(benchmark, Performance),
        benchmark_name=text(benchmark.get("name")) if isinstance(benchmark, dict) else None,
        top_companies=_list(data.get("topCompanies"), SectorCompany),
        top_etfs=_list(data.get("topETFs"), Fund),
        top_mutual_funds=_list(data.get("topMutualFunds"), Fund),
        industries=_list(data.get("industries"), SectorIndustry, keyed="key"),
        research_reports=_list(data.get("researchReports"), SectorReport, keyed=None),
    )


def parse_industry(payload: Any, slug: str) -> IndustryProfile:
    """Industry JSON -> the v2 industry (:class:`IndustryProfile`); a body without ``data``
    is a 502. Yahoo names the sector; the table's is used where it does not."""
    data = _data(payload, f"industry '{slug}'")
    sector_key, sector_name = industry_sector(slug)
    return IndustryProfile(
        name=text(data.get("name")) or INDUSTRIES[slug][0],
        key=text(data.get("key")) or slug, symbol=text(data.get("symbol")),
        sector_name=text(data.get("sectorName")) or sector_name,
        sector_key=text(data.get("sectorKey")) or sector_key,
        overview=_object(data.get("overview"), IndustryOverview),
        performance=_object(data.get("performance"), Performance),
        benchmark=_object(data.get("performanceOverviewBenchmark"), NamedPerformance),
        top_companies=_list(data.get("topCompanies"), IndustryCompany),
        top_performing_companies=_list(data.get("topPerformingCompanies"), PerformingCompany),
        top_growth_companies=_list(data.get("topGrowthCompanies"), GrowthCompany),
        research_reports=_list(data.get("researchReports"), IndustryReport, keyed=None),
    )


def _v2_params(lang: str | None) -> dict[str, str]:
    # Yahoo's own pages send withReturns=true: the lists then carry their ytdReturn.
    return {**SECTOR_PARAMS, "lang": lang or DEFAULT_LANG}


def sector_profile(key: str, lang: str | None = None) -> SectorProfile:
    """The ``sector_profiles`` fetcher: one sector by key (one of SECTOR_NAMES), texts in
    ``lang`` (``en-US`` when None), through the cache (policy ``sectors``); NotFound when
    Yahoo does not know the key."""
    if key not in SECTOR_NAMES:
        raise NotFound(f"Unknown sector '{key}'")
    language = lang or DEFAULT_LANG

    def fetch() -> SectorProfile:
        return parse_sector_profile(get_json(
            "sector", f"{yahoo.QUERY1}/v1/finance/sectors/{quote(key, safe='')}",
            _v2_params(language), not_found=f"Yahoo Finance has no sector '{key}'"), key)

    return yahoo_provider().cached("sector_profile", {"key": key, "lang": language}, fetch,
                                   "sectors", group="sectors")


def industry_profile(slug: str, lang: str | None = None) -> IndustryProfile:
    """The ``industries`` fetcher: one industry by slug (one of INDUSTRIES), texts in
    ``lang`` (``en-US`` when None), through the cache (policy ``sectors``); NotFound when
    Yahoo does not know the slug."""
    if slug not in INDUSTRIES:
        raise NotFound(f"Unknown industry '{slug}'")
    language = lang or DEFAULT_LANG

    def fetch() -> IndustryProfile:
        return parse_industry(get_json(
            "industry", f"{yahoo.QUERY1}/v1/finance/industries/{quote(slug, safe='')}",
            _v2_params(language), not_found=f"Yahoo Finance has no industry '{slug}'"), slug)

    return yahoo_provider().cached("industry", {"slug": slug, "lang": language}, fetch,
                                   "sectors", group="sectors")
