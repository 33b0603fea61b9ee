"""FMP's disclosure endpoints: ``/api/v4/fail_to_deliver?symbol=`` (the legacy v4 path) and
``/stable/senate-trades?symbol=``, ``/stable/house-trades?symbol=``.

Why these rows: fails-to-deliver are the SEC sandbox's published files (the same balances,
prices and CUSIPs), newest first, FMP's ``name`` the file's description. Trades: US-listed
equities and ETFs get a few made-up members' trades each in the two years before the clock (names,
states and districts invented; ``amount`` one of the STOCK Act's ranges), only those
disclosed by now, newest disclosure first as FMP lists them. Unknown symbols and symbols
without rows get ``[]``.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from marketdata.records.disclosures import HalfMonth, ftd_periods
from marketdata.sandbox.common import Request
from marketdata.sandbox.fmp.common import empty, missing, rows, symbol_arg, today, whole
from marketdata.sandbox.instruments import (
    EQUITY,
    ETF,
    US_EXCHANGES,
    get_instrument,
    pick,
    stable_hash,
    unit,
)
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.sec import fails

FTD_PERIODS = 24

SENATORS = (("Alice", "Marrow", "OH"), ("Benjamin", "Cortland", "AZ"),
            ("Carla", "Whitfield", "GA"), ("Daniel", "Osei", "MN"), ("Evelyn", "Strand", "TX"))
REPRESENTATIVES = (("Frank", "Delgado", "CA17"), ("Grace", "Holloway", "NY12"),
                   ("Henry", "Ives", "FL23"), ("Irene", "Kowalski", "IL09"),
                   ("James", "Okafor", "TX02"), ("Karen", "Lindqvist", "WA07"))
AMOUNTS = ("$1,001 - $15,000", "$15,001 - $50,000", "$50,001 - $100,000",
           "$100,001 - $250,000", "$250,001 - $500,000", "$1,000,001 - $5,000,000")
TYPES = ("Purchase", "Sale (Full)", "Sale (Partial)", "Exchange")
OWNERS = ("Self", "Spouse", "Joint", "Child")


def handle_fail_to_deliver(req: Request) -> SandboxResponse:
    symbol = symbol_arg(req)
    if symbol is None:
        return missing("symbol")
    if symbol not in fails.universe():
        return empty()
    out: list[dict[str, Any]] = []
    for period in ftd_periods(today(req).date(), FTD_PERIODS // 2):
        out.extend(_ftd_rows(period, symbol))
    out.sort(key=lambda row: row["date"], reverse=True)
    return rows(out)


def _ftd_rows(period: HalfMonth, symbol: str) -> list[dict[str, Any]]:
    out = []
    for line in fails.rows(period):
        day, cusip, listed, quantity, name, price = line.split("|")
        if listed != symbol:
            continue
        out.append({"symbol": listed, "date": f"{day[:4]}-{day[4:6]}-{day[6:]}",
                    "price": None if price == "." else whole(float(price)),
                    "quantity": int(quantity), "cusip": cusip, "name": name})
    return out


def _trades(req: Request, chamber: str) -> SandboxResponse:
    symbol = symbol_arg(req)
    if symbol is None:
        return missing("symbol")
    inst = get_instrument(symbol)
    if inst is None or inst.kind not in (EQUITY, ETF) or inst.exchange.code not in US_EXCHANGES:
        return empty()
    now = today(req).date()
    members = SENATORS if chamber == "senate" else REPRESENTATIVES
    out = []
    for n in range(stable_hash("congress", chamber, symbol) % 7):
        first, last, place = pick(members, "member", chamber, symbol, n)
        traded = now - timedelta(days=int(730 * unit("traded", chamber, symbol, n)))
        disclosed = traded + timedelta(days=5 + int(40 * unit("lag", chamber, symbol, n)))
        if disclosed > now:
            continue
        out.append(_row(chamber, inst.symbol, inst.long_name or inst.short_name,
                        "Stock" if inst.kind == EQUITY else "ETF", first, last, place,
                        traded, disclosed, n))
    out.sort(key=lambda row: row["disclosureDate"], reverse=True)
    return rows(out)


def _row(chamber: str, symbol: str, name: str, asset_type: str, first: str, last: str,
         place: str, traded: date, disclosed: date, n: int) -> dict[str, Any]:
    report = stable_hash("report", chamber, symbol, n) % 90_000_000 + 10_000_000
    link = (f"https://efdsearch.senate.gov/search/view/ptr/{report:x}/" if chamber == "senate"
            else f"https://disclosures-clerk.house.gov/public_disc/ptr-pdfs/{disclosed.year}/"
                 f"{report}.pdf")
    return {"symbol": symbol, "disclosureDate": disclosed.isoformat(),
            "transactionDate": traded.isoformat(), "firstName": first, "lastName": last,
            "office": f"{first} {last}", "district": place,
            "owner": pick(OWNERS, "owner", chamber, symbol, n), "assetDescription": name,
            "assetType": asset_type, "type": pick(TYPES, "type", chamber, symbol, n),
            "amount": pick(AMOUNTS, "amount", chamber, symbol, n),
            "capitalGainsOver200USD": "False", "comment": "", "link": link}


def handle_senate_trades(req: Request) -> SandboxResponse:
    return _trades(req, "senate")


def handle_house_trades(req: Request) -> SandboxResponse:
    return _trades(req, "house")
