"""GET /v1/finance/sectors/{key} and /v1/finance/industries/{slug}: one sector's (or
industry's) overview, performance, industries, largest companies and analyst reports, in
the shape of Yahoo's sector and industry JSON.

Why it is built from the sandbox's own instruments: the service maps a symbol to its sector
through quoteSummary assetProfile, so a sector's top companies are sandbox equities whose
profile names that sector, and the sector's returns are the market-cap weighted returns
of those companies (the same prices quote and chart serve). The S&P 500 benchmark is the
sandbox's ^GSPC. Numbers are always Yahoo ``{raw, fmt}`` objects (Yahoo formats this
endpoint whatever ``formatted`` says), except the two counts, which are bare integers.
"""

from __future__ import annotations

import string
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from marketdata.records.sectors import INDUSTRIES as INDUSTRY_TABLE
from marketdata.sandbox.instruments import (
    EQUITY,
    FAMOUS,
    Instrument,
    get_instrument,
    stable_hash,
    unit,
)
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo import fmt
from marketdata.sandbox.yahoo.common import Request, finance_error, json_response
from marketdata.sandbox.yahoo.market import MarketView, market_view

# key: (display name, Morningstar sector code used in Yahoo's ^YH symbols, market weight,
# sector SPDR ETF). Weights sum to 1.
SECTORS: dict[str, tuple[str, str, float, str]] = {
    "technology": ("Technology", "311", 0.315, "XLK"),
    "healthcare": ("Healthcare", "206", 0.105, "XLV"),
    "financial-services": ("Financial Services", "103", 0.135, "XLF"),
    "consumer-cyclical": ("Consumer Cyclical", "102", 0.105, "XLY"),
    "industrials": ("Industrials", "310", 0.085, "XLI"),
    "consumer-defensive": ("Consumer Defensive", "205", 0.055, "XLP"),
    "energy": ("Energy", "309", 0.035, "XLE"),
    "real-estate": ("Real Estate", "104", 0.025, "XLRE"),
    "utilities": ("Utilities", "207", 0.027, "XLU"),
    "basic-materials": ("Basic Materials", "101", 0.023, "XLB"),
    "communication-services": ("Communication Services", "308", 0.090, "XLC"),
}

# Yahoo's industry names per sector; every industry the sandbox assigns to an equity
# (instruments._SECTORS and _FAMOUS_SECTORS) is listed under its sector.
INDUSTRIES: dict[str, tuple[str, ...]] = {
    "Technology": (
        "Semiconductors", "Software - Infrastructure", "Consumer Electronics",
        "Software - Application", "Semiconductor Equipment & Materials", "Computer Hardware",
        "Communication Equipment", "Information Technology Services",
        "Electronic Components", "Scientific & Technical Instruments", "Solar",
        "Electronics & Computer Distribution"),
    "Healthcare": (
        "Drug Manufacturers - General", "Healthcare Plans", "Medical Devices", "Biotechnology",
        "Diagnostics & Research", "Medical Instruments & Supplies", "Medical Care Facilities",
        "Drug Manufacturers - Specialty & Generic", "Health Information Services",
        "Medical Distribution", "Pharmaceutical Retailers"),
    "Financial Services": (
        "Banks - Diversified", "Credit Services", "Insurance - Diversified", "Asset Management",
        "Banks - Regional", "Capital Markets", "Financial Data & Stock Exchanges",
        "Insurance - Property & Casualty", "Insurance Brokers", "Insurance - Life",
        "Insurance - Specialty", "Mortgage Finance", "Insurance - Reinsurance"),
    "Consumer Cyclical": (
        "Internet Retail", "Auto Manufacturers", "Restaurants", "Home Improvement Retail",
        "Travel Services", "Specialty Retail", "Apparel Retail", "Residential Construction",
        "Footwear & Accessories", "Lodging", "Auto Parts", "Packaging & Containers"),
    "Industrials": (
        "Aerospace & Defense", "Specialty Industrial Machinery", "Railroads",
        "Building Products & Equipment", "Farm & Heavy Construction Machinery",
        "Specialty Business Services", "Integrated Freight & Logistics", "Waste Management",
        "Conglomerates", "Industrial Distribution", "Engineering & Construction", "Airlines"),
    "Consumer Defensive": (
        "Discount Stores", "Beverages - Non-Alcoholic", "Household & Personal Products",
        "Packaged Foods", "Tobacco", "Confectioners", "Farm Products", "Grocery Stores",
        "Food Distribution", "Beverages - Brewers"),
    "Energy": (
        "Oil & Gas Integrated", "Oil & Gas E&P", "Oil & Gas Midstream",
        "Oil & Gas Refining & Marketing", "Oil & Gas Equipment & Services", "Uranium",
        "Oil & Gas Drilling", "Thermal Coal"),
    "Real Estate": (
        "REIT - Specialty", "REIT - Industrial", "REIT - Retail", "REIT - Residential",
        "REIT - Healthcare Facilities", "Real Estate Services", "REIT - Office",
        "REIT - Diversified", "REIT - Mortgage", "Real Estate - Development"),
    "Utilities": (
        "Utilities - Regulated Electric", "Utilities - Renewable", "Utilities - Diversified",
        "Utilities - Regulated Gas", "Utilities - Independent Power Producers",
        "Utilities - Regulated Water"),
    "Basic Materials": (
        "Specialty Chemicals", "Gold", "Building Materials", "Copper", "Steel",
        "Agricultural Inputs", "Chemicals", "Other Industrial Metals & Mining", "Aluminum",
        "Lumber & Wood Production", "Paper & Paper Products"),
    "Communication Services": (
        "Internet Content & Information", "Telecom Services", "Entertainment",
        "Electronic Gaming & Multimedia", "Advertising Agencies", "Broadcasting",
        "Publishing"),
}

TOP_COMPANY_ROWS = 15  # more than the service shows, as Yahoo sends more too
POOL_SIZE = 25  # generated equities per sector (recommendations draw peers from them)
_RATINGS = {"Strong Buy", "Buy", "Hold", "Underperform", "Sell"}


_SLUGS = {name: slug for slug, (name, _) in INDUSTRY_TABLE.items()}


def industry_key(name: str) -> str:
    """Yahoo's slug: 'Software - Infrastructure' -> 'software-infrastructure' (the v2
    table's where it has the industry: 'Oil & Gas E&P' -> 'oil-gas-ep')."""
    return _SLUGS.get(name) or name.lower().replace(" & ", "-").replace(" - ", "-").replace(
        " ", "-")


def _anchor_cap(inst: Instrument) -> float:
    return inst.shares_outstanding * inst.anchor_price


@lru_cache(maxsize=1)
def sector_pools() -> dict[str, tuple[str, ...]]:
    """Sector display name -> sandbox equities in it, largest (anchor) market cap first.

    The famous equities plus POOL_SIZE generated 3-4 letter tickers per sector, found by
    walking a fixed hash sequence: the same pools in every process.
    """
    pools: dict[str, list[Instrument]] = {name: [] for name, *_ in SECTORS.values()}
    for symbol, famous in FAMOUS.items():
        inst = get_instrument(symbol)
        if famous[0] == EQUITY and inst is not None and inst.sector in pools:
            pools[inst.sector].append(inst)
    generated = dict.fromkeys(pools, 0)
    letters = string.ascii_uppercase
    seen: set[str] = set()
    n = 0
    while min(generated.values()) < POOL_SIZE:
        h = stable_hash("sandbox-sector-pool", n)
        n += 1
        symbol = "".join(letters[(h >> (8 * i + 8)) % 26] for i in range(3 + h % 2))
        inst = get_instrument(symbol)
        if (inst is None or inst.kind != EQUITY or symbol in FAMOUS or symbol in seen
                or inst.sector not in pools or generated[inst.sector] >= POOL_SIZE):
            continue
        seen.add(symbol)
        pools[inst.sector].append(inst)
        generated[inst.sector] += 1
    return {name: tuple(i.symbol for i in sorted(members, key=_anchor_cap, reverse=True))
            for name, members in pools.items()}


def _view(symbol: str, now: int) -> MarketView:
    inst = get_instrument(symbol)
    assert inst is not None
    return market_view(get_series(inst), now)


def _returns(view: MarketView) -> dict[str, float | None]:
    now = view.now
    return {"regMarketChangePercent": round(view.snap.change_fraction, 6),
            "ytdChangePercent": view.period_return(view.ytd_start()),
            "oneYearChangePercent": view.period_return(now - 365 * 86400),
            "threeYearChangePercent": view.period_return(now - 3 * 365 * 86400),
            "fiveYearChangePercent": view.period_return(now - 5 * 365 * 86400)}


def _weighted(rows: list[tuple[float, dict[str, float | None]]]) -> dict[str, float | None]:
    """Cap-weighted average of each return over the companies that have it."""
    out: dict[str, float | None] = {}
    for name in rows[0][1]:
        pairs = [(cap, value) for cap, r in rows if (value := r[name]) is not None]
        total = sum(cap for cap, _ in pairs)
        out[name] = round(sum(cap * v for cap, v in pairs) / total, 6) if total else None
    return out


def _pct_values(values: dict[str, float | None]) -> dict[str, fmt.V]:
    return {name: fmt.pct(value) for name, value in values.items()}


def _industries(key: str, name: str, code: str, perf: dict[str, float | None]) -> list[Any]:
    names = INDUSTRIES[name]
    raw = {n: 0.02 + unit("industry-weight", key, n) ** 2 for n in names}
    total = sum(raw.values())
    rows: list[dict[str, Any]] = [{
        "name": "All Industries", "marketWeight": fmt.pct(1.0),
        "regMarketChangePercent": fmt.pct(perf["regMarketChangePercent"]),
        "ytdReturn": fmt.pct(perf["ytdChangePercent"])}]
    for position, industry in enumerate(sorted(names, key=lambda n: -raw[n])):
        day, ytd = perf["regMarketChangePercent"], perf["ytdChangePercent"]
        rows.append({
            "key": industry_key(industry), "name": industry,
            "symbol": f"^YH{code}{10 * (names.index(industry) + 1):05d}",
            "marketWeight": fmt.pct(round(raw[industry] / total, 6)),
            "regMarketChangePercent": fmt.pct(None if day is None else round(
                day + 0.01 * (unit("industry-day", key, industry, position) - 0.5), 6)),
            "ytdReturn": fmt.pct(None if ytd is None else round(
                ytd + 0.2 * (unit("industry-ytd", key, industry) - 0.5), 6)),
        })
    return rows


def _company(view: MarketView, sector_cap: float) -> dict[str, Any]:
    inst, snap = view.inst, view.snap
    cap = view.market_cap or 0
    rating = view.rating.split(" - ", 1)[-1]
    target = snap.price * (1.02 + 0.25 * unit("target", inst.symbol))
    return {
        "symbol": inst.symbol, "name": inst.long_name or inst.short_name,
        "rating": rating if rating in _RATINGS else "Hold",
        "lastPrice": fmt.price(round(snap.price, inst.price_hint), inst.price_hint),
        "targetPrice": fmt.price(round(target, inst.price_hint), inst.price_hint),
        "marketCap": fmt.big(cap), "marketWeight": fmt.pct(round(cap / sector_cap, 6)),
        "regMarketChangePercent": fmt.pct(round(snap.change_fraction, 6)),
        "ytdReturn": fmt.pct(view.period_return(view.ytd_start())),
    }


def _etf(symbol: str, now: int) -> dict[str, Any]:
    view = _view(symbol, now)
    inst = view.inst
    return {"symbol": symbol, "name": inst.long_name or inst.short_name,
            "netAssets": fmt.big(round(inst.shares_outstanding * view.snap.price)),
            "expenseRatio": fmt.pct(round(0.0008 + 0.001 * unit("er", symbol), 4)),
            "lastPrice": fmt.price(round(view.snap.price, 2)),
            "ytdReturn": fmt.pct(view.period_return(view.ytd_start()))}


def sector_body(key: str, now: int) -> dict[str, Any]:
    """The sector JSON (before rendering) for a known key at clock time ``now``."""
    name, code, weight, etf = SECTORS[key]
    # The largest by anchor cap, listed like Yahoo by today's market cap.
    views = sorted((_view(s, now) for s in sector_pools()[name][:TOP_COMPANY_ROWS]),
                   key=lambda v: -(v.market_cap or 0))
    caps = [float(v.market_cap or 0) for v in views]
    perf = _weighted([(cap, _returns(v)) for cap, v in zip(caps, views, strict=True)])
    sector_cap = sum(caps) / (0.55 + 0.2 * unit("coverage", key))
    companies = int(60 + 800 * unit("companies", key))
    benchmark = _returns(_view("^GSPC", now))
    return {
        "name": name, "key": key, "symbol": f"^YH{code}",
        "overview": {
            "companiesCount": companies, "marketCap": fmt.big(round(sector_cap)),
            "messageBoardId": f"finmb_sector_{key.replace('-', '_')}",
            "description": (f"Companies in the {name.lower()} sector of the sandbox market. "
                            "(Synthetic sandbox description.)"),
            "industriesCount": len(INDUSTRIES[name]), "marketWeight": fmt.pct(weight),
            "employeeCount": fmt.integer(int(companies * (2000 + 9000 * unit("emp", key)))),
        },
        "performance": _pct_values(perf),
        "performanceOverviewBenchmark": {"name": "S&P 500", **_pct_values(benchmark)},
        "topETFs": [_etf(etf, now)],
        "topMutualFunds": [],
        "topCompanies": [_company(v, sector_cap) for v in views],
        "industries": _industries(key, name, code, perf),
        "researchReports": _reports(f"sector:{key}", name.lower(), views, now),
    }


def handle_sector(req: Request) -> SandboxResponse:
    key = req.params["key"]
    if key not in SECTORS:
        return finance_error("Not Found", f"Sector not found for key: {key}", 404)
    return json_response({"data": fmt.render(sector_body(key, req.now()), True)})


# -- research reports and industries (/v1/finance/industries/{slug}) ---------------------------
_REPORT_PROVIDERS = ("Morningstar", "Argus Research", "CFRA")
_REPORT_TYPES = ("Analyst Report", "Quantitative Report", "Industry Report")
_OUTLOOKS = (("Bullish", "Increased"), ("Neutral", "Maintained"), ("Bearish", "Decreased"))
REPORTS = 3
INDUSTRY_COMPANY_ROWS = 10


def _reports(scope: str, subject: str, views: list[MarketView], now: int) -> list[Any]:
    """A few analyst reports on the largest companies, newest first, one every 9 days."""
    out: list[Any] = []
    for n, view in enumerate(views[:REPORTS]):
        rating, status = _OUTLOOKS[int(unit("report-outlook", scope, n) * len(_OUTLOOKS))]
        provider = _REPORT_PROVIDERS[int(unit("report-provider", scope, n) * 3)]
        report_type = _REPORT_TYPES[int(unit("report-type", scope, n) * 3)]
        day = (now // 86400 - 1 - 9 * n) * 86400
        stamp = datetime.fromtimestamp(day, UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        name = view.inst.short_name or view.inst.symbol
        title = f"{name}: {subject} outlook {status.lower()}"
        target = view.snap.price * (0.9 + 0.35 * unit("report-target", scope, n))
        out.append({
            "id": f"{provider.split()[0].upper()[:4]}_{stable_hash('report', scope, n) % 10**9}",
            "headHtml": title, "provider": provider, "reportDate": stamp,
            "reportTitle": title, "reportType": report_type,
            "targetPrice": fmt.price(round(target, 2)), "targetPriceStatus": status,
            "investmentRating": rating,
        })
    return out


def industry_code(slug: str) -> str:
    """The ^YH symbol of an industry: its sector's code and its place in the sector."""
    name, sector_key = INDUSTRY_TABLE[slug]
    sector_name, code = SECTORS[sector_key][0], SECTORS[sector_key][1]
    listed = INDUSTRIES[sector_name]
    if name in listed:
        position = listed.index(name)
    else:
        others = [s for s, (n, k) in INDUSTRY_TABLE.items() if k == sector_key and n not in listed]
        position = len(listed) + others.index(slug)
    return f"^YH{code}{10 * (position + 1):05d}"


def industry_members(slug: str) -> tuple[str, ...]:
    """The sandbox equities of an industry (by their profile), largest first; an industry
    none of them is in borrows a fixed share of its sector's pool, so every slug answers."""
    name, sector_key = INDUSTRY_TABLE[slug]
    pool = sector_pools()[SECTORS[sector_key][0]]
    own = tuple(s for s in pool if (inst := get_instrument(s)) is not None
                and inst.industry == name)
    if own:
        return own[:INDUSTRY_COMPANY_ROWS]
    borrowed = sorted(pool, key=lambda s: unit("industry-member", slug, s))[:6]
    return tuple(s for s in pool if s in borrowed)


def _performing(view: MarketView) -> dict[str, Any]:
    inst, snap = view.inst, view.snap
    return {"symbol": inst.symbol, "name": inst.long_name or inst.short_name,
            "ytdReturn": fmt.pct(view.period_return(view.ytd_start())),
            "lastPrice": fmt.price(round(snap.price, inst.price_hint), inst.price_hint),
            "targetPrice": fmt.price(round(snap.price * (1.02 + 0.25 * unit(
                "target", inst.symbol)), inst.price_hint), inst.price_hint)}


def industry_body(slug: str, now: int) -> dict[str, Any]:
    """The industry JSON (before rendering) for a slug of the v2 table at clock time
    ``now``: returns are the cap-weighted returns of its companies, the benchmark the
    sandbox's ^GSPC."""
    name, sector_key = INDUSTRY_TABLE[slug]
    sector_name, _, sector_weight, _ = SECTORS[sector_key]
    views = sorted((_view(s, now) for s in industry_members(slug)),
                   key=lambda v: -(v.market_cap or 0))
    caps = [float(v.market_cap or 0) for v in views]
    perf = _weighted([(cap, _returns(v)) for cap, v in zip(caps, views, strict=True)])
    industry_cap = sum(caps) / (0.6 + 0.3 * unit("industry-coverage", slug))
    companies = int(8 + 150 * unit("industry-companies", slug))
    by_ytd = sorted(views, key=lambda v: -(v.period_return(v.ytd_start()) or -1e9))
    growth = sorted(views, key=lambda v: -unit("growth", v.inst.symbol))
    return {
        "name": name, "key": slug, "symbol": industry_code(slug),
        "sectorName": sector_name, "sectorKey": sector_key,
        "overview": {
            "description": (f"Companies in the {name} industry of the sandbox market. "
                            "(Synthetic sandbox description.)"),
            "companiesCount": companies, "marketCap": fmt.big(round(industry_cap)),
            "messageBoardId": f"finmb_industry_{slug.replace('-', '_')}",
            "marketWeight": fmt.pct(round(sector_weight * (0.02 + 0.2 * unit(
                "industry-weight-market", slug)), 6)),
            "employeeCount": fmt.integer(int(companies * (800 + 6000 * unit("emp", slug)))),
        },
        "performance": _pct_values(perf),
        "performanceOverviewBenchmark": {"name": "S&P 500",
                                         **_pct_values(_returns(_view("^GSPC", now)))},
        "topCompanies": [_company(v, industry_cap) for v in views],
        "topPerformingCompanies": [_performing(v) for v in by_ytd[:5]],
        "topGrowthCompanies": [
            {**{k: v for k, v in _performing(view).items() if k != "targetPrice"},
             "growthEstimate": fmt.pct(round(0.6 * unit("growth", view.inst.symbol) - 0.1,
                                             4))}
            for view in growth[:5]],
        "researchReports": _reports(f"industry:{slug}", name, views, now),
    }


def handle_industry(req: Request) -> SandboxResponse:
    slug = req.params["slug"]
    if slug not in INDUSTRY_TABLE:
        return finance_error("Not Found", f"Industry not found for key: {slug}", 404)
    return json_response({"data": fmt.render(industry_body(slug, req.now()), True)})
