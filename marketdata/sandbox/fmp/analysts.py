"""``/stable/grades``, ``/stable/price-target-consensus`` and ``/stable/price-target-summary``.

Why: the analyst endpoints ask FMP first when a key is set; in sandbox mode they must get
FMP's shapes and the same story the sandbox's Yahoo tells, so switching sources changes
the provider, not the facts:

- grades are the Yahoo sandbox's ``upgradeDowngradeHistory`` rows (same firms, grades and
  days), newest first, as FMP rows ``{symbol, date, gradingCompany, previousGrade,
  newGrade, action}`` (``date`` is the UTC day of Yahoo's epoch; an initiation has
  ``previousGrade: ""`` as Yahoo's ``fromGrade`` has);
- the consensus is the Yahoo sandbox's ``financialData`` targets (mean -> targetConsensus,
  high, low, median), in the recording's key order, whole numbers written without ``.0``;
- the summary counts synthetic target publications: on each of the 1,460 days before the
  clock's day, an equity publishes a target with a per-symbol probability (2-10%), seeded
  by (symbol, day) so a day's publication never changes as the clock moves; the target is
  that session's close times 0.95-1.25. Windows: last 30, 90, 365 days and all; averages
  rounded to 2 decimals and 0 when the count is 0 (as FMP writes them).

Only equities have analyst data; other known symbols and unknown ones get ``[]``.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from marketdata.sandbox.common import Request
from marketdata.sandbox.fmp.common import (
    empty,
    equity,
    missing,
    rows,
    symbol_arg,
    today,
    view_of,
    whole,
)
from marketdata.sandbox.instruments import pick, unit
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo import analysis_modules

# Yahoo's rating-change codes -> FMP's action words (FMP's full vocabulary is not recorded;
# the service does not read `action`).
_ACTIONS = {"up": "upgrade", "down": "downgrade", "main": "maintain", "reit": "maintain",
            "init": "initialise"}
_PUBLISHERS = ("Benzinga", "TheFly", "StreetInsider", "MarketWatch", "TipRanks",
               "Investing.com", "Barrons")
SUMMARY_DAYS = 1460
WINDOWS = (("lastMonth", 30), ("lastQuarter", 90), ("lastYear", 365),
           ("allTime", SUMMARY_DAYS))


def handle_grades(req: Request) -> SandboxResponse:
    symbol = symbol_arg(req)
    if symbol is None:
        return missing("symbol")
    inst = equity(symbol)
    module = analysis_modules.upgrade_downgrade_history(view_of(inst, req)) if inst else None
    if not module or inst is None:
        return empty()
    return rows([{"symbol": inst.symbol,
                  "date": datetime.fromtimestamp(row["epochGradeDate"], UTC)
                  .strftime("%Y-%m-%d"),
                  "gradingCompany": row["firm"], "previousGrade": row["fromGrade"],
                  "newGrade": row["toGrade"], "action": _ACTIONS.get(row["action"], "maintain")}
                 for row in module["history"]])


def consensus_of(inst: Any, req: Request) -> dict[str, Any] | None:
    """The FMP consensus row of an equity (None when the sandbox's Yahoo has no targets)."""
    data = analysis_modules.financial_data(view_of(inst, req))
    if not data:
        return None

    def target(name: str) -> int | float:
        return whole(round(data[name].raw, 2))

    return {"symbol": inst.symbol, "targetHigh": target("targetHighPrice"),
            "targetLow": target("targetLowPrice"), "targetConsensus": target("targetMeanPrice"),
            "targetMedian": target("targetMedianPrice")}


def handle_price_target_consensus(req: Request) -> SandboxResponse:
    symbol = symbol_arg(req)
    if symbol is None:
        return missing("symbol")
    inst = equity(symbol)
    row = consensus_of(inst, req) if inst else None
    return rows([row]) if row else empty()


def publications(inst: Any, req: Request) -> list[tuple[int, float]]:
    """(days before the clock's day, target) of every synthetic publication, newest first."""
    sym = inst.symbol
    rate = 0.02 + 0.08 * unit("fmp-pt-rate", sym)
    day0 = today(req).date()
    series = view_of(inst, req).series
    out: list[tuple[int, float]] = []
    for back in range(1, SUMMARY_DAYS + 1):
        day = day0 - timedelta(days=back)
        if unit("fmp-pt", sym, day.toordinal()) >= rate:
            continue
        noon = int(datetime(day.year, day.month, day.day, 12, tzinfo=UTC).timestamp())
        i = int(np.searchsorted(series.opens, noon, side="right")) - 1
        if i < 0:
            continue
        factor = 0.95 + 0.3 * unit("fmp-pt-level", sym, day.toordinal())
        out.append((back, round(float(series.c[i]) * factor, 2)))
    return out


def summary_of(inst: Any, req: Request) -> dict[str, Any] | None:
    found = publications(inst, req)
    if not found:
        return None
    row: dict[str, Any] = {"symbol": inst.symbol}
    for name, days in WINDOWS:
        targets = [target for back, target in found if back <= days]
        row[f"{name}Count"] = len(targets)
        row[f"{name}AvgPriceTarget"] = (whole(round(sum(targets) / len(targets), 2))
                                        if targets else 0)
    count = 1 + int(unit("fmp-pubs", inst.symbol) * 4)
    names = sorted({pick(_PUBLISHERS, "fmp-pub", inst.symbol, k) for k in range(count)})
    row["publishers"] = json.dumps(names, separators=(",", ":"))
    return row


def handle_price_target_summary(req: Request) -> SandboxResponse:
    symbol = symbol_arg(req)
    if symbol is None:
        return missing("symbol")
    inst = equity(symbol)
    row = summary_of(inst, req) if inst else None
    return rows([row]) if row else empty()
