"""``POST /data/group/otcMarket/name/consolidatedShortInterest``: FINRA's Query API over its
consolidated short interest, as the service asks it (compare filters, date range filters,
``fields``, ``limit``/``offset``).

Why these numbers: the securities are those of the daily files (:mod:`.files`). Settlement
dates are FINRA's schedule on the sandbox's US calendar: the last session on or before the
15th and the last session of each month. A settlement is published once the sandbox clock
has passed 18:00 New York on the seventh session after it (FINRA disseminates about a week
and a half later). For each security and settlement: the average daily volume is the mean
of the sandbox series' volume over the cycle's sessions (after the previous settlement, up
to this one); days to cover is drawn from 0.5-5.0 (sha256 of the security and date), the
position is the volume times it; the previous position is the previous cycle's; the change
and its percent follow, as FINRA computes them; one settlement in twenty is flagged revised.
"""

from __future__ import annotations

import calendar
from datetime import date, datetime
from functools import lru_cache
from typing import Any

import numpy as np

from marketdata.sandbox.finra.files import NEW_YORK, OTC, PUBLISHED_AT, securities, written
from marketdata.sandbox.instruments import get_instrument, unit
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.sec.fails import CALENDAR_SYMBOL

PUBLICATION_SESSIONS = 7
MARKET_CLASS = {"NMS": "NNM", "NGM": "NNM", "NCM": "NCM", "NAS": "NNM", "NYQ": "NYSE",
                "PCX": "ARCA"}
FIELDS = ("accountingYearMonthNumber", "symbolCode", "issueName",
          "issuerServicesGroupExchangeCode", "marketClassCode", "currentShortPositionQuantity",
          "previousShortPositionQuantity", "stockSplitFlag", "averageDailyVolumeQuantity",
          "daysToCoverQuantity", "revisionFlag", "changePercent", "changePreviousNumber",
          "settlementDate")


@lru_cache(maxsize=1)
def _sessions() -> np.ndarray:
    inst = get_instrument(CALENDAR_SYMBOL)
    assert inst is not None
    return get_series(inst).days


def _last_session_by(day: date) -> int:
    """Index of the last session on or before ``day``."""
    return int(np.searchsorted(_sessions(), np.datetime64(day), side="right")) - 1


@lru_cache(maxsize=1)
def settlements() -> tuple[date, ...]:
    """Every settlement date of the calendar, oldest first."""
    days = _sessions()
    first, last = days[0].astype(date), days[-1].astype(date)
    out: list[date] = []
    year, month = first.year, first.month
    while (year, month) <= (last.year, last.month):
        end = calendar.monthrange(year, month)[1]
        for target in (date(year, month, 15), date(year, month, end)):
            i = _last_session_by(target)
            if i >= 0:
                day = days[i].astype(date)
                if not out or day > out[-1]:
                    out.append(day)
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return tuple(out)


def published(settlement: date, now: datetime) -> bool:
    days = _sessions()
    i = _last_session_by(settlement) + PUBLICATION_SESSIONS
    if i >= len(days):
        return False
    out = datetime.combine(days[i].astype(date), PUBLISHED_AT, NEW_YORK)
    return now >= out


def _average_volume(symbol: str, after: date | None, upto: date) -> int:
    inst = get_instrument(symbol)
    if inst is None:
        return 0
    series = get_series(inst)
    lo = 0 if after is None else int(np.searchsorted(series.days, np.datetime64(after),
                                                      side="right"))
    hi = int(np.searchsorted(series.days, np.datetime64(upto), side="right"))
    window = series.v[lo:hi]
    return int(window.mean()) if len(window) else 0


@lru_cache(maxsize=8192)
def position(symbol: str, index: int) -> tuple[int, int, float]:
    """(shares short, average daily volume, days to cover) at settlement ``index``."""
    dates = settlements()
    after = dates[index - 1] if index > 0 else None
    volume = _average_volume(symbol, after, dates[index])
    cover = 0.5 + 4.5 * unit("finra-dtc", symbol, dates[index])
    return int(volume * cover), volume, cover


def record(symbol: str, index: int) -> dict[str, Any]:
    """One record as the Query API writes it."""
    day = settlements()[index]
    current, volume, _ = position(symbol, index)
    previous = position(symbol, index - 1)[0] if index > 0 else 0
    change = current - previous
    inst = get_instrument(symbol)
    assert inst is not None
    return {
        "accountingYearMonthNumber": int(f"{day:%Y%m%d}"),
        "symbolCode": written(symbol),
        "issueName": inst.long_name or inst.short_name,
        "issuerServicesGroupExchangeCode": "U" if symbol in OTC else "A",
        "marketClassCode": "OTC" if symbol in OTC
        else MARKET_CLASS.get(inst.exchange.code, "NNM"),
        "currentShortPositionQuantity": current,
        "previousShortPositionQuantity": previous,
        "stockSplitFlag": None,
        "averageDailyVolumeQuantity": volume,
        "daysToCoverQuantity": min(999.99, round(current / volume, 2)) if volume else 999.99,
        "revisionFlag": "R" if unit("finra-revised", symbol, day) < 0.05 else None,
        "changePercent": round(change / previous * 100, 2) if previous else 0,
        "changePreviousNumber": change,
        "settlementDate": day.isoformat(),
    }


def records(symbols: tuple[str, ...] | None, start: date | None, end: date | None,
            now: datetime) -> list[dict[str, Any]]:
    """Every published record of ``symbols`` (as FINRA writes them; None: every security)
    settled in ``[start, end]``, by settlement date then symbol."""
    chosen = [s for s in securities() if symbols is None or written(s) in symbols]
    out = []
    for index, day in enumerate(settlements()):
        if (start and day < start) or (end and day > end) or not published(day, now):
            continue
        out += [record(symbol, index) for symbol in chosen]
    return out
