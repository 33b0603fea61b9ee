"""Series id -> a deterministic FRED-like series: frequency, first date, decimals, values.

Why: the sandbox must answer for any well-formed series id, the same way every time, and
look like FRED for the famous ones, agreeing with the rest of the sandbox where the same
quantity appears elsewhere:

- Treasury constant-maturity yields (DGS1MO, DGS3MO, DGS6MO, DGS1, DGS2, DGS3, DGS5, DGS7,
  DGS10, DGS20, DGS30), the spreads T10Y2Y and T10Y3M, SOFR, DFF, FEDFUNDS and
  MORTGAGE30US come from the Treasury sandbox's one curve (``treasury/curve.py``), so DGS10
  equals the Treasury CSV's ``10 Yr`` on every date both have;
- VIXCLS, SP500, DJIA, NASDAQCOM and DEXUSEU are the closes of ^VIX, ^GSPC, ^DJI, ^IXIC
  and EURUSD=X in the Yahoo sandbox (same prices as its charts and quotes);
- GDP, GDPC1, CPIAUCSL, CPILFESL, PCEPI, PCE, PAYEMS, INDPRO, M2SL grow from their real
  first values at a plausible rate; UNRATE, HOUST, UMCSENT, ICSA wander within their real
  ranges;
- the other ids of the catalogue (``OTHER_SERIES``: widely used FRED series) get a
  frequency, first year, level and shape from sha256 of the id. Values come from a numpy
  generator seeded by sha256 of the id, drawn once over the series' whole grid (first date
  .. 2040-12-31), so a date's value never changes.

Daily series list every weekday (FRED's convention) with no value (``.``) on the days
without one (holidays); daily values are out the evening of their day, weekly ones five
days after, monthly ones 2 weeks after the month, quarterly ones 4 weeks after the
quarter, annual ones 2 months after the year.

**Unknown ids**: every id outside the catalogue (``KNOWN`` and ``OTHER_SERIES``) does not
exist, and is FRED's "The series does not exist." answer, so a client sees the service's
404 for a mistyped id in the sandbox too.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from functools import lru_cache

import numpy as np
import pandas as pd

from marketdata.sandbox.treasury import curve

LAST_DAY = date(2040, 12, 31)
# pandas frequency of each FRED frequency code (daily series: weekdays).
_GRID = {"D": "B", "DA": "D", "W": "W-FRI", "M": "MS", "Q": "QS", "A": "YS"}
# How long after its date an observation is published.
_LAG = {"W": timedelta(days=5), "M": timedelta(days=31 + 14), "Q": timedelta(days=92 + 28),
        "A": timedelta(days=366 + 60)}


@dataclass(frozen=True)
class Spec:
    """How one series is built. ``kind``: ``growth`` (``level`` at ``start``, growing
    ``rate`` a year), ``range`` (wandering around ``level`` within ``low``..``high``),
    ``curve`` (a Treasury maturity ``source`` plus ``offset``), ``spread`` (maturity
    ``source`` minus maturity ``other``), ``price`` (sandbox closes of symbol ``source``),
    ``fedfunds`` (DFF's monthly mean)."""

    frequency: str
    start: date
    decimals: int
    kind: str
    level: float = 0.0
    rate: float = 0.0
    low: float = 0.0
    high: float = 0.0
    source: str = ""
    other: str = ""
    offset: float = 0.0
    grid: str | None = None  # a pandas frequency overriding the frequency's default


_CURVE_START = curve.FIRST_DAY


def _dgs(header: str) -> Spec:
    tenor = curve.TENORS[curve.TENOR_INDEX[header]]
    return Spec("D", max(_CURVE_START, tenor.first), 2, "curve", source=header)


KNOWN: dict[str, Spec] = {
    **{f"DGS{name}": _dgs(header) for name, header in (
        ("1MO", "1 Mo"), ("3MO", "3 Mo"), ("6MO", "6 Mo"), ("1", "1 Yr"), ("2", "2 Yr"),
        ("3", "3 Yr"), ("5", "5 Yr"), ("7", "7 Yr"), ("10", "10 Yr"), ("20", "20 Yr"),
        ("30", "30 Yr"))},
    "T10Y2Y": Spec("D", _CURVE_START, 2, "spread", source="10 Yr", other="2 Yr"),
    "T10Y3M": Spec("D", _CURVE_START, 2, "spread", source="10 Yr", other="3 Mo"),
    "SOFR": Spec("D", date(2018, 4, 3), 2, "curve", source="1 Mo", offset=0.02),
    "DFF": Spec("DA", date(1990, 1, 1), 2, "curve", source="3 Mo", offset=0.1),
    "FEDFUNDS": Spec("M", date(1990, 1, 1), 2, "fedfunds"),
    "MORTGAGE30US": Spec("W", date(1990, 1, 4), 2, "curve", source="10 Yr", offset=1.75,
                         grid="W-THU"),
    "VIXCLS": Spec("D", date(1990, 1, 2), 2, "price", source="^VIX"),
    "SP500": Spec("D", date(2016, 1, 4), 2, "price", source="^GSPC"),
    "DJIA": Spec("D", date(2016, 1, 4), 2, "price", source="^DJI"),
    "NASDAQCOM": Spec("D", date(1990, 1, 2), 2, "price", source="^IXIC"),
    "DEXUSEU": Spec("D", date(1999, 1, 4), 4, "price", source="EURUSD=X"),
    "GDP": Spec("Q", date(1947, 1, 1), 3, "growth", level=243.164, rate=0.063),
    "GDPC1": Spec("Q", date(1947, 1, 1), 3, "growth", level=2182.681, rate=0.03),
    "CPIAUCSL": Spec("M", date(1947, 1, 1), 3, "growth", level=21.48, rate=0.0355),
    "CPILFESL": Spec("M", date(1957, 1, 1), 3, "growth", level=28.5, rate=0.0365),
    "PCEPI": Spec("M", date(1959, 1, 1), 3, "growth", level=15.164, rate=0.0315),
    "PCE": Spec("M", date(1959, 1, 1), 1, "growth", level=306.1, rate=0.065),
    "PAYEMS": Spec("M", date(1939, 1, 1), 0, "growth", level=29923, rate=0.0162),
    "INDPRO": Spec("M", date(1919, 1, 1), 4, "growth", level=4.8654, rate=0.0287),
    "M2SL": Spec("M", date(1959, 1, 1), 1, "growth", level=286.6, rate=0.068),
    "UNRATE": Spec("M", date(1948, 1, 1), 1, "range", level=5.7, low=2.5, high=11.0),
    "HOUST": Spec("M", date(1959, 1, 1), 0, "range", level=1400, low=480, high=2300),
    "UMCSENT": Spec("M", date(1978, 1, 1), 1, "range", level=85, low=50, high=112),
    "ICSA": Spec("W", date(1967, 1, 7), 0, "range", level=350000, low=180000, high=700000,
                 grid="W-SAT"),
}


# Widely used series beyond the ones with their own recipe in KNOWN, with FRED's frequency
# (D daily, W weekly, M monthly, Q quarterly, A annual); the rest of the recipe is hashed.
OTHER_SERIES: dict[str, str] = {
    **dict.fromkeys(("BAMLC0A0CM", "BAMLH0A0HYM2", "DCOILBRENTEU", "DCOILWTICO", "DEXCAUS",
                     "DEXCHUS", "DEXJPUS", "DEXMXUS", "DEXUSUK", "DPRIME", "DTB3", "DTB6",
                     "DTWEXBGS", "IORB", "RRPONTSYD", "T10YIE", "T5YIE"), "D"),
    **dict.fromkeys(("CCSA", "GASREGW", "IC4WSA", "MORTGAGE15US", "NFCI", "STLFSI4", "WALCL",
                     "WM2NS", "WRESBAL"), "W"),
    **dict.fromkeys(("AAA", "BAA", "BOGMBASE", "BUSLOANS", "CIVPART", "CPIENGSL",
                     "CSUSHPINSA", "DGORDER", "DSPIC96", "EMRATIO", "EXPINF1YR", "GS10", "GS2",
                     "JTSJOL", "MICH", "PCEPILFE", "PERMIT", "PPIACO", "PSAVERT", "REVOLSL",
                     "RRSFS", "RSAFS", "TB3MS", "TOTALSA", "TOTALSL", "TTLCONS", "U6RATE",
                     "USREC"), "M"),
    **dict.fromkeys(("A191RL1Q225SBEA", "GDPPOT", "GFDEBTN", "GFDEGDQ188S", "MSPUS"), "Q"),
    "FYFSD": "A",
}


def normalize_series_id(raw: str) -> str:
    return raw.strip().upper()


def is_known_series(series_id: str) -> bool:
    """Whether the sandbox's catalogue has the id (module doc)."""
    sid = normalize_series_id(series_id)
    return sid in KNOWN or sid in OTHER_SERIES


def _digest(*parts: object) -> int:
    text = "\x1f".join(str(p) for p in parts)
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def _unit(*parts: object) -> float:
    return _digest(*parts) / 2.0 ** 64


def spec_for(series_id: str) -> Spec:
    """The recipe of a known id: the catalogue's, or one derived from its hash."""
    if series_id in KNOWN:
        return KNOWN[series_id]
    frequency = OTHER_SERIES.get(series_id) or (
        "M", "M", "M", "Q", "Q", "D", "W", "A")[_digest(series_id, "f") % 8]
    start = date(1947 + _digest(series_id, "y") % 64, 1, 1)
    decimals = (1, 2, 2, 3)[_digest(series_id, "d") % 4]
    level = math.exp(math.log(1.0) + _unit(series_id, "l") * math.log(5000.0))
    if _digest(series_id, "k") % 2:
        return Spec(frequency, start, decimals, "growth", level=level,
                    rate=-0.01 + 0.07 * _unit(series_id, "g"))
    return Spec(frequency, start, decimals, "range", level=level, low=level * 0.5,
                high=level * 1.5)


def _grid(spec: Spec) -> pd.DatetimeIndex:
    return pd.date_range(spec.start, LAST_DAY, freq=spec.grid or _GRID[spec.frequency])


def _rng(series_id: str) -> np.random.Generator:
    return np.random.default_rng(_digest("fred sandbox series", series_id))


def _per_year(frequency: str) -> float:
    return {"D": 261.0, "DA": 365.0, "W": 52.0, "M": 12.0, "Q": 4.0, "A": 1.0}[frequency]


def _synthetic(series_id: str, spec: Spec, n: int) -> np.ndarray:
    rng = _rng(series_id)
    per_year = _per_year(spec.frequency)
    phi = 0.9 ** (12.0 / per_year)  # the same persistence in calendar time
    if spec.kind == "growth":
        years = np.arange(n) / per_year
        noise = curve.ar1(rng.standard_normal(n) * 0.01 * math.sqrt(12.0 / per_year), phi)
        return spec.level * np.exp(spec.rate * years + noise - noise[0])
    spread = (spec.high - spec.low) / 4.0
    values = spec.level + curve.ar1(rng.standard_normal(n) * spread * math.sqrt(1 - phi * phi),
                               phi)
    return np.clip(values, spec.low, spec.high)


def _curve_values(days: np.ndarray, spec: Spec) -> np.ndarray:
    """The curve's maturity (or spread) on each day; the last business day's value on the
    others (DFF's weekends), NaN before the curve or where the maturity is unpublished."""
    table = curve.curve_table()
    business = curve.business_days()
    at = np.searchsorted(business, days, side="right") - 1
    column = table[:, curve.TENOR_INDEX[spec.source]]
    if spec.other:
        column = column - table[:, curve.TENOR_INDEX[spec.other]]
    values = np.where(at >= 0, column[np.maximum(at, 0)], np.nan) + spec.offset
    if spec.frequency == "D":  # FRED lists weekdays: holidays have no value
        values = np.where(business[np.maximum(at, 0)] == days, values, np.nan)
    return np.maximum(values, 0.01) if spec.offset else values


def _price_values(days: np.ndarray, spec: Spec) -> tuple[np.ndarray, np.ndarray]:
    """Closes of the sandbox symbol on each day (NaN without a session), and when each is
    known (the session's close, epoch seconds)."""
    from marketdata.sandbox.prices import series_for

    prices = series_for(spec.source)
    values = np.full(len(days), np.nan)
    known_at = np.full(len(days), np.iinfo(np.int64).max)
    if prices is None:
        return values, known_at
    at = np.searchsorted(prices.days, days)
    ok = at < len(prices.days)
    ok[ok] = prices.days[at[ok]] == days[ok]
    values[ok] = prices.c[at[ok]]
    known_at[ok] = prices.closes[at[ok]]
    return values, known_at


@dataclass(frozen=True)
class Built:
    """A whole series (to 2040): dates, values (NaN: none), when each value is public."""

    days: np.ndarray  # datetime64[D]
    values: np.ndarray
    known_at: np.ndarray | None  # epoch seconds per value; None: by the frequency's lag


# A daily series to 2040 is ~360 KiB: 64 are ~22 MiB (256 were up to ~90 MiB).
@lru_cache(maxsize=64)
def build(series_id: str) -> Built:
    """The whole series of a known id (cached: it is a pure function of the id)."""
    spec = spec_for(series_id)
    days = _grid(spec).values.astype("datetime64[D]")
    known_at = None
    if spec.kind in ("curve", "spread"):
        values = _curve_values(days, spec)
    elif spec.kind == "price":
        values, known_at = _price_values(days, spec)
    elif spec.kind == "fedfunds":
        daily = build("DFF")
        months = daily.days.astype("datetime64[M]")
        sums = pd.Series(daily.values).groupby(months).mean()
        values = sums.reindex(days.astype("datetime64[M]")).to_numpy()
    else:
        values = _synthetic(series_id, spec, len(days))
    values = np.round(values, spec.decimals)
    values.setflags(write=False)
    return Built(days, values, known_at)


def published_through(spec: Spec, now: datetime) -> date:
    """The last date of a series whose value is out at ``now``."""
    if spec.frequency in ("D", "DA"):
        return curve.published_through(now)
    return (now.astimezone(UTC) - _LAG[spec.frequency]).date()


def observations(series_id: str, now: datetime, start: date | None = None,
                 end: date | None = None) -> list[tuple[str, float | None]]:
    """``(YYYY-MM-DD, value or None)`` of a known id, oldest first, as published at
    ``now``, within ``start``..``end`` when given."""
    spec = spec_for(series_id)
    built = build(series_id)
    last = published_through(spec, now)
    if end is not None:
        last = min(last, end)
    lo = 0 if start is None else int(np.searchsorted(built.days, np.datetime64(start, "D")))
    hi = int(np.searchsorted(built.days, np.datetime64(last, "D"), side="right"))
    if built.known_at is not None:  # prices: only sessions that have closed
        stamp = int(now.timestamp())
        while hi > lo and built.known_at[hi - 1] > stamp:
            hi -= 1
    out: list[tuple[str, float | None]] = []
    for i in range(lo, hi):
        value = built.values[i]
        out.append((str(built.days[i]), None if np.isnan(value) else float(value)))
    return out


def decimals(series_id: str) -> int:
    return spec_for(series_id).decimals
