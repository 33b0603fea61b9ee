"""``/stable/earnings?symbol=``: FMP's reported and upcoming earnings of a stock.

Why these rows: the Yahoo sandbox's earningsHistory quarters (the same EPS and estimates),
newest first, dated on the day the sandbox's calendar reports each quarter, as FMP dates
rows by the report; the next report comes first with null actuals, as FMP lists the
upcoming one. Revenue is the Yahoo sandbox's quarterly revenue level, rounded to whole
units. Only equities have rows; other known symbols and unknown ones get ``[]``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from marketdata.sandbox.alphavantage.fundamentals import reported_quarters
from marketdata.sandbox.common import Request
from marketdata.sandbox.fmp.common import empty, equity, missing, rows, symbol_arg, view_of
from marketdata.sandbox.instruments import unit
from marketdata.sandbox.response import SandboxResponse


def handle_earnings(req: Request) -> SandboxResponse:
    symbol = symbol_arg(req)
    if symbol is None:
        return missing("symbol")
    inst = equity(symbol)
    if inst is None:
        return empty()
    view = view_of(inst, req)
    revenue = int(view.eps * view.shares * (4 + 6 * unit("ps", inst.symbol)) / 4)
    updated = datetime.fromtimestamp(req.now(), UTC).strftime("%Y-%m-%d")
    out: list[dict[str, Any]] = []
    _, upcoming = view.earnings_dates()
    if upcoming is not None:
        out.append({"symbol": inst.symbol,
                    "date": datetime.fromtimestamp(upcoming, UTC).strftime("%Y-%m-%d"),
                    "epsActual": None, "epsEstimated": round(view.forward_eps / 4, 2),
                    "revenueActual": None, "revenueEstimated": revenue,
                    "lastUpdated": updated})
    for row in reported_quarters(view):
        out.append({"symbol": inst.symbol, "date": row["report_day"].isoformat(),
                    "epsActual": row["actual"], "epsEstimated": row["estimate"],
                    "revenueActual": int(revenue * (0.95 + 0.1 * unit(
                        "rev", inst.symbol, row["quarter_end"].isoformat()))),
                    "revenueEstimated": revenue, "lastUpdated": updated})
    return rows(out)
