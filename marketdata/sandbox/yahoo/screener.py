"""GET /v1/finance/screener/predefined/saved?scrIds=DAY_GAINERS&count=25: predefined screeners.

Why: movers must agree with every other sandbox answer, so each row is the same v7 quote
(``quote_values``) the batch quote endpoint would give for that symbol at that clock; the
screener only chooses and ranks. The universe is the famous US equities plus a fixed set of
generated tickers (derived from a stable hash, identical in every run).

Screeners: MOST_ACTIVES (by volume), DAY_GAINERS (percent change > 0, largest first),
DAY_LOSERS (percent change < 0, largest fall first); ids are case-insensitive as on Yahoo.
``count`` (default 25, at most 250), ``start`` (offset), ``fields`` (Yahoo's base keys plus
the listed ones) and ``formatted`` (default true: numbers as ``{raw, fmt}``) are honoured.
"""

from __future__ import annotations

import json
import string
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

from marketdata.sandbox.instruments import (
    EQUITY,
    FAMOUS,
    KNOWN_ETFS,
    get_instrument,
    is_known_symbol,
    stable_hash,
    unit,
)
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.common import Request, finance_error, json_response
from marketdata.sandbox.yahoo.market import MarketView, market_view
from marketdata.sandbox.yahoo.quote import BASE_FIELDS, quote_values

UNIVERSE_SIZE = 200
MAX_COUNT = 250
DEFAULT_COUNT = 25

Row = dict[str, Any]


@dataclass(frozen=True)
class Screener:
    canonical: str
    title: str
    description: str
    sort_field: str
    sort_type: str
    criteria: tuple[tuple[str, str, float], ...]  # (field, operator, value)
    select: Callable[[Row], bool]
    rank: Callable[[Row], tuple[float, str]]
    icon: str


SCREENERS: dict[str, Screener] = {s.canonical: s for s in (
    Screener("MOST_ACTIVES", "Most Actives",
             "Discover the most traded equities in the trading day.", "dayvolume", "DESC",
             (("dayvolume", "GT", 0),), lambda q: q["regularMarketVolume"] > 0,
             lambda q: (-q["regularMarketVolume"], q["symbol"]), "mostActives"),
    Screener("DAY_GAINERS", "Day Gainers",
             "Discover the equities with the greatest gains in the trading day.",
             "percentchange", "DESC", (("percentchange", "GT", 0),),
             lambda q: q["regularMarketChangePercent"] > 0,
             lambda q: (-q["regularMarketChangePercent"], q["symbol"]), "trendingUp"),
    Screener("DAY_LOSERS", "Day Losers",
             "Discover the equities with the greatest losses in the trading day.",
             "percentchange", "ASC", (("percentchange", "LT", 0),),
             lambda q: q["regularMarketChangePercent"] < 0,
             lambda q: (q["regularMarketChangePercent"], q["symbol"]), "trendingDown"),
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


def _ticker(i: int) -> str:
    h = stable_hash("sandbox-screener-universe", i)
    length = 3 + h % 2
    letters = string.ascii_uppercase
    return "".join(letters[(h >> (8 + 5 * k)) % 26] for k in range(length))


@lru_cache(maxsize=1)
def universe() -> tuple[str, ...]:
    """The screened symbols: famous US equities, then generated tickers (all EQUITY)."""
    out = [s for s, row in FAMOUS.items() if row[0] == EQUITY]
    seen = set(out)
    i = 0
    while len(out) < UNIVERSE_SIZE:
        sym = _ticker(i)
        i += 1
        if sym in seen or sym in FAMOUS or sym in KNOWN_ETFS or not is_known_symbol(sym):
            continue
        inst = get_instrument(sym)
        if inst is None or inst.kind != EQUITY:
            continue
        seen.add(sym)
        out.append(sym)
    return tuple(out)


def _row(view: MarketView) -> Row:
    vals = quote_values(view)
    sym = view.inst.symbol
    # Two valuation ratios only the screener shows (plausible, from the symbol's hash).
    vals["lastCloseTevEbitLtm"] = round(6 + 30 * unit("tev", sym), 6)
    vals["lastClosePriceToNNWCPerShare"] = round(-20 + 40 * unit("nnwc", sym), 6)
    return vals


def _rows(now: int) -> list[Row]:
    rows = []
    for sym in universe():
        inst = get_instrument(sym)
        if inst is not None:
            rows.append(_row(market_view(get_series(inst), now)))
    return rows


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


def _criteria(screener: Screener, count: int, start: int) -> tuple[dict[str, Any], str]:
    meta = {"size": count, "offset": start, "sortField": screener.sort_field,
            "sortType": screener.sort_type, "quoteType": "EQUITY",
            "criteria": [{"field": f, "subField": None, "operators": [op], "values": [v],
                          "labelsSelected": [], "dependentValues": []}
                         for f, op, v in screener.criteria]
            + [{"field": "region", "subField": None, "operators": ["EQ"], "values": [],
                "labelsSelected": [53], "dependentValues": []}],
            "topOperator": "AND"}
    query = {"operator": "AND", "operands": [
        {"operator": op, "operands": [f, v]} for f, op, v in screener.criteria]
        + [{"operator": "eq", "operands": ["region", "us"]}]}
    raw = {"offset": start, "size": count, "sortField": screener.sort_field,
           "sortType": screener.sort_type, "quoteType": "EQUITY", "query": query}
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
    matches = sorted((r for r in _rows(now) if screener.select(r)), key=screener.rank)
    page = [_ordered(r, fields) for r in matches[start:start + count]]
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
