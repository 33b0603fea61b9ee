"""Sectors: the eleven sectors as v1 MarketSector / MarketSectorDetails objects; v2 whole
sectors and industries.

All three endpoints read the same per-sector record (one cached upstream call per sector);
the sector of a symbol comes from its company profile.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from marketdata import formatting as fmt
from marketdata.capabilities import market, sectors
from marketdata.concurrency import gather_partial
from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.records.market import SECTOR_KEYS, SECTOR_NAMES, SectorData
from marketdata.records.members import as_json, member
from marketdata.records.quotes import present_value
from marketdata.records.sectors import sector_key

# The spec's enum order (alphabetical) for validation messages and docs.
SECTOR_CHOICES = tuple(sorted(SECTOR_KEYS))
TOP_INDUSTRIES = 10
TOP_COMPANIES = 10


def _percent(value: float | None, sign: bool = True) -> str:
    """Fractions as '+1.23%'; a value Yahoo left out is an empty string."""
    return fmt.percent(value, fraction=True, sign=sign) or ""


@dataclass(frozen=True)
class MarketSector:
    """The v1 MarketSector: the sector index's returns as v1's signed percent text."""

    sector: str = member()
    day_return: str = member("e.g. +0.45%")
    ytd_return: str = member()
    year_return: str = member()
    three_year_return: str = member()
    five_year_return: str = member()

    @classmethod
    def returns(cls, data: SectorData) -> tuple[str, str, str, str, str, str]:
        """The members of a MarketSector, in its order."""
        return (data.name, _percent(data.day_change), _percent(data.ytd_change),
                _percent(data.one_year_change), _percent(data.three_year_change),
                _percent(data.five_year_change))

    @classmethod
    def of(cls, data: SectorData) -> MarketSector:
        return cls(*cls.returns(data))


@dataclass(frozen=True)
class MarketSectorDetails(MarketSector):
    """The v1 MarketSectorDetails: a MarketSector, its size and its largest members."""

    market_cap: str = member("e.g. 20.2T")
    market_weight: str = member("Share of the whole market, e.g. 29.28%")
    industries: int = member("Number of industries in the sector")
    companies: int = member("Number of companies in the sector")
    top_industries: list[str] = member("Up to 10 'Industry: weight%' strings, largest weight "
                                       "first")
    top_companies: list[str] = member("Up to 10 symbols, largest weight first")

    @classmethod
    def of(cls, data: SectorData) -> MarketSectorDetails:
        return cls(*cls.returns(data), fmt.compact(data.market_cap) or "",
                   _percent(data.market_weight, sign=False), data.industries_count,
                   data.companies_count,
                   [f"{i.name}: {_percent(i.weight, sign=False) or 'N/A'}"
                    for i in data.industries[:TOP_INDUSTRIES]],
                   data.top_companies[:TOP_COMPANIES])


def all_sectors() -> list[MarketSector]:
    """Every sector, fetched concurrently, in Yahoo's order (largest first).

    A sector whose upstream call fails is left out (and logged) so one bad sector does not
    hide ten good ones; when every sector fails the most telling upstream error is raised.
    """
    fetched = gather_partial(market.sector, list(SECTOR_NAMES), what="sector")
    fetched.raise_if_empty(lambda: UpstreamBadResponse("yahoo", "No sector data from Yahoo "
                                                       "Finance"))
    return [MarketSector.of(data) for _, data in fetched.values]


def details_for(name: str) -> MarketSectorDetails:
    """MarketSectorDetails for a display name already validated against SECTOR_CHOICES."""
    return MarketSectorDetails.of(market.sector(SECTOR_KEYS[name]))


def sector_for_symbol(symbol: str) -> MarketSector:
    """MarketSector of a validated symbol's sector; 404 when it has none (ETF, index...)."""
    key = market.sector_key_of(symbol)
    if key is None:
        raise NotFound(f"Sector for {symbol} not found.")
    return MarketSector.of(market.sector(key))


# -- v2: a whole sector or industry ---------------------------------------------------------
def v2_sector(sector: str, lang: str | None, value_format: str) -> dict[str, Any]:
    """A sector (a key or alias validated against the path enum) with every member
    (:class:`~marketdata.records.sectors.SectorProfile`'s), numbers in the client's
    ``format``."""
    return present_value(as_json(sectors.sector_profile(sector_key(sector), lang)),
                         value_format)


def v2_industry(slug: str, lang: str | None, value_format: str) -> dict[str, Any]:
    """An industry (a slug validated against the path enum) with every member
    (:class:`~marketdata.records.sectors.IndustryProfile`'s), numbers in the client's
    ``format``."""
    return present_value(as_json(sectors.industry_profile(slug, lang)), value_format)
