"""Sectors: the eleven Yahoo sectors as v1 MarketSector / MarketSectorDetails objects.

All three endpoints read the same per-sector JSON (one cached upstream call per sector);
the sector of a symbol comes from its quoteSummary assetProfile.
"""

from __future__ import annotations

from typing import Any

from marketdata import formatting as fmt
from marketdata.concurrency import gather_partial
from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers.yahoo.quote_summary import fetch_quote_summary
from marketdata.providers.yahoo.sectors import (
    SECTOR_KEYS,
    SECTOR_NAMES,
    SectorData,
    fetch_sector,
)

# The spec's enum order (alphabetical) for validation messages and docs.
SECTOR_CHOICES = tuple(sorted(SECTOR_KEYS))
TOP_INDUSTRIES = 10
TOP_COMPANIES = 10
# quoteType is asked for too: a known symbol always has it, so a 404 means "unknown symbol"
# and a known one without a sector (index, ETF, crypto) gets the "no sector" answer.
_PROFILE_MODULES = ("assetProfile", "quoteType")


def _percent(value: float | None, sign: bool = True) -> str:
    """Fractions as '+1.23%'; a value Yahoo left out is an empty string."""
    return fmt.percent(value, fraction=True, sign=sign) or ""


def market_sector(data: SectorData) -> dict[str, Any]:
    return {
        "sector": data.name,
        "dayReturn": _percent(data.day_change),
        "ytdReturn": _percent(data.ytd_change),
        "yearReturn": _percent(data.one_year_change),
        "threeYearReturn": _percent(data.three_year_change),
        "fiveYearReturn": _percent(data.five_year_change),
    }


def sector_details(data: SectorData) -> dict[str, Any]:
    return {
        **market_sector(data),
        "marketCap": fmt.compact(data.market_cap) or "",
        "marketWeight": _percent(data.market_weight, sign=False),
        "industries": data.industries_count,
        "companies": data.companies_count,
        "topIndustries": [f"{i.name}: {_percent(i.weight, sign=False) or 'N/A'}"
                          for i in data.industries[:TOP_INDUSTRIES]],
        "topCompanies": data.top_companies[:TOP_COMPANIES],
    }


def all_sectors() -> list[dict[str, Any]]:
    """Every sector, fetched concurrently, in Yahoo's order (largest first).

    A sector whose upstream call fails is left out (and logged) so one bad sector does not
    hide ten good ones; when every sector fails the most telling upstream error is raised.
    """
    fetched = gather_partial(fetch_sector, list(SECTOR_NAMES), what="sector")
    fetched.raise_if_empty(lambda: UpstreamBadResponse("yahoo", "No sector data from Yahoo "
                                                       "Finance"))
    return [market_sector(data) for _, data in fetched.values]


def details_for(name: str) -> dict[str, Any]:
    """MarketSectorDetails for a display name already validated against SECTOR_CHOICES."""
    return sector_details(fetch_sector(SECTOR_KEYS[name]))


def sector_key_of(profile: dict[str, Any]) -> str | None:
    """The Yahoo sector key of an assetProfile: by display name, else by its sectorKey."""
    name = profile.get("sector")
    if isinstance(name, str) and name in SECTOR_KEYS:
        return SECTOR_KEYS[name]
    key = profile.get("sectorKey")
    return key if isinstance(key, str) and key in SECTOR_NAMES else None


def sector_for_symbol(symbol: str) -> dict[str, Any]:
    """MarketSector of a validated symbol's sector; 404 when it has none (ETF, index...)."""
    modules = fetch_quote_summary(symbol, _PROFILE_MODULES, policy="sectors", group="sectors")
    profile = modules.get("assetProfile")
    key = sector_key_of(profile) if isinstance(profile, dict) else None
    if key is None:
        raise NotFound(f"Sector for {symbol} not found.")
    return market_sector(fetch_sector(key))
