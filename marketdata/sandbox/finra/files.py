"""``/equity/regsho/daily/{PREFIX}shvol{YYYYMMDD}.txt``: FINRA's daily short sale volume
files, one per trading day and facility.

Why these numbers: the securities are the sandbox's famous US-listed equities and ETFs
(``FAMOUS`` in ``instruments.py``: 27, each file's lines built from their price series, so a
cold sandbox builds 30 series, not hundreds) in the TRF and ADF files, and a few OTC ADRs
(:data:`OTC`) in the ORF's; any other symbol is in no file (the service answers 404). A security's
off-exchange volume on a session is 30-50 % of its daily volume in the sandbox's price
series (so it relates to ``/v2/chart``'s volume), split between the Nasdaq TRF Carteret
(50-65 %), the Nasdaq TRF Chicago (1-4 %) and the NYSE TRF (the rest); the ADF has a few
shares on one session in ten. The consolidated file is their sum and lists the facilities
that had volume in FINRA's order (``B,Q,N``). Short volume is 35-65 % of the volume,
short-exempt volume 0-1 % of the short volume, drawn per (security, day) from sha256.
Symbols are written as the exchanges list them: ``BRK.B``.

A day has files when it is a session of the sandbox's US calendar and the sandbox clock has
passed 18:00 New York that day (FINRA posts by 6 pm ET); otherwise, as FINRA's CDN, a 403
AccessDenied (:func:`published`). A file is a header, one line per security by symbol, and
a trailer line with the number of records, as FINRA's layout describes.
"""

from __future__ import annotations

import threading
from datetime import date, datetime, time
from functools import lru_cache
from zoneinfo import ZoneInfo

import numpy as np

from marketdata.sandbox.instruments import (
    EQUITY,
    ETF,
    FAMOUS,
    US_EXCHANGES,
    get_instrument,
    unit,
)
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.sec.fails import CALENDAR_SYMBOL

NEW_YORK = ZoneInfo("America/New_York")
PUBLISHED_AT = time(18, 0)
HEADER = "Date|Symbol|ShortVolume|ShortExemptVolume|TotalVolume|Market"
# OTC securities (ADRs quoted OTC): in the ORF's file only.
OTC = ("NSRGY", "RHHBY", "TCEHY")
# file prefix -> the facility code its Market column writes (None: the consolidated file).
FACILITIES = {"FNQC": "B", "FNSQ": "Q", "FNYX": "N", "FNRA": "D", "FORF": "O"}
PREFIXES = ("CNMS", *FACILITIES)
# The order the consolidated file lists facilities in.
CONSOLIDATED_ORDER = ("B", "Q", "N", "D")


def written(symbol: str) -> str:
    """The symbol as FINRA's files write it (class shares with a dot)."""
    return symbol.replace("-", ".")


def is_session(day: date) -> bool:
    inst = get_instrument(CALENDAR_SYMBOL)
    assert inst is not None
    days = get_series(inst).days
    i = int(np.searchsorted(days, np.datetime64(day), side="left"))
    return i < len(days) and days[i].astype(date) == day


def published(day: date, now: datetime) -> bool:
    """Whether FINRA's files of ``day`` are out at ``now``."""
    return is_session(day) and now >= datetime.combine(day, PUBLISHED_AT, NEW_YORK)


def daily_volume(symbol: str, day: date) -> int:
    """The sandbox series' volume of ``symbol`` on ``day`` (0 when it did not trade)."""
    inst = get_instrument(symbol)
    if inst is None:
        return 0
    series = get_series(inst)
    i = int(np.searchsorted(series.days, np.datetime64(day), side="left"))
    if i >= len(series.days) or series.days[i].astype(date) != day:
        return 0
    return int(series.v[i])


def volumes(symbol: str, day: date) -> dict[str, tuple[int, int, int]]:
    """``{facility code: (short, exempt, total)}`` of one security and day (facilities with
    volume only)."""
    total = daily_volume(symbol, day)
    if total <= 0:
        return {}
    off = int(total * (0.30 + 0.20 * unit("finra-off", symbol, day)))
    if symbol in OTC:
        shares = {"O": off}
    else:
        carteret = int(off * (0.50 + 0.15 * unit("finra-q", symbol, day)))
        chicago = int(off * (0.01 + 0.03 * unit("finra-b", symbol, day)))
        adf = int(200 * unit("finra-d-size", symbol, day)) + 1 \
            if unit("finra-d", symbol, day) < 0.1 else 0
        shares = {"B": chicago, "Q": carteret, "N": off - carteret - chicago, "D": adf}
    out = {}
    for code, volume in shares.items():
        if volume <= 0:
            continue
        short = int(volume * (0.35 + 0.30 * unit("finra-short", symbol, day, code)))
        exempt = int(short * 0.01 * unit("finra-exempt", symbol, day, code))
        out[code] = (short, exempt, volume)
    return out


def listed() -> tuple[str, ...]:
    """The famous US-listed equities and ETFs: the TRF and ADF files' securities."""
    return tuple(symbol for symbol, row in FAMOUS.items()
                 if row[0] in (EQUITY, ETF) and row[4] in US_EXCHANGES)


@lru_cache(maxsize=1)
def securities() -> tuple[str, ...]:
    """Every security of the files, by the symbol FINRA writes."""
    return tuple(sorted((*listed(), *OTC), key=written))


# The service asks for several days at once: files are made one at a time, so a cold
# sandbox builds each security's price series once, not once per concurrent request.
_MAKING = threading.Lock()


def file_text(prefix: str, day: date) -> str:
    """One published file: header, a line per security with volume there, trailer."""
    with _MAKING:
        return _file_text(prefix, day)


@lru_cache(maxsize=64)
def _file_text(prefix: str, day: date) -> str:
    stamp = f"{day:%Y%m%d}"
    lines = [HEADER]
    for symbol in securities():
        by_code = volumes(symbol, day)
        if prefix == "CNMS":
            codes = [code for code in CONSOLIDATED_ORDER if code in by_code]
            if not codes:
                continue
            short, exempt, total = (sum(by_code[c][k] for c in codes) for k in range(3))
            market = ",".join(codes)
        else:
            code = FACILITIES[prefix]
            if code not in by_code:
                continue
            (short, exempt, total), market = by_code[code], code
        lines.append(f"{stamp}|{written(symbol)}|{short}|{exempt}|{total}|{market}")
    lines.append(str(len(lines) - 1))
    return "\n".join(lines) + "\n"
