"""Sectors and industries as the v2 routes name them: the sector keys and their aliases,
the industry slugs with the sector each belongs to, and the records of a sector or industry
answer (they declare its members), which the provider fills.

The industry table is the list of slugs the v2 interface accepts: FinanceQuery's 148, which
follow Yahoo Finance's Morningstar-based classification, plus a few older or fund
categories such as ``coal`` and ``exchange-traded-fund``, and the three Yahoo industries
that list leaves out (``airlines``, ``advertising-agencies``, ``packaging-containers``), so
every industry a sector answer names is a path; the sector of each is Yahoo's
where Yahoo has the industry, else the closest sector (funds and shells: Financial
Services). A slug outside the table is refused before any upstream call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from marketdata.records.market import SECTOR_NAMES, formatted_number
from marketdata.records.members import member

# The v2 sector keys, in the interface's order, and the shorter names it also accepts.
SECTORS: tuple[str, ...] = (
    "technology", "financial-services", "consumer-cyclical", "communication-services",
    "healthcare", "industrials", "consumer-defensive", "energy", "basic-materials",
    "real-estate", "utilities")
SECTOR_ALIASES: dict[str, str] = {
    "tech": "technology", "financials": "financial-services",
    "financial": "financial-services", "communication": "communication-services",
    "health": "healthcare", "industrial": "industrials", "materials": "basic-materials",
    "realestate": "real-estate", "utility": "utilities",
}

_BM, _CC, _CD, _CS = ("basic-materials", "consumer-cyclical", "consumer-defensive",
                      "communication-services")
_EN, _FS, _HC, _IN = "energy", "financial-services", "healthcare", "industrials"
_RE, _TE, _UT = "real-estate", "technology", "utilities"

# slug -> (display name, sector key): the 151 industries of the v2 path (the reference's 148
# in its order, then the three it lacks).
INDUSTRIES: dict[str, tuple[str, str]] = {
    "agricultural-inputs": ("Agricultural Inputs", _BM),
    "aluminum": ("Aluminum", _BM),
    "coal": ("Coal", _EN),
    "copper": ("Copper", _BM),
    "farm-products": ("Farm Products", _CD),
    "farm-heavy-construction-machinery": ("Farm & Heavy Construction Machinery", _IN),
    "forest-products": ("Forest Products", _BM),
    "gold": ("Gold", _BM),
    "lumber-wood-production": ("Lumber & Wood Production", _BM),
    "other-industrial-metals-mining": ("Other Industrial Metals & Mining", _BM),
    "other-precious-metals-mining": ("Other Precious Metals & Mining", _BM),
    "silver": ("Silver", _BM),
    "steel": ("Steel", _BM),
    "thermal-coal": ("Thermal Coal", _EN),
    "uranium": ("Uranium", _EN),
    "apparel-manufacturing": ("Apparel Manufacturing", _CC),
    "apparel-retail": ("Apparel Retail", _CC),
    "auto-truck-dealerships": ("Auto & Truck Dealerships", _CC),
    "auto-manufacturers": ("Auto Manufacturers", _CC),
    "auto-parts": ("Auto Parts", _CC),
    "beverages-brewers": ("Beverages - Brewers", _CD),
    "beverages-non-alcoholic": ("Beverages - Non-Alcoholic", _CD),
    "beverages-wineries-distilleries": ("Beverages - Wineries & Distilleries", _CD),
    "confectioners": ("Confectioners", _CD),
    "department-stores": ("Department Stores", _CC),
    "discount-stores": ("Discount Stores", _CD),
    "electronic-gaming-multimedia": ("Electronic Gaming & Multimedia", _CS),
    "electronic-components": ("Electronic Components", _TE),
    "electronics-computer-distribution": ("Electronics & Computer Distribution", _TE),
    "food-distribution": ("Food Distribution", _CD),
    "footwear-accessories": ("Footwear & Accessories", _CC),
    "furnishings-fixtures-appliances": ("Furnishings, Fixtures & Appliances", _CC),
    "gambling": ("Gambling", _CC),
    "grocery-stores": ("Grocery Stores", _CD),
    "home-improvement-retail": ("Home Improvement Retail", _CC),
    "household-personal-products": ("Household & Personal Products", _CD),
    "internet-retail": ("Internet Retail", _CC),
    "leisure": ("Leisure", _CC),
    "lodging": ("Lodging", _CC),
    "luxury-goods": ("Luxury Goods", _CC),
    "packaged-foods": ("Packaged Foods", _CD),
    "personal-services": ("Personal Services", _CC),
    "residential-construction": ("Residential Construction", _CC),
    "resorts-casinos": ("Resorts & Casinos", _CC),
    "restaurants": ("Restaurants", _CC),
    "specialty-retail": ("Specialty Retail", _CC),
    "specialty-business-services": ("Specialty Business Services", _IN),
    "specialty-chemicals": ("Specialty Chemicals", _BM),
    "specialty-industrial-machinery": ("Specialty Industrial Machinery", _IN),
    "textile-manufacturing": ("Textile Manufacturing", _CC),
    "tobacco": ("Tobacco", _CD),
    "travel-services": ("Travel Services", _CC),
    "oil-gas-drilling": ("Oil & Gas Drilling", _EN),
    "oil-gas-ep": ("Oil & Gas E&P", _EN),
    "oil-gas-equipment-services": ("Oil & Gas Equipment & Services", _EN),
    "oil-gas-integrated": ("Oil & Gas Integrated", _EN),
    "oil-gas-midstream": ("Oil & Gas Midstream", _EN),
    "oil-gas-refining-marketing": ("Oil & Gas Refining & Marketing", _EN),
    "solar": ("Solar", _TE),
    "asset-management": ("Asset Management", _FS),
    "banks-diversified": ("Banks - Diversified", _FS),
    "banks-regional": ("Banks - Regional", _FS),
    "capital-markets": ("Capital Markets", _FS),
    "credit-services": ("Credit Services", _FS),
    "financial-data-stock-exchanges": ("Financial Data & Stock Exchanges", _FS),
    "insurance-brokers": ("Insurance Brokers", _FS),
    "insurance-diversified": ("Insurance - Diversified", _FS),
    "insurance-life": ("Insurance - Life", _FS),
    "insurance-property-casualty": ("Insurance - Property & Casualty", _FS),
    "insurance-reinsurance": ("Insurance - Reinsurance", _FS),
    "insurance-specialty": ("Insurance - Specialty", _FS),
    "mortgage-finance": ("Mortgage Finance", _FS),
    "shell-companies": ("Shell Companies", _FS),
    "biotechnology": ("Biotechnology", _HC),
    "diagnostics-research": ("Diagnostics & Research", _HC),
    "drug-manufacturers-general": ("Drug Manufacturers - General", _HC),
    "drug-manufacturers-specialty-generic": ("Drug Manufacturers - Specialty & Generic", _HC),
    "health-information-services": ("Health Information Services", _HC),
    "healthcare-plans": ("Healthcare Plans", _HC),
    "medical-care-facilities": ("Medical Care Facilities", _HC),
    "medical-devices": ("Medical Devices", _HC),
    "medical-distribution": ("Medical Distribution", _HC),
    "medical-instruments-supplies": ("Medical Instruments & Supplies", _HC),
    "pharmaceutical-retailers": ("Pharmaceutical Retailers", _HC),
    "aerospace-defense": ("Aerospace & Defense", _IN),
    "building-materials": ("Building Materials", _BM),
    "building-products-equipment": ("Building Products & Equipment", _IN),
    "business-equipment-supplies": ("Business Equipment & Supplies", _IN),
    "chemical-manufacturing": ("Chemical Manufacturing", _BM),
    "chemicals": ("Chemicals", _BM),
    "conglomerates": ("Conglomerates", _IN),
    "consulting-services": ("Consulting Services", _IN),
    "electrical-equipment-parts": ("Electrical Equipment & Parts", _IN),
    "engineering-construction": ("Engineering & Construction", _IN),
    "industrial-distribution": ("Industrial Distribution", _IN),
    "infrastructure-operations": ("Infrastructure Operations", _IN),
    "integrated-freight-logistics": ("Integrated Freight & Logistics", _IN),
    "manufacturing-diversified": ("Manufacturing - Diversified", _IN),
    "marine-ports-services": ("Marine Ports & Services", _IN),
    "marine-shipping": ("Marine Shipping", _IN),
    "metal-fabrication": ("Metal Fabrication", _IN),
    "paper-paper-products": ("Paper & Paper Products", _BM),
    "pollution-treatment-controls": ("Pollution & Treatment Controls", _IN),
    "railroads": ("Railroads", _IN),
    "rental-leasing-services": ("Rental & Leasing Services", _IN),
    "security-protection-services": ("Security & Protection Services", _IN),
    "staffing-employment-services": ("Staffing & Employment Services", _IN),
    "tools-accessories": ("Tools & Accessories", _IN),
    "trucking": ("Trucking", _IN),
    "waste-management": ("Waste Management", _IN),
    "real-estate-development": ("Real Estate - Development", _RE),
    "real-estate-diversified": ("Real Estate - Diversified", _RE),
    "real-estate-services": ("Real Estate Services", _RE),
    "reit-diversified": ("REIT - Diversified", _RE),
    "reit-healthcare-facilities": ("REIT - Healthcare Facilities", _RE),
    "reit-hotel-motel": ("REIT - Hotel & Motel", _RE),
    "reit-industrial": ("REIT - Industrial", _RE),
    "reit-mortgage": ("REIT - Mortgage", _RE),
    "reit-office": ("REIT - Office", _RE),
    "reit-residential": ("REIT - Residential", _RE),
    "reit-retail": ("REIT - Retail", _RE),
    "reit-specialty": ("REIT - Specialty", _RE),
    "communication-equipment": ("Communication Equipment", _TE),
    "computer-hardware": ("Computer Hardware", _TE),
    "consumer-electronics": ("Consumer Electronics", _TE),
    "data-analytics": ("Data Analytics", _TE),
    "hardware-software-distribution": ("Hardware & Software Distribution", _TE),
    "information-technology-services": ("Information Technology Services", _TE),
    "internet-content-information": ("Internet Content & Information", _CS),
    "scientific-technical-instruments": ("Scientific & Technical Instruments", _TE),
    "semiconductor-equipment-materials": ("Semiconductor Equipment & Materials", _TE),
    "semiconductors": ("Semiconductors", _TE),
    "software-application": ("Software - Application", _TE),
    "software-infrastructure": ("Software - Infrastructure", _TE),
    "broadcasting": ("Broadcasting", _CS),
    "entertainment": ("Entertainment", _CS),
    "publishing": ("Publishing", _CS),
    "telecom-services": ("Telecom Services", _CS),
    "utilities-diversified": ("Utilities - Diversified", _UT),
    "utilities-independent-power-producers": ("Utilities - Independent Power Producers", _UT),
    "utilities-regulated-electric": ("Utilities - Regulated Electric", _UT),
    "utilities-regulated-gas": ("Utilities - Regulated Gas", _UT),
    "utilities-regulated-water": ("Utilities - Regulated Water", _UT),
    "utilities-renewable": ("Utilities - Renewable", _UT),
    "closed-end-fund-debt": ("Closed-End Fund - Debt", _FS),
    "closed-end-fund-equity": ("Closed-End Fund - Equity", _FS),
    "closed-end-fund-foreign": ("Closed-End Fund - Foreign", _FS),
    "exchange-traded-fund": ("Exchange Traded Fund", _FS),
    "airlines": ("Airlines", _IN),
    "advertising-agencies": ("Advertising Agencies", _CS),
    "packaging-containers": ("Packaging & Containers", _CC),
}
INDUSTRY_SLUGS: tuple[str, ...] = tuple(INDUSTRIES)
INDUSTRY_KEYS: dict[str, str] = {name: slug for slug, (name, _) in INDUSTRIES.items()}


def sector_key(value: str) -> str:
    """The sector key a validated path value names (a key or one of its aliases)."""
    return SECTOR_ALIASES.get(value, value)


def industry_sector(slug: str) -> tuple[str, str]:
    """``(sector key, sector display name)`` of an industry of :data:`INDUSTRIES`."""
    key = INDUSTRIES[slug][1]
    return key, SECTOR_NAMES[key]


# -- the records of an answer ----------------------------------------------------------------------
# A number member is Yahoo's number as sent (bare, or ``{raw, fmt, longFmt}``), so the client's
# ``format`` applies after the cache (:func:`marketdata.records.quotes.present_value`).
_VALUE_SCHEMA: dict[str, Any] = {"anyOf": [
    {"type": "number"}, {"type": "string"},
    {"type": "object", "properties": {"raw": {"type": "number"}, "fmt": {"type": "string"},
                                      "longFmt": {"type": "string"}}, "required": ["raw"]},
    {"type": "null"}]}
_FRACTION = "a fraction (0.012 is 1.2 %)"
_MARKET_CAP = "Market capitalisation (USD)"
_WEIGHT = f"Share of the parent's market capitalisation, {_FRACTION}"
_DAY = f"Change today, {_FRACTION}"
_YTD_RETURN = f"Return this year to date, {_FRACTION}"
_COMPANIES = "Number of companies"
_EMPLOYEES = "Number of employees"
_REPORT_DATE = "Publication time (ISO 8601)"
_INVESTMENT_RATING = "`Bullish`, `Neutral` or `Bearish`"
_TARGET_STATUS = "`Increased`, `Maintained`, `Decreased`..."
_BENCHMARK_NAME = "The benchmark, e.g. `S&P 500`"


def yahoo_number(description: str | None = None) -> Any:
    """A number member of a sector answer (Yahoo's form kept; see above)."""
    return formatted_number(before=description, schema=_VALUE_SCHEMA)


@dataclass(frozen=True)
class Performance:
    """Returns of a sector's or industry's index over five windows, as fractions."""

    day_change_percent: Any = yahoo_number(_DAY)
    ytd_change_percent: Any = yahoo_number(f"Change this year to date, {_FRACTION}")
    one_year_change_percent: Any = yahoo_number(f"Change over one year, {_FRACTION}")
    three_year_change_percent: Any = yahoo_number(f"Change over three years, {_FRACTION}")
    five_year_change_percent: Any = yahoo_number(f"Change over five years, {_FRACTION}")


@dataclass(frozen=True)
class NamedPerformance:
    """An industry's benchmark: its name and :class:`Performance`'s returns."""

    name: str | None = member(_BENCHMARK_NAME)
    day_change_percent: Any = yahoo_number(_DAY)
    ytd_change_percent: Any = yahoo_number(f"Change this year to date, {_FRACTION}")
    one_year_change_percent: Any = yahoo_number(f"Change over one year, {_FRACTION}")
    three_year_change_percent: Any = yahoo_number(f"Change over three years, {_FRACTION}")
    five_year_change_percent: Any = yahoo_number(f"Change over five years, {_FRACTION}")


@dataclass(frozen=True)
class SectorOverview:
    """A sector's size."""

    companies_count: Any = yahoo_number(_COMPANIES)
    market_cap: Any = yahoo_number(_MARKET_CAP)
    description: str | None = member()
    industries_count: Any = yahoo_number("Number of industries")
    market_weight: Any = yahoo_number(_WEIGHT)
    employee_count: Any = yahoo_number(_EMPLOYEES)


@dataclass(frozen=True)
class IndustryOverview:
    """An industry's size."""

    description: str | None = member()
    companies_count: Any = yahoo_number(_COMPANIES)
    market_cap: Any = yahoo_number(_MARKET_CAP)
    market_weight: Any = yahoo_number(_WEIGHT)
    employee_count: Any = yahoo_number(_EMPLOYEES)


@dataclass(frozen=True)
class SectorCompany:
    """One of a sector's largest companies."""

    symbol: str | None = member()
    name: str | None = member()
    market_cap: Any = yahoo_number(_MARKET_CAP)
    market_weight: Any = yahoo_number(_WEIGHT)
    last_price: Any = yahoo_number()
    target_price: Any = yahoo_number()
    day_change_percent: Any = yahoo_number(_DAY)
    ytd_return: Any = yahoo_number(_YTD_RETURN)
    rating: str | None = member("Analysts' consensus rating, e.g. `Buy`")


@dataclass(frozen=True)
class IndustryCompany:
    """One of an industry's largest companies."""

    symbol: str | None = member()
    name: str | None = member()
    last_price: Any = yahoo_number()
    market_cap: Any = yahoo_number(_MARKET_CAP)
    market_weight: Any = yahoo_number(_WEIGHT)
    day_change_percent: Any = yahoo_number(_DAY)
    ytd_return: Any = yahoo_number(_YTD_RETURN)
    rating: str | None = member("Analysts' consensus rating, e.g. `Buy`")
    target_price: Any = yahoo_number()


@dataclass(frozen=True)
class Fund:
    """An ETF or mutual fund of a sector."""

    symbol: str | None = member()
    name: str | None = member()
    net_assets: Any = yahoo_number("Net assets (USD)")
    expense_ratio: Any = yahoo_number(f"Yearly expense ratio, {_FRACTION}")
    last_price: Any = yahoo_number()
    ytd_return: Any = yahoo_number(_YTD_RETURN)


@dataclass(frozen=True)
class SectorIndustry:
    """One industry of a sector; ``key`` is a ``/v2/industries/{industry}`` path."""

    symbol: str | None = member()
    key: str | None = member()
    name: str | None = member()
    market_weight: Any = yahoo_number(_WEIGHT)
    day_change_percent: Any = yahoo_number(_DAY)
    ytd_return: Any = yahoo_number(_YTD_RETURN)


@dataclass(frozen=True)
class PerformingCompany:
    """One of an industry's best year-to-date performers."""

    symbol: str | None = member()
    name: str | None = member()
    last_price: Any = yahoo_number()
    ytd_return: Any = yahoo_number(_YTD_RETURN)
    target_price: Any = yahoo_number()


@dataclass(frozen=True)
class GrowthCompany:
    """One of an industry's highest growth estimates."""

    symbol: str | None = member()
    name: str | None = member()
    last_price: Any = yahoo_number()
    ytd_return: Any = yahoo_number(_YTD_RETURN)
    growth_estimate: Any = yahoo_number(f"Analysts' earnings growth estimate, {_FRACTION}")


@dataclass(frozen=True)
class SectorReport:
    """Analyst research on a sector."""

    id: str | None = member()
    headline: str | None = member("The report's headline (Yahoo's `headHtml`: HTML)")
    provider: str | None = member()
    report_date: str | None = member(_REPORT_DATE)
    report_title: str | None = member()
    report_type: str | None = member()
    target_price: Any = yahoo_number()
    target_price_status: str | None = member(_TARGET_STATUS)
    investment_rating: str | None = member(_INVESTMENT_RATING)


@dataclass(frozen=True)
class IndustryReport:
    """Analyst research on an industry."""

    id: str | None = member()
    title: str | None = member("The report's title")
    provider: str | None = member()
    report_date: str | None = member(_REPORT_DATE)
    report_type: str | None = member()
    investment_rating: str | None = member(_INVESTMENT_RATING)
    target_price: Any = yahoo_number()
    target_price_status: str | None = member(_TARGET_STATUS)


@dataclass(frozen=True)
class SectorProfile:
    """One sector's answer, numbers in the source's form (bare, or ``{raw, fmt, longFmt}``)
    so the client's ``format`` applies after the cache."""

    name: str | None = member()
    symbol: str | None = member("Yahoo's index of the sector, e.g. `^YH311`")
    key: str | None = member()
    overview: SectorOverview | None = member("The sector's size")
    performance: Performance | None = member("Returns of the group's index")
    benchmark: Performance | None = member("Returns of the benchmark (Yahoo's "
                                           "`performanceOverviewBenchmark`)")
    benchmark_name: str | None = member(_BENCHMARK_NAME)
    top_companies: list[SectorCompany] = member("The largest companies, Yahoo's order")
    top_etfs: list[Fund] = member("ETFs of the sector")
    top_mutual_funds: list[Fund] = member("Mutual funds of the sector")
    industries: list[SectorIndustry] = member(
        "The sector's industries (Yahoo's \"All Industries\" aggregate left out); `key` is a "
        "`/v2/industries/{industry}` path")
    research_reports: list[SectorReport] = member("Analyst research on the sector")


@dataclass(frozen=True)
class IndustryProfile:
    """One industry's answer, numbers in the source's form, like :class:`SectorProfile`."""

    name: str | None = member()
    key: str | None = member()
    symbol: str | None = member("Yahoo's index of the industry")
    sector_name: str | None = member()
    sector_key: str | None = member("A `/v2/sectors/{sector}` path")
    overview: IndustryOverview | None = member("The industry's size")
    performance: Performance | None = member("Returns of the group's index")
    benchmark: NamedPerformance | None = member("Returns of the benchmark (Yahoo's "
                                                "`performanceOverviewBenchmark`)")
    top_companies: list[IndustryCompany] = member("The largest companies, Yahoo's order")
    top_performing_companies: list[PerformingCompany] = member("The best year-to-date returns")
    top_growth_companies: list[GrowthCompany] = member("The highest growth estimates")
    research_reports: list[IndustryReport] = member("Analyst research on the industry")
