"""``/files/data/fails-deliver-data/cnsfails{YYYYMM}{a|b}.zip``: the SEC's half-monthly
fails-to-deliver files.

Why these rows: the securities are the sandbox's famous US equities and its US ETFs (the
files list NSCC-cleared securities only, so a non-US listing such as SAP.DE never appears);
each fails on about two thirds of the US sessions of the half month, with a balance
log-uniform between 100 and 2,000,000 shares (a sixth of the days a large one), priced at
the previous session's close of the sandbox series (so Yahoo's sandbox agrees). KO never
fails: the sandbox's listed security without fails. CUSIPs are the real ones for a few, else
made up from the ticker (with a valid check digit). A file exists once the sandbox clock
is :data:`~marketdata.records.disclosures.PUBLICATION_LAG_DAYS` past its period's end;
earlier (and for a malformed month) it is EDGAR's 404 page. Files are zips built in memory
with one pipe-delimited text member, as the SEC publishes them.
"""

from __future__ import annotations

import io
import zipfile
from datetime import date, timedelta
from functools import lru_cache

import numpy as np

from marketdata.records.disclosures import PUBLICATION_LAG_DAYS, HalfMonth
from marketdata.sandbox.instruments import (
    EQUITY,
    FAMOUS,
    KNOWN_ETFS,
    US_EXCHANGES,
    get_instrument,
    stable_hash,
    unit,
)
from marketdata.sandbox.prices import get_series

HEADER = "SETTLEMENT DATE|CUSIP|SYMBOL|QUANTITY (FAILS)|DESCRIPTION|PRICE"
NEVER_FAILS = frozenset({"KO"})
REAL_CUSIPS = {"AAPL": "037833100", "MSFT": "594918104", "NVDA": "67066G104",
               "SPY": "78462F103", "QQQ": "46090E103", "TSLA": "88160R101"}
# The clock of the sessions: the US calendar of AAPL's venue.
CALENDAR_SYMBOL = "AAPL"


def universe() -> tuple[str, ...]:
    """The securities of every file, in the files' order (by ticker)."""
    equities = [s for s, row in FAMOUS.items() if row[0] == EQUITY]
    funds = [s for s in KNOWN_ETFS]
    out = []
    for symbol in sorted(set(equities) | set(funds)):
        inst = get_instrument(symbol)
        if inst is not None and inst.exchange.code in US_EXCHANGES:
            out.append(symbol)
    return tuple(out)


def cusip(symbol: str) -> str:
    """The real CUSIP where known, else 6 digits from the ticker, issue ``10`` and the
    CUSIP check digit."""
    if symbol in REAL_CUSIPS:
        return REAL_CUSIPS[symbol]
    base = f"{stable_hash('sandbox-cusip', symbol) % 1_000_000:06d}10"
    total = 0
    for position, char in enumerate(base):
        value = int(char) * (2 if position % 2 else 1)
        total += value // 10 + value % 10
    return base + str((10 - total % 10) % 10)


def description(symbol: str) -> str:
    inst = get_instrument(symbol)
    assert inst is not None
    name = (inst.long_name or inst.short_name).upper().replace(",", "").replace(".", "")
    return name[:30].rstrip()


def published(period: HalfMonth, today: date) -> bool:
    return period.last_day + timedelta(days=PUBLICATION_LAG_DAYS) <= today


def _sessions(period: HalfMonth) -> list[date]:
    inst = get_instrument(CALENDAR_SYMBOL)
    assert inst is not None
    days = get_series(inst).days
    lo = int(np.searchsorted(days, np.datetime64(period.first_day), side="left"))
    hi = int(np.searchsorted(days, np.datetime64(period.last_day), side="right"))
    return [day.astype(date) for day in days[lo:hi]]


def _previous_close(symbol: str, day: date) -> float | None:
    inst = get_instrument(symbol)
    assert inst is not None
    series = get_series(inst)
    i = int(np.searchsorted(series.days, np.datetime64(day), side="left")) - 1
    return float(series.c[i]) if i >= 0 else None


def _quantity(symbol: str, day: date) -> int:
    low, high = (100, 20_000) if unit("ftd-size", symbol, day) < 5 / 6 else (20_000, 2_000_000)
    return int(low * (high / low) ** unit("ftd-qty", symbol, day))


def rows(period: HalfMonth) -> list[str]:
    """The file's data lines, by settlement day then ticker."""
    out = []
    for day in _sessions(period):
        for symbol in universe():
            if symbol in NEVER_FAILS or unit("ftd-day", symbol, day) >= 2 / 3:
                continue
            price = _previous_close(symbol, day)
            shown = "." if price is None else f"{price:.2f}"
            out.append(f"{day:%Y%m%d}|{cusip(symbol)}|{symbol}|{_quantity(symbol, day)}|"
                       f"{description(symbol)}|{shown}")
    return out


@lru_cache(maxsize=32)
def zipped(period: HalfMonth) -> bytes:
    """The published zip of one half month: ``cnsfails{YYYYMM}{a|b}.txt`` inside."""
    text = "\n".join([HEADER, *rows(period)]) + "\n"
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(f"cnsfails{period.name}.txt", text.encode("latin-1"))
    return buffer.getvalue()
