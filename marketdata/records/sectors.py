"""Sectors and industries as the v2 routes name them: the sector keys and their aliases,
the industry slugs with the sector each belongs to, the members of a sector or industry
answer, and the records the provider fills.

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

from marketdata.records.market import SECTOR_NAMES

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


# -- the members of an answer ---------------------------------------------------------------------
# Returns over five windows, as fractions (0.012 is 1.2 %).
PERFORMANCE_MEMBERS = ("dayChangePercent", "ytdChangePercent", "oneYearChangePercent",
                       "threeYearChangePercent", "fiveYearChangePercent")
SECTOR_OVERVIEW_MEMBERS = ("companiesCount", "marketCap", "description", "industriesCount",
                           "marketWeight", "employeeCount")
INDUSTRY_OVERVIEW_MEMBERS = ("description", "companiesCount", "marketCap", "marketWeight",
                             "employeeCount")
SECTOR_COMPANY_MEMBERS = ("symbol", "name", "marketCap", "marketWeight", "lastPrice",
                          "targetPrice", "dayChangePercent", "ytdReturn", "rating")
INDUSTRY_COMPANY_MEMBERS = ("symbol", "name", "lastPrice", "marketCap", "marketWeight",
                            "dayChangePercent", "ytdReturn", "rating", "targetPrice")
FUND_MEMBERS = ("symbol", "name", "netAssets", "expenseRatio", "lastPrice", "ytdReturn")
SECTOR_INDUSTRY_MEMBERS = ("symbol", "key", "name", "marketWeight", "dayChangePercent",
                           "ytdReturn")
PERFORMING_COMPANY_MEMBERS = ("symbol", "name", "lastPrice", "ytdReturn", "targetPrice")
GROWTH_COMPANY_MEMBERS = ("symbol", "name", "lastPrice", "ytdReturn", "growthEstimate")
SECTOR_REPORT_MEMBERS = ("id", "headline", "provider", "reportDate", "reportTitle",
                         "reportType", "targetPrice", "targetPriceStatus", "investmentRating")
INDUSTRY_REPORT_MEMBERS = ("id", "title", "provider", "reportDate", "reportType",
                           "investmentRating", "targetPrice", "targetPriceStatus")

SECTOR_MEMBERS = ("name", "symbol", "key", "overview", "performance", "benchmark",
                  "benchmarkName", "topCompanies", "topEtfs", "topMutualFunds", "industries",
                  "researchReports")
INDUSTRY_MEMBERS = ("name", "key", "symbol", "sectorName", "sectorKey", "overview",
                    "performance", "benchmark", "topCompanies", "topPerformingCompanies",
                    "topGrowthCompanies", "researchReports")


@dataclass(frozen=True)
class SectorProfile:
    """One sector's answer: :data:`SECTOR_MEMBERS` by name, numbers in the source's form
    (bare, or ``{raw, fmt, longFmt}``) so the client's ``format`` applies after the
    cache."""

    key: str
    members: dict[str, Any]


@dataclass(frozen=True)
class IndustryProfile:
    """One industry's answer: :data:`INDUSTRY_MEMBERS` by name, numbers in the source's
    form, like :class:`SectorProfile`."""

    key: str
    members: dict[str, Any]
