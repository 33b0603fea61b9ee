"""One computed view of an instrument at a clock time, shared by v7 quote and v10 modules.

Why: quote, quoteSummary and chart meta must agree with each other and with the chart
bars (same price, same previous close, same 52-week range), so they all read this view.
Fundamentals (EPS, shares, dividends, earnings dates...) are derived from the symbol hash.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from functools import cached_property
from zoneinfo import ZoneInfo

import numpy as np

from marketdata.sandbox.instruments import (
    CRYPTO,
    CURRENCY,
    EQUITY,
    ETF,
    INDEX,
    MUTUALFUND,
    Instrument,
    unit,
)
from marketdata.sandbox.prices import DailySeries, Snapshot, snapshot
from marketdata.sandbox.sessions import local_epoch, tz_info

_RATINGS = ("1.4 - Strong Buy", "1.8 - Buy", "2.1 - Buy", "2.4 - Buy", "2.7 - Hold",
            "3.0 - Hold", "3.4 - Underperform")


@dataclass(frozen=True)
class MarketView:
    inst: Instrument
    series: DailySeries
    snap: Snapshot
    now: int
    tz_short: str
    gmt_offset: int  # seconds

    # --- identity --------------------------------------------------------------------
    @property
    def message_board_id(self) -> str:
        inst = self.inst
        if inst.kind == CRYPTO:
            return f"finmb_{inst.extra['coin']}_CCC"
        if inst.kind == CURRENCY:
            return f"finmb_{inst.extra['base']}_X"
        if inst.kind == INDEX:
            return "finmb_INDEX" + inst.symbol.lstrip("^").replace(".", "")
        return f"finmb_{inst.seed % 100_000_000}"

    @property
    def uuid(self) -> str:
        h = f"{inst_hash(self.inst):032x}"
        return f"{h[:8]}-{h[8:12]}-3{h[13:16]}-{h[16:20]}-{h[20:32]}"

    # --- prices ---------------------------------------------------------------------------
    @property
    def dp(self) -> int:
        return self.inst.price_hint

    def r(self, x: float) -> float:
        """Round a derived price to the instrument's precision (plus two digits)."""
        return round(x, self.dp + 2)

    @property
    def spread(self) -> float:
        return max(round(self.snap.price * 0.0004, self.dp), 10.0 ** -self.dp)

    @property
    def bid(self) -> float:
        return round(self.snap.price - self.spread / 2, self.dp)

    @property
    def ask(self) -> float:
        return round(self.snap.price + self.spread / 2, self.dp)

    def size(self, tag: str) -> int:
        return 1 + int(unit(tag, self.inst.symbol, self.snap.index) * 30)

    def close_at_or_before(self, epoch: int) -> float | None:
        i = int(np.searchsorted(self.series.opens, epoch, side="right")) - 1
        if i < 0:
            return None
        return float(self.series.c[min(i, self.snap.index)])

    def period_return(self, epoch: int) -> float | None:
        """Price return since the close at/before ``epoch`` (fraction)."""
        base = self.close_at_or_before(epoch)
        if base is None or base == 0:
            return None
        return round(self.snap.price / base - 1.0, 6)

    def ytd_start(self) -> int:
        today = datetime.fromtimestamp(self.now, ZoneInfo(self.inst.tz)).date()
        return local_epoch(date(today.year, 1, 1), self.inst.tz) - 1

    # --- fundamentals --------------------------------------------------------------------
    @property
    def shares(self) -> int:
        if self.inst.kind == CRYPTO:
            return int(self.inst.extra["supply"])
        return self.inst.shares_outstanding

    @property
    def market_cap(self) -> int | None:
        if self.inst.kind in (EQUITY, ETF, CRYPTO) and self.shares:
            return round(self.snap.price * self.shares)
        return None

    @property
    def eps(self) -> float:
        return round(self.inst.anchor_price / self.inst.pe, 2) if self.inst.pe else 0.0

    @property
    def forward_eps(self) -> float:
        return round(self.eps * (1.04 + 0.2 * unit("feps", self.inst.symbol)), 2)

    @property
    def book_value(self) -> float:
        return round(self.inst.anchor_price / (1.5 + 12 * unit("pb", self.inst.symbol)), 3)

    @property
    def beta(self) -> float:
        return round(0.6 + 1.2 * unit("beta", self.inst.symbol), 3)

    @property
    def rating(self) -> str:
        return _RATINGS[int(unit("rating", self.inst.symbol) * len(_RATINGS))]

    def dividends(self) -> list[tuple[int, float]]:
        """(ex-date session index, amount) of the last dividends gone ex, oldest first."""
        return self._recent_dividends

    @cached_property
    def _recent_dividends(self) -> list[tuple[int, float]]:
        idx = self.series.div_idx
        end = int(np.searchsorted(idx, self.snap.index, side="right"))
        return [(int(i), float(self.series.div[i])) for i in idx[max(0, end - 12):end]]

    def ex_date_epoch(self, i: int) -> int:
        """Yahoo reports dividend dates at 00:00 UTC of the day."""
        d = date.fromisoformat(str(self.series.days[i]))
        return int(datetime(d.year, d.month, d.day, tzinfo=UTC).timestamp())

    @property
    def trailing_dividend_rate(self) -> float:
        cutoff = self.now - 365 * 86400
        return round(sum(a for i, a in self.dividends() if self.series.opens[i] > cutoff), 4)

    @property
    def forward_dividend_rate(self) -> float:
        divs = self.dividends()
        return round(divs[-1][1] * 4, 4) if divs else 0.0

    def earnings_dates(self) -> tuple[int | None, int | None]:
        """(last reported, next expected) earnings timestamps (16:30 exchange time)."""
        if self.inst.kind != EQUITY:
            return None, None
        today = datetime.fromtimestamp(self.now, ZoneInfo(self.inst.tz)).date()
        stamps = earnings_stamps(self.inst, (today.year - 1, today.year, today.year + 1))
        past = [s for s in stamps if s <= self.now]
        future = [s for s in stamps if s > self.now]
        return (past[-1] if past else None), (future[0] if future else None)


EARNINGS_MONTHS = (1, 4, 7, 10)
EARNINGS_TIME = (16, 30)  # exchange time: after the close


def earnings_stamps(inst: Instrument, years: tuple[int, ...]) -> list[int]:
    """An equity's earnings announcements in ``years``, oldest first: one a quarter (January,
    April, July, October) on its day (18 + seed % 12, at most the 28th) at 16:30 exchange
    time. ``MarketView.earnings_dates`` and the calendar service's earnings read this."""
    day0 = min(18 + inst.seed % 12, 28)
    return [local_epoch(date(year, month, day0), inst.tz, EARNINGS_TIME)
            for year in years for month in EARNINGS_MONTHS]


def inst_hash(inst: Instrument) -> int:
    return (inst.seed << 64 | (inst.seed * 0x9E3779B97F4A7C15 & (2**64 - 1))) & (2**128 - 1)


def market_view(series: DailySeries, now: int) -> MarketView:
    snap = snapshot(series, now)
    name, offset = tz_info(series.inst.tz, now)
    return MarketView(series.inst, series, snap, now, name, offset)


def is_fund(inst: Instrument) -> bool:
    return inst.kind in (ETF, MUTUALFUND)
