"""Yahoo's screeners: GET /v1/finance/screener/predefined/saved?scrIds=DAY_GAINERS&count=25
(predefined) and POST /v1/finance/screener (a custom screen as a JSON query).

Why: screener rows must agree with every other sandbox answer, so each row is the same v7
quote (``quote_values``) the batch quote endpoint would give for that symbol at that clock;
the screener only chooses and ranks. The equity universe is the famous US equities plus a
fixed set of generated tickers, the fund universe the famous mutual funds plus generated
ones (derived from a stable hash, identical in every run).

Every screen, predefined or custom, is conditions on *screen fields* (Yahoo's names:
``percentchange``, ``intradaymarketcap``, ``categoryname``...; :func:`screen_values` derives
them from the quote, or from the symbol's hash for fundamentals the quote lacks), ANDed,
then a sort on one field (ties by symbol), then a page.

Predefined: every id of :data:`marketdata.records.screeners.PREDEFINED` (equity and fund
screeners); ids are case-insensitive as on Yahoo. ``count`` (default 25, at most 250),
``start`` (offset), ``fields`` (Yahoo's base keys plus the listed ones) and ``formatted``
(default true: numbers as ``{raw, fmt}``) are honoured.

Custom: the body's ``quoteType`` (EQUITY or MUTUALFUND), ``size`` (at most 250),
``offset``, ``sortField``/``sortType``, ``includeFields`` and ``query`` (``and`` of
``{operator, operands: [field, value...]}`` with eq/gt/gte/lt/lte/btwn); the answer has
``records`` keyed by screen field (``useRecordsResponse=true``), numbers as ``{raw, fmt}``.
A malformed body, an unknown field or operator is a 400 in Yahoo's envelope.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from marketdata.records.screeners import (
    BTWN,
    EQ,
    GT,
    GTE,
    LT,
    LTE,
    SCREEN_FIELDS,
    TEXT_FIELDS,
)
from marketdata.sandbox.instruments import (
    EQUITY,
    FAMOUS,
    KNOWN_ETFS,
    MUTUALFUND,
    Instrument,
    get_instrument,
    is_known_symbol,
    pick,
    stable_hash,
    unit,
)
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.common import Request, finance_error, json_response
from marketdata.sandbox.yahoo.market import MarketView, market_view
from marketdata.sandbox.yahoo.quote import BASE_FIELDS, quote_values
from marketdata.sandbox.yahoo.quote_summary import default_key_statistics

UNIVERSE_SIZE = 200
FUND_UNIVERSE_SIZE = 60
MAX_COUNT = 250
DEFAULT_COUNT = 25

Row = dict[str, Any]


Condition = tuple[str, str, Any]  # (screen field, operator, value or (low, high))


@dataclass(frozen=True)
class Screener:
    canonical: str
    title: str
    description: str
    quote_type: str
    sort_field: str
    sort_type: str
    criteria: tuple[Condition, ...]
    icon: str


_SMALL_CAP = 2e9
SCREENERS: dict[str, Screener] = {s.canonical: s for s in (
    Screener("MOST_ACTIVES", "Most Actives",
             "Discover the most traded equities in the trading day.", EQUITY, "dayvolume",
             "DESC", (("dayvolume", GT, 0),), "mostActives"),
    Screener("DAY_GAINERS", "Day Gainers",
             "Discover the equities with the greatest gains in the trading day.", EQUITY,
             "percentchange", "DESC", (("percentchange", GT, 0),), "trendingUp"),
    Screener("DAY_LOSERS", "Day Losers",
             "Discover the equities with the greatest losses in the trading day.", EQUITY,
             "percentchange", "ASC", (("percentchange", LT, 0),), "trendingDown"),
    Screener("AGGRESSIVE_SMALL_CAPS", "Aggressive Small Caps",
             "Small cap stocks with earnings growing faster than 15% a year.", EQUITY,
             "eodvolume", "DESC", (("intradaymarketcap", LT, _SMALL_CAP),
                                   ("epsgrowth.lasttwelvemonths", GT, 15)), "smallCaps"),
    Screener("GROWTH_TECHNOLOGY_STOCKS", "Growth Technology Stocks",
             "Technology stocks with revenue and earnings growth above 10%.", EQUITY,
             "eodvolume", "DESC", (("sector", EQ, "Technology"),
                                   ("quarterlyrevenuegrowth.quarterly", GT, 10)), "growthTech"),
    Screener("MOST_SHORTED_STOCKS", "Most Shorted Stocks",
             "Stocks with the highest short interest as a share of shares outstanding.",
             EQUITY, "short_percentage_of_shares_outstanding.value", "DESC",
             (("short_percentage_of_shares_outstanding.value", GT, 10),), "mostShorted"),
    Screener("SMALL_CAP_GAINERS", "Small Cap Gainers",
             "Small caps with the greatest gains in the trading day.", EQUITY,
             "percentchange", "DESC", (("intradaymarketcap", LT, _SMALL_CAP),
                                       ("percentchange", GT, 0)), "smallCapGainers"),
    Screener("UNDERVALUED_GROWTH_STOCKS", "Undervalued Growth Stocks",
             "Stocks with a low price-to-earnings ratio and earnings growing above 15%.",
             EQUITY, "eodvolume", "DESC", (("peratio.lasttwelvemonths", BTWN, (0, 20)),
                                           ("epsgrowth.lasttwelvemonths", GT, 15)),
             "undervaluedGrowth"),
    Screener("UNDERVALUED_LARGE_CAPS", "Undervalued Large Caps",
             "Large caps trading at a low price-to-earnings ratio.", EQUITY, "eodvolume",
             "DESC", (("peratio.lasttwelvemonths", BTWN, (0, 20)),
                      ("intradaymarketcap", GT, 1e10)), "undervaluedLarge"),
    Screener("CONSERVATIVE_FOREIGN_FUNDS", "Conservative Foreign Funds",
             "Funds with low risk and a solid performance rating.", MUTUALFUND, "eodprice",
             "DESC", (("riskratingoverall", LTE, 3), ("performanceratingoverall", GTE, 3)),
             "foreignFunds"),
    Screener("HIGH_YIELD_BOND", "High Yield Bond",
             "Funds with a high performance rating and moderate risk.", MUTUALFUND,
             "intradaypricechange", "DESC", (("performanceratingoverall", GTE, 4),
                                             ("riskratingoverall", LTE, 4)), "highYield"),
    Screener("PORTFOLIO_ANCHORS", "Portfolio Anchors",
             "Broad large blend funds with a solid performance rating.", MUTUALFUND,
             "eodprice", "DESC", (("categoryname", EQ, "Large Blend"),
                                  ("performanceratingoverall", GTE, 3)), "anchors"),
    Screener("SOLID_LARGE_GROWTH_FUNDS", "Solid Large Growth Funds",
             "Large growth funds with a solid performance rating.", MUTUALFUND, "eodprice",
             "DESC", (("categoryname", EQ, "Large Growth"),
                      ("performanceratingoverall", GTE, 3)), "largeGrowth"),
    Screener("SOLID_MIDCAP_GROWTH_FUNDS", "Solid Midcap Growth Funds",
             "Mid-cap funds with a solid performance rating.", MUTUALFUND, "eodprice", "DESC",
             (("categoryname", EQ, "Mid-Cap Blend"), ("performanceratingoverall", GTE, 3)),
             "midcapGrowth"),
    Screener("TOP_MUTUAL_FUNDS", "Top Mutual Funds",
             "Funds with the best performance ratings.", MUTUALFUND, "intradaypricechange",
             "DESC", (("performanceratingoverall", GTE, 4),), "topFunds"),
)}
# Key order of a screener row, as in the recordings (day_gainers/day_losers).
TEMPLATE = (
    "language", "region", "quoteType", "typeDisp", "quoteSourceName", "triggerable",
    "customPriceAlertConfidence", "lastCloseTevEbitLtm", "lastClosePriceToNNWCPerShare",
    "currency", "earningsCallTimestampStart", "earningsCallTimestampEnd",
    "isEarningsDateEstimate", "trailingAnnualDividendRate", "trailingPE", "dividendRate",
    "trailingAnnualDividendYield", "dividendYield", "marketState", "epsTrailingTwelveMonths",
    "epsForward", "epsCurrentYear", "priceEpsCurrentYear", "sharesOutstanding", "bookValue",
    "fiftyDayAverage", "fiftyDayAverageChange", "fiftyDayAverageChangePercent",
    "twoHundredDayAverage", "twoHundredDayAverageChange", "twoHundredDayAverageChangePercent",
    "marketCap", "forwardPE", "priceToBook", "sourceInterval", "exchangeDataDelayedBy",
    "exchangeTimezoneName", "exchangeTimezoneShortName", "gmtOffSetMilliseconds",
    "esgPopulated", "tradeable", "cryptoTradeable", "regularMarketChangePercent",
    "hasPrePostMarketData", "firstTradeDateMilliseconds", "priceHint", "preMarketChange",
    "preMarketChangePercent", "preMarketTime", "preMarketPrice", "postMarketChange",
    "postMarketChangePercent", "postMarketTime", "postMarketPrice", "regularMarketChange",
    "regularMarketTime", "regularMarketPrice", "regularMarketDayHigh", "regularMarketDayRange",
    "regularMarketDayLow", "regularMarketVolume", "regularMarketPreviousClose", "bid", "ask",
    "bidSize", "askSize", "market", "messageBoardId", "fullExchangeName", "longName",
    "financialCurrency", "regularMarketOpen", "averageDailyVolume3Month",
    "averageDailyVolume10Day", "corporateActions", "fiftyTwoWeekLowChange",
    "fiftyTwoWeekLowChangePercent", "fiftyTwoWeekRange", "fiftyTwoWeekHighChange",
    "fiftyTwoWeekHighChangePercent", "fiftyTwoWeekChangePercent", "dividendDate",
    "earningsTimestamp", "earningsTimestampStart", "earningsTimestampEnd", "exchange",
    "fiftyTwoWeekHigh", "fiftyTwoWeekLow", "averageAnalystRating", "shortName", "displayName",
    "symbol",
)

# formatted=true: how each numeric key is shown (the rest stay bare, as on Yahoo).
_PRICES = frozenset({
    "regularMarketPrice", "regularMarketChange", "regularMarketDayHigh", "regularMarketDayLow",
    "regularMarketPreviousClose", "regularMarketOpen", "bid", "ask", "preMarketPrice",
    "preMarketChange", "postMarketPrice", "postMarketChange", "fiftyTwoWeekHigh",
    "fiftyTwoWeekLow", "fiftyTwoWeekHighChange", "fiftyTwoWeekLowChange", "fiftyDayAverage",
    "fiftyDayAverageChange", "twoHundredDayAverage", "twoHundredDayAverageChange",
    "epsTrailingTwelveMonths", "epsForward", "epsCurrentYear", "bookValue", "dividendRate",
    "trailingAnnualDividendRate"})
_PERCENT_UNITS = frozenset({"regularMarketChangePercent", "preMarketChangePercent",
                            "postMarketChangePercent", "fiftyTwoWeekChangePercent",
                            "dividendYield"})
_FRACTIONS = frozenset({"fiftyTwoWeekLowChangePercent", "fiftyTwoWeekHighChangePercent",
                        "fiftyDayAverageChangePercent", "twoHundredDayAverageChangePercent",
                        "trailingAnnualDividendYield"})
_BIG = frozenset({"regularMarketVolume", "averageDailyVolume3Month", "averageDailyVolume10Day",
                  "marketCap", "sharesOutstanding"})
_RATIOS = frozenset({"trailingPE", "forwardPE", "priceToBook", "priceEpsCurrentYear",
                     "lastCloseTevEbitLtm", "lastClosePriceToNNWCPerShare"})
_TIMES = frozenset({"regularMarketTime", "preMarketTime", "postMarketTime"})
_RANGES = frozenset({"regularMarketDayRange", "fiftyTwoWeekRange"})


def _ticker(i: int, salt: str = "sandbox-screener-universe", length: int | None = None) -> str:
    h = stable_hash(salt, i)
    size = length or 3 + h % 2
    letters = string.ascii_uppercase
    return "".join(letters[(h >> (8 + 5 * k)) % 26] for k in range(size))


def _screened(kind: str, size: int, ticker: Callable[[int], str],
              excluded: Collection[str] = ()) -> tuple[str, ...]:
    """The famous instruments of ``kind``, then generated tickers of that kind up to
    ``size`` (skipping the famous ones and ``excluded``)."""
    out = [s for s, row in FAMOUS.items() if row[0] == kind]
    seen = set(out)
    i = 0
    while len(out) < size:
        sym = ticker(i)
        i += 1
        if sym in seen or sym in FAMOUS or sym in excluded or not is_known_symbol(sym):
            continue
        inst = get_instrument(sym)
        if inst is None or inst.kind != kind:
            continue
        seen.add(sym)
        out.append(sym)
    return tuple(out)


@lru_cache(maxsize=1)
def universe() -> tuple[str, ...]:
    """The screened equities: famous US equities, then generated tickers."""
    return _screened(EQUITY, UNIVERSE_SIZE, _ticker, KNOWN_ETFS)


@lru_cache(maxsize=1)
def fund_universe() -> tuple[str, ...]:
    """The screened mutual funds: the famous ones, then generated five-letter tickers ending
    in X (the sandbox's rule for a fund)."""
    return _screened(MUTUALFUND, FUND_UNIVERSE_SIZE,
                     lambda i: _ticker(i, "sandbox-fund-universe", 4) + "X")


def _row(view: MarketView) -> Row:
    vals = quote_values(view)
    sym = view.inst.symbol
    if view.inst.kind == EQUITY:
        # Two valuation ratios only the screener shows (plausible, from the symbol's hash).
        vals["lastCloseTevEbitLtm"] = round(6 + 30 * unit("tev", sym), 6)
        vals["lastClosePriceToNNWCPerShare"] = round(-20 + 40 * unit("nnwc", sym), 6)
    return vals


@dataclass(frozen=True)
class Screened:
    """One instrument as screens see it: its v7 quote row and its screen field values."""

    quote: Row
    fields: dict[str, Any]


def _rows(now: int, quote_type: str = EQUITY) -> list[Screened]:
    rows = []
    for sym in universe() if quote_type == EQUITY else fund_universe():
        inst = get_instrument(sym)
        if inst is not None:
            view = market_view(get_series(inst), now)
            quote = _row(view)
            rows.append(Screened(quote, screen_values(view, quote)))
    return rows


# -- screen fields ---------------------------------------------------------------------------
# Quote members that are screen fields under another name.
_FROM_QUOTE = {
    "ticker": "symbol", "companyshortname": "shortName", "exchange": "exchange",
    "eodprice": "regularMarketPreviousClose", "intradayprice": "regularMarketPrice",
    "intradaypricechange": "regularMarketChange", "percentchange": "regularMarketChangePercent",
    "fiftytwowkpercentchange": "fiftyTwoWeekChangePercent", "intradaymarketcap": "marketCap",
    "avgdailyvol3m": "averageDailyVolume3Month", "dayvolume": "regularMarketVolume",
    "eodvolume": "regularMarketVolume", "totalsharesoutstanding": "sharesOutstanding",
    "pricebookratio.quarterly": "priceToBook", "peratio.lasttwelvemonths": "trailingPE",
    "lastclosepriceearnings.lasttwelvemonths": "trailingPE",
    "lastclose52weekhigh.lasttwelvemonths": "fiftyTwoWeekHigh",
    "lastclose52weeklow.lasttwelvemonths": "fiftyTwoWeekLow",
    "lastclosemarketcap.lasttwelvemonths": "marketCap",
    "bookvalueshare.lasttwelvemonths": "bookValue",
    "forward_dividend_per_share": "dividendRate", "forward_dividend_yield": "dividendYield",
    "totalcommonsharesoutstanding.lasttwelvemonths": "sharesOutstanding",
}
# Fundamentals the quote lacks, from the symbol's hash: (name fragment, low, high, kind),
# the first fragment found in the field's name wins; "cap" scales by the market cap.
_GENERATED: tuple[tuple[str, float, float, str], ...] = (
    ("consecutive_years", 0, 40, "int"), ("highest_controversy", 0, 5, "int"),
    ("score", 5, 45, "num"), ("days_to_cover", 0.5, 9, "num"),
    ("short_interest.value", 1e6, 5e7, "int"), ("short_", 0.5, 25, "num"),
    ("pctheld", 0.5, 80, "num"), ("growth", -30, 60, "num"), ("margin", -10, 45, "num"),
    ("return", -8, 35, "num"), ("beta", 0.4, 2.2, "num"), ("pegratio", 0.3, 4, "num"),
    ("eps", -2, 12, "num"), ("ratio", 0.4, 4, "num"), ("zscore", 0.5, 8, "num"),
    ("total", 0.05, 0.9, "cap"), ("ebit", 0.02, 0.2, "cap"), ("income", 0.01, 0.15, "cap"),
    ("cash", 0.01, 0.15, "cap"), ("profit", 0.05, 0.4, "cap"),
    ("capitalexpenditure", -0.08, -0.005, "cap"), ("", 0.5, 30, "num"),
)


def _generated(field: str, sym: str, market_cap: float) -> float | int:
    for fragment, lo, hi, kind in _GENERATED:
        if fragment in field:
            x = lo + (hi - lo) * unit("screen", field, sym)
            if kind == "int":
                return int(x)
            if kind == "cap":
                return round(x * market_cap)
            return round(x, 4)
    raise AssertionError("the last fragment matches every field")


def _fund_fields(view: MarketView, quote: Row) -> dict[str, Any]:
    sym = view.inst.symbol
    stats = default_key_statistics(view) or {}
    return {
        "categoryname": stats.get("category"),
        "performanceratingoverall": 1 + stable_hash("perf-rating", sym) % 5,
        "riskratingoverall": 1 + stable_hash("risk-rating", sym) % 5,
        "initialinvestment": pick((0, 1000, 2500, 3000, 50000), "initial", sym),
        "annualreturnnavy1categoryrank": 1 + stable_hash("category-rank", sym) % 100,
    }


def screen_values(view: MarketView, quote: Row) -> dict[str, Any]:
    """Every screen field of the instrument's quote type (:data:`SCREEN_FIELDS`)."""
    inst: Instrument = view.inst
    fields = SCREEN_FIELDS[EQUITY if inst.kind == EQUITY else MUTUALFUND]
    special: dict[str, Any] = {"region": "us", "sector": inst.sector,
                               "industry": inst.industry, "peer_group": inst.industry}
    if inst.kind != EQUITY:
        special.update(_fund_fields(view, quote))
    cap = float(quote.get("marketCap") or 0)
    out: dict[str, Any] = {}
    for field in fields:
        if field in special:
            out[field] = special[field]
        elif field in _FROM_QUOTE:
            value = quote.get(_FROM_QUOTE[field])
            out[field] = 0 if value is None and field.startswith("forward_dividend") else value
        else:
            out[field] = _generated(field, inst.symbol, cap)
    return out


def _holds(value: Any, operator: str, operand: Any) -> bool:
    if value is None:
        return False
    if operator == EQ:
        return bool(str(value).lower() == str(operand).lower()) if isinstance(value, str) \
            else value == operand
    if isinstance(value, str):
        return False
    if operator == BTWN:
        low, high = operand
        return bool(low <= value <= high)
    return bool({GT: value > operand, GTE: value >= operand, LT: value < operand,
                 LTE: value <= operand}[operator])


def screen(rows: list[Screened], criteria: tuple[Condition, ...], sort_field: str,
           sort_type: str) -> list[Screened]:
    """The rows meeting every condition, sorted on ``sort_field`` (missing values last,
    ties by symbol)."""
    matches = [r for r in rows if all(_holds(r.fields.get(f), op, v) for f, op, v in criteria)]
    matches.sort(key=lambda r: r.quote["symbol"])
    present = [r for r in matches if r.fields.get(sort_field) is not None]
    missing = [r for r in matches if r.fields.get(sort_field) is None]
    present.sort(key=lambda r: r.fields[sort_field], reverse=sort_type == "DESC")
    return present + missing


def _ordered(vals: Row, fields: set[str] | None) -> Row:
    wanted = None if fields is None else BASE_FIELDS | fields
    return {k: vals[k] for k in TEMPLATE if k in vals and (wanted is None or k in wanted)}


def _clock_text(epoch: int, tz: str) -> str:
    moment = datetime.fromtimestamp(epoch, UTC).astimezone(ZoneInfo(tz))
    return moment.strftime("%I:%M%p ").lstrip("0") + (moment.tzname() or "")


def _formatted(row: Row) -> Row:
    """Yahoo's formatted=true: numbers as {raw, fmt}; percents in percent units keep them."""
    dp = max(2, int(row.get("priceHint", 2)))
    tz = row.get("exchangeTimezoneName") or "America/New_York"
    out: Row = {}
    for key, x in row.items():
        if x is None or isinstance(x, bool) or not isinstance(x, int | float | str):
            out[key] = x
        elif key in _PRICES:
            out[key] = {"raw": x, "fmt": f"{x:,.{dp}f}"}
        elif key in _PERCENT_UNITS:
            out[key] = {"raw": x, "fmt": f"{x:.2f}%"}
        elif key in _FRACTIONS:
            out[key] = {"raw": x, "fmt": f"{x * 100:.2f}%"}
        elif key in _BIG:
            out[key] = {"raw": x, "fmt": _abbreviate(x), "longFmt": f"{round(x):,}"}
        elif key in _RATIOS:
            out[key] = {"raw": x, "fmt": f"{x:.2f}"}
        elif key in _TIMES:
            out[key] = {"raw": x, "fmt": _clock_text(int(x), tz)}
        elif key in _RANGES:
            lo, _, hi = str(x).partition(" - ")
            out[key] = {"raw": x, "fmt": f"{float(lo):,.{dp}f} - {float(hi):,.{dp}f}"}
        else:
            out[key] = x
    return out


def _abbreviate(x: float) -> str:
    for limit, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= limit:
            return f"{x / limit:.3f}{suffix}"
    return f"{x:.0f}"



def _uuid(name: str) -> str:
    h = f"{stable_hash('screener-id', name):016x}{stable_hash('screener-id2', name):016x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{h[16:20]}-{h[20:32]}"


def _values(value: Any) -> list[Any]:
    return list(value) if isinstance(value, tuple) else [value]


def _criteria(screener: Screener, count: int, start: int) -> tuple[dict[str, Any], str]:
    region = [("region", EQ, "us")] if screener.quote_type == EQUITY else []
    meta = {"size": count, "offset": start, "sortField": screener.sort_field,
            "sortType": screener.sort_type, "quoteType": screener.quote_type,
            "criteria": [{"field": f, "subField": None, "operators": [op.upper()],
                          "values": _values(v), "labelsSelected": [], "dependentValues": []}
                         for f, op, v in screener.criteria]
            + [{"field": "region", "subField": None, "operators": ["EQ"], "values": [],
                "labelsSelected": [53], "dependentValues": []} for _ in region],
            "topOperator": "AND"}
    query = {"operator": "AND", "operands": [
        {"operator": op.upper(), "operands": [f, *_values(v)]}
        for f, op, v in (*screener.criteria, *region)]}
    raw = {"offset": start, "size": count, "sortField": screener.sort_field,
           "sortType": screener.sort_type, "quoteType": screener.quote_type, "query": query}
    return meta, json.dumps(raw, separators=(",", ":"))


def handle_screener(req: Request) -> SandboxResponse:
    scr_ids = (req.arg("scrIds") or "").strip()
    if not scr_ids:
        return finance_error("Bad Request", 'Missing value for the "scrIds" argument', 400)
    screener = SCREENERS.get(scr_ids.upper())
    if screener is None:
        return finance_error("Not Found", f"No predefined screener found for scrIds: {scr_ids}",
                             404)
    count = req.int_arg("count", DEFAULT_COUNT)
    start = req.int_arg("start", 0)
    if count is None or count < 0 or start is None or start < 0:
        return finance_error("Bad Request", "Invalid count or start", 400)
    count = min(count, MAX_COUNT)
    fields_raw = req.arg("fields")
    fields = {f.strip() for f in fields_raw.split(",") if f.strip()} if fields_raw else None
    formatted = (req.arg("formatted", "true") or "true").lower() != "false"

    now = req.now()
    matches = screen(_rows(now, screener.quote_type), screener.criteria, screener.sort_field,
                     screener.sort_type)
    page = [_ordered(r.quote, fields) for r in matches[start:start + count]]
    if formatted:
        page = [_formatted(r) for r in page]
    meta, raw_criteria = _criteria(screener, count, start)
    result = {
        "id": _uuid(screener.canonical), "title": screener.title,
        "description": screener.description, "canonicalName": screener.canonical,
        "criteriaMeta": meta, "rawCriteria": raw_criteria, "start": start, "count": len(page),
        "total": len(matches), "quotes": page, "useRecords": False, "predefinedScr": True,
        "versionId": 1 + stable_hash("screener-version", screener.canonical) % 12,
        "creationDate": 1473796102800, "lastUpdated": now * 1000, "isPremium": False,
        "iconUrl": "https://s.yimg.com/cv/apiv2/fin/img/assets/predefined_screeners/"
                   f"{screener.icon}.png",
    }
    return json_response({"finance": {"result": [result], "error": None}})


# -- POST /v1/finance/screener: a custom screen ------------------------------------------------
_OPERATORS = {EQ, GT, GTE, LT, LTE, BTWN}
_BIG_FIELDS = frozenset({"intradaymarketcap", "dayvolume", "eodvolume", "avgdailyvol3m",
                         "totalsharesoutstanding"})


class _BadScreen(ValueError):
    """The body is not a screen Yahoo would run (a 400)."""


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _condition(operand: Any, fields: tuple[str, ...]) -> Condition:
    if not isinstance(operand, dict):
        raise _BadScreen("Invalid query operand")
    operator = str(operand.get("operator", "")).lower()
    args = operand.get("operands")
    if operator not in _OPERATORS or not isinstance(args, list) or not args:
        raise _BadScreen(f"Invalid operator: {operand.get('operator')}")
    field, values = args[0], args[1:]
    if field not in fields:
        raise _BadScreen(f"Invalid field: {field}")
    if operator == BTWN:
        if len(values) != 2 or not all(_number(v) for v in values):
            raise _BadScreen("btwn needs two numbers")
        return field, BTWN, (min(values), max(values))
    if len(values) != 1:
        raise _BadScreen(f"{operator} needs one value")
    value = values[0]
    if operator == EQ:
        if not (_number(value) or isinstance(value, str)):
            raise _BadScreen("eq needs a string or a number")
    elif not _number(value) or field in TEXT_FIELDS:
        raise _BadScreen(f"{operator} needs a number on a numeric field")
    return field, operator, value


def _screen_request(body: bytes) -> tuple[str, int, int, str, str, tuple[str, ...],
                                           tuple[Condition, ...]]:
    try:
        query = json.loads(body or b"null")
    except ValueError as exc:
        raise _BadScreen("Invalid JSON body") from exc
    if not isinstance(query, dict):
        raise _BadScreen("Invalid JSON body")
    quote_type = str(query.get("quoteType", EQUITY)).upper()
    if quote_type not in SCREEN_FIELDS:
        raise _BadScreen(f"Invalid quoteType: {query.get('quoteType')}")
    fields = SCREEN_FIELDS[quote_type]
    size, offset = query.get("size", DEFAULT_COUNT), query.get("offset", 0)
    if not isinstance(size, int) or not isinstance(offset, int) or size < 0 or offset < 0:
        raise _BadScreen("Invalid size or offset")
    sort_field = query.get("sortField", "ticker")
    sort_type = str(query.get("sortType", "DESC")).upper()
    if sort_field not in fields or sort_type not in ("ASC", "DESC"):
        raise _BadScreen("Invalid sortField or sortType")
    include = query.get("includeFields") or ["ticker"]
    if not isinstance(include, list):
        raise _BadScreen("Invalid includeFields")
    wanted = tuple(dict.fromkeys(["ticker", *(f for f in include if f in fields)]))
    top = query.get("query") or {"operator": "and", "operands": []}
    if not isinstance(top, dict) or str(top.get("operator", "")).lower() != "and" \
            or not isinstance(top.get("operands"), list):
        raise _BadScreen("Invalid query: the sandbox runs an 'and' of conditions")
    criteria = tuple(_condition(op, fields) for op in top["operands"])
    return quote_type, min(size, MAX_COUNT), offset, sort_field, sort_type, wanted, criteria


def _record_value(field: str, value: Any) -> Any:
    """A screen field as Yahoo's formatted records send it."""
    if not _number(value):
        return value
    if field in _BIG_FIELDS:
        return {"raw": value, "fmt": _abbreviate(value), "longFmt": f"{round(value):,}"}
    if field in ("percentchange", "fiftytwowkpercentchange"):
        return {"raw": value, "fmt": f"{value:.2f}%"}
    return {"raw": value, "fmt": f"{value:,.2f}"}


def handle_custom_screener(req: Request) -> SandboxResponse:
    try:
        quote_type, size, offset, sort_field, sort_type, wanted, criteria = \
            _screen_request(req.body)
    except _BadScreen as exc:
        return finance_error("Bad Request", str(exc), 400)
    matches = screen(_rows(req.now(), quote_type), criteria, sort_field, sort_type)
    page = matches[offset:offset + size]
    records = [{f: _record_value(f, r.fields.get(f)) for f in wanted} for r in page]
    result = {"start": offset, "count": len(records), "total": len(matches),
              "records": records, "useRecords": True, "predefinedScr": False,
              "versionId": 1, "isPremium": False}
    return json_response({"finance": {"result": [result], "error": None}})
