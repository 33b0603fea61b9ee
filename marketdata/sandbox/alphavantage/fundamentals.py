"""``GET /query?function=OVERVIEW|EARNINGS&symbol=...``: Alpha Vantage's company overview
and quarterly earnings of a US stock.

Why these values: the sandbox's Yahoo tells the same story, so switching sources changes
the provider's words, not the facts. The overview is the Yahoo sandbox's assetProfile
(name, description, sector, industry, website, address) and price (market capitalization)
in Alpha Vantage's shape: every value a string, sector and industry in capitals, the
country ``USA``, the address on one upper-case line, ``"None"`` where Alpha Vantage has no
value. The reported quarters are the Yahoo sandbox's earningsHistory (the same EPS,
estimates and quarter ends), newest first, with ``reportedDate`` the day the sandbox's
calendar put the report on, Alpha Vantage's ``surprise`` and ``surprisePercentage``
(percent units, 4 decimals).

Coverage, as Alpha Vantage's: US-listed stocks only. A fund, an index, a currency, a
listing outside the US and an unknown symbol get ``{}`` (the service then asks Yahoo). A
missing ``symbol`` is its "Invalid API call" error; an unknown ``function`` its "does not
exist" error (both 200s, as Alpha Vantage sends them).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.instruments import EQUITY, US_EXCHANGES, Instrument, get_instrument
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo import analysis_modules
from marketdata.sandbox.yahoo.market import MarketView, market_view
from marketdata.sandbox.yahoo.quote_summary import _company_header

# Yahoo's exchange codes -> Alpha Vantage's exchange names.
_EXCHANGES = {"NMS": "NASDAQ", "NGM": "NASDAQ", "NCM": "NASDAQ", "NAS": "NASDAQ",
              "NYQ": "NYSE", "PCX": "NYSE ARCA"}


def message(member: str, text: str) -> SandboxResponse:
    """Alpha Vantage's notices and errors: a 200 with one member."""
    return json_response({member: text})


def invalid_call(function: str) -> SandboxResponse:
    return message("Error Message", "Invalid API call. Please retry or visit the "
                   f"documentation (https://www.alphavantage.co/documentation/) for {function}.")


def us_stock(symbol: str) -> Instrument | None:
    """The sandbox equity behind ``symbol`` when it is listed in the US; None otherwise."""
    inst = get_instrument(symbol)
    if inst is None or inst.kind != EQUITY or inst.exchange.code not in US_EXCHANGES:
        return None
    return inst


def _view(inst: Instrument, req: Request) -> MarketView:
    return market_view(get_series(inst), req.now())


def _raw(value: Any) -> Any:
    return value.get("raw") if isinstance(value, dict) else value


def _day(epoch: Any) -> date:
    return datetime.fromtimestamp(int(epoch), UTC).date()


def report_day(inst: Instrument, quarter_end: date) -> date:
    """The day the sandbox's calendar reports a quarter on: in the month after it ends, on
    the instrument's reporting day (as MarketView.earnings_dates places reports)."""
    year, month = (quarter_end.year + 1, 1) if quarter_end.month == 12 else \
        (quarter_end.year, quarter_end.month + 1)
    return date(year, month, min(18 + inst.seed % 12, 28))


def reported_quarters(view: MarketView) -> list[dict[str, Any]]:
    """The Yahoo sandbox's earningsHistory quarters, newest first, as plain values:
    ``{quarter_end, report_day, actual, estimate}``."""
    module = analysis_modules.earnings_history(view) or {}
    out = []
    for row in module.get("history", []):
        end = _day(_raw(row["quarter"]))
        out.append({"quarter_end": end, "report_day": report_day(view.inst, end),
                    "actual": _raw(row["epsActual"]), "estimate": _raw(row["epsEstimate"])})
    return out[::-1]


def _text(value: float | int | None) -> str:
    return "None" if value is None else str(value)


def overview(inst: Instrument, view: MarketView) -> dict[str, Any]:
    header = _company_header(inst)
    address = ", ".join(part for part in (header["address1"], header["city"],
                                          header.get("state"), "US") if part).upper()
    eps = view.eps
    return {
        "Symbol": inst.symbol, "AssetType": "Common Stock",
        "Name": inst.long_name or inst.short_name,
        "Description": header["longBusinessSummary"],
        "CIK": str(100000 + inst.seed % 1900000),
        "Exchange": _EXCHANGES.get(inst.exchange.code, inst.exchange.code),
        "Currency": inst.currency, "Country": "USA",
        "Sector": header["sector"].upper(), "Industry": header["industry"].upper(),
        "Address": address, "OfficialSite": header["website"],
        "FiscalYearEnd": "September",
        "MarketCapitalization": _text(view.market_cap),
        "EBITDA": "None",
        "PERatio": _text(round(view.snap.price / eps, 2) if eps > 0 else None),
        "EPS": _text(eps), "SharesOutstanding": _text(view.shares),
        "DividendDate": "None", "ExDividendDate": "None",
    }


def earnings(inst: Instrument, view: MarketView) -> dict[str, Any]:
    quarters = []
    for row in reported_quarters(view):
        actual, estimate = row["actual"], row["estimate"]
        surprise = round(actual - estimate, 4)
        quarters.append({
            "fiscalDateEnding": row["quarter_end"].isoformat(),
            "reportedDate": row["report_day"].isoformat(),
            "reportedEPS": _text(actual), "estimatedEPS": _text(estimate),
            "surprise": _text(surprise),
            "surprisePercentage": _text(round(surprise / abs(estimate) * 100, 4)
                                        if estimate else None),
            "reportTime": "post-market"})
    annual = []
    for year in sorted({q["quarter_end"].year for q in reported_quarters(view)}, reverse=True):
        year_rows = [q for q in reported_quarters(view) if q["quarter_end"].year == year]
        if len(year_rows) == 4:
            annual.append({"fiscalDateEnding": f"{year}-12-31",
                           "reportedEPS": _text(round(sum(q["actual"] for q in year_rows),
                                                      2))})
    return {"symbol": inst.symbol, "annualEarnings": annual, "quarterlyEarnings": quarters}


FUNCTIONS = {"OVERVIEW": overview, "EARNINGS": earnings}


def handle_query(req: Request) -> SandboxResponse:
    function = (req.arg("function") or "").strip().upper()
    builder = FUNCTIONS.get(function)
    if builder is None:
        return message("Error Message", f"This API function ({function}) does not exist.")
    symbol = (req.arg("symbol") or "").strip().upper()
    if not symbol:
        return invalid_call(function)
    inst = us_stock(symbol)
    if inst is None:
        return json_response({})
    return json_response(builder(inst, _view(inst, req)))
