"""Deterministic synthetic price paths: daily bars, intraday minute paths, extended hours.

Why this design:
- The daily series of a symbol is one vectorised draw over the whole session grid
  (1985..2040), seeded only by the symbol, so a given day always has the same bar whatever
  the request (prefix-stable; numpy's Generator streams are prefix-stable too).
- The log price is a trend plus a slow mean-reverting (AR(1)) deviation, pinned to a
  plausible level on 2025-01-02, so 40 years of history stay within believable bounds.
- Intraday minute paths are seeded by (symbol, session) and built as Brownian bridges
  through the day's open, high, low and close, so aggregating minutes gives back exactly the
  daily bar, and the quote at a clock time equals the minute path at that time.
"""

from __future__ import annotations

import itertools
import math
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import date

import numpy as np

from marketdata.sandbox.corporate_actions import CorporateActions, Dividends, actions_for
from marketdata.sandbox.instruments import (
    ANCHOR_DAY,
    CRYPTO,
    CURRENCY,
    EQUITY,
    ETF,
    INDEX,
    MUTUALFUND,
    Instrument,
    get_instrument,
)
from marketdata.sandbox.sessions import SessionTable, local_epoch, session_table

YEAR_SECONDS = 365.25 * 86400


def _rng(inst: Instrument, *stream: int) -> np.random.Generator:
    return np.random.default_rng([inst.seed & (2**63 - 1), *stream])


def _ar1(shocks: np.ndarray, phi: float) -> np.ndarray:
    """x[i] = phi * x[i-1] + shocks[i], vectorised in blocks (exact up to float error).

    Blocks are as long as phi**-k stays below 1e6, so the scaled cumsum keeps precision.
    """
    n = len(shocks)
    block = max(16, min(8192, int(math.log(1e6) / -math.log(phi))))
    out = np.empty(n)
    k = np.arange(block)
    up = phi ** k
    down = phi ** -k
    carry = 0.0
    for start in range(0, n, block):
        seg = shocks[start:start + block]
        m = len(seg)
        x = up[:m] * np.cumsum(seg * down[:m]) + carry * phi * up[:m]
        out[start:start + m] = x
        carry = x[-1]
    return out


@dataclass(frozen=True)
class DailySeries:
    """Daily OHLCV of one instrument for every session of its venue since its first trade."""

    inst: Instrument
    table: SessionTable
    start: int  # index of the first session in the venue table
    opens: np.ndarray  # epoch seconds (views into the venue table)
    closes: np.ndarray
    days: np.ndarray
    o: np.ndarray
    h: np.ndarray
    lo: np.ndarray
    c: np.ndarray
    v: np.ndarray  # int64
    div: np.ndarray  # dividend amount going ex on that session (0.0 = none)
    div_idx: np.ndarray  # local indices of the ex-dividend sessions

    def __len__(self) -> int:
        return len(self.opens)

    def last_started(self, now: int) -> int:
        """Local index of the last session that has opened by ``now`` (-1 if none)."""
        return int(np.searchsorted(self.opens, now, side="right")) - 1

    def last_visible(self, now: int) -> int:
        """Last session with data at ``now``: funds publish their NAV only after the close."""
        if self.inst.kind == MUTUALFUND:
            return int(np.searchsorted(self.closes, now, side="right")) - 1
        return self.last_started(now)

    def is_open(self, i: int, now: int) -> bool:
        return 0 <= i < len(self) and self.opens[i] <= now < self.closes[i] \
            and self.inst.kind != MUTUALFUND

    def adj_factors(self, upto: int) -> np.ndarray:
        """Yahoo-style dividend adjustment factors, counting dividends up to session ``upto``."""
        n = len(self)
        m = np.zeros(n)
        idx = self.div_idx[: int(np.searchsorted(self.div_idx, upto, side="right"))]
        idx = idx[idx > 0]
        if len(idx):
            m[idx] = np.log1p(-self.div[idx] / self.c[idx - 1])
        cs = np.cumsum(m)
        return np.exp(cs[-1] - cs) if n else m


_series_cache: OrderedDict[str, DailySeries] = OrderedDict()
_series_lock = threading.Lock()
# A daily series is ~0.3-1 MiB (~560 KiB for 14,000 sessions) and is rebuilt in ~5 ms:
# 96 are ~55 MiB (512 were up to ~290 MiB of a sandbox server's memory). A load that cycles
# through more symbols than this rebuilds every series on every quote (the stream benches
# poll 200 symbols a cycle: SANDBOX_SERIES_CACHE_SIZE raises the bound for them).
SERIES_CACHE_SIZE = int(os.environ.get("SANDBOX_SERIES_CACHE_SIZE", "96"))


def get_series(inst: Instrument) -> DailySeries:
    """The cached daily series of an instrument (LRU over symbols)."""
    with _series_lock:
        found = _series_cache.get(inst.symbol)
        if found is not None:
            _series_cache.move_to_end(inst.symbol)
            return found
    series = _build_series(inst)
    with _series_lock:
        _series_cache[inst.symbol] = series
        while len(_series_cache) > SERIES_CACHE_SIZE:
            _series_cache.popitem(last=False)
    return series


def series_for(symbol: str) -> DailySeries | None:
    inst = get_instrument(symbol)
    return None if inst is None else get_series(inst)


def _round(x: np.ndarray, dp: int) -> np.ndarray:
    tick = 10.0 ** -dp
    return np.maximum(np.round(x, dp), tick)


def _build_series(inst: Instrument) -> DailySeries:
    table = session_table(inst.venue.key)
    start = int(np.searchsorted(table.opens, inst.first_trade, side="left"))
    opens = table.opens[start:]
    closes = table.closes[start:]
    days = table.days[start:]
    n = len(opens)
    vol = inst.daily_vol
    # One stream, five normals per session: row i only depends on the seed and i.
    z = np.ascontiguousarray(_rng(inst, 0).standard_normal((n, 5)).T)

    phi = 0.97 if (inst.kind == INDEX and inst.growth == 0.0) else 0.998
    x = _ar1(vol * z[0], phi)
    anchor_ts = local_epoch(ANCHOR_DAY, inst.tz, inst.venue.open_hm)
    a = min(int(np.searchsorted(opens, anchor_ts)), n - 1)
    years = (opens - anchor_ts) / YEAR_SECONDS
    close = np.exp(math.log(inst.anchor_price) + inst.growth * years + x - x[a])

    prev = np.empty(n)
    prev[1:] = close[:-1]
    prev[0] = close[0] * math.exp(-vol * z[1][0])
    if inst.venue.is_24h:
        open_ = prev
    else:
        open_ = prev * np.exp(0.35 * vol * z[1])
    high = np.maximum(open_, close) * np.exp(np.abs(z[2]) * 0.55 * vol)
    low = np.minimum(open_, close) * np.exp(-np.abs(z[3]) * 0.55 * vol)

    dp = inst.price_hint
    o, h, lo, c = (_round(a_, dp) for a_ in (open_, high, low, close))
    if inst.kind == MUTUALFUND:
        o = h = lo = c
    h = np.maximum.reduce([h, o, c])
    lo = np.minimum.reduce([lo, o, c])

    if inst.base_volume > 0:
        ret = np.abs(np.diff(np.log(close), prepend=math.log(prev[0])))
        shock = 1.0 + 0.15 * np.minimum(ret / vol, 4.0)
        v = np.rint(inst.base_volume * np.exp(0.35 * z[4]) * shock).astype(np.int64)
    else:
        v = np.zeros(n, dtype=np.int64)

    div = np.zeros(n)
    actions = actions_for(inst.symbol) if inst.kind == EQUITY else None
    if actions is not None and isinstance(actions.dividends, Dividends):
        div = _real_dividends(actions, actions.dividends, days)
    elif actions is not None and actions.dividends is None:
        pass  # a company that pays no dividend
    elif inst.dividend_yield > 0 and inst.kind in (EQUITY, ETF) and n > 2:
        div = _dividends(inst, table.months[start:], table.day_of_month[start:], c)
    return DailySeries(inst, table, start, opens, closes, days, o, h, lo, c, v, div,
                       np.nonzero(div)[0])


def _real_dividends(actions: CorporateActions, schedule: Dividends,
                    days: np.ndarray) -> np.ndarray:
    """A well-known company's dividends (``corporate_actions``: approximate amounts and
    days), each on the first session on or after its ex-date, in today's shares (divided
    by the ratios of the splits after it, as Yahoo's are)."""
    out = np.zeros(len(days))
    if not len(days):
        return out
    last = date.fromisoformat(str(days[-1]))
    for target, amount in schedule.ex_dates(last):
        k = int(np.searchsorted(days, np.datetime64(target, "D"), side="left"))
        if 0 < k < len(days):
            ex_day = date.fromisoformat(str(days[k]))
            out[k] += round(actions.adjusted_amount(ex_day, amount), 6)
    return out


def _dividends(inst: Instrument, months: np.ndarray, dom: np.ndarray,
               c: np.ndarray) -> np.ndarray:
    """Quarterly ex-dividend sessions: the first session on/after a per-symbol day of month."""
    month_num = months % 12  # 0 = January
    m0 = 2 if inst.kind == ETF else inst.seed % 3
    d0 = 5 + (inst.seed >> 8) % 18
    cand = np.nonzero((month_num % 3 == m0) & (dom >= d0))[0]
    cand = cand[cand > 0]
    out = np.zeros(len(months))
    if not len(cand):
        return out
    new_month = np.concatenate([[True], np.diff(months[cand]) != 0])
    idx = cand[new_month]
    amounts = np.maximum(np.round(c[idx - 1] * inst.dividend_yield / 4.0, 2), 0.01)
    out[idx] = amounts
    return out


# --- intraday ---------------------------------------------------------------------------

@dataclass(frozen=True)
class MinuteBars:
    """One session's minute bars (bar k starts at open + 60*k)."""

    o: np.ndarray
    h: np.ndarray
    lo: np.ndarray
    c: np.ndarray
    v: np.ndarray

    def __len__(self) -> int:
        return len(self.o)


_minute_cache: OrderedDict[tuple[str, int], MinuteBars] = OrderedDict()
_minute_lock = threading.Lock()
# One session's minute bars are 16 KiB (6.5 h) to 58 KiB (24 h), rebuilt in < 1 ms: 512
# are 8-29 MiB (2,048 were up to ~115 MiB).
MINUTE_CACHE_SIZE = 512


def minute_bars(series: DailySeries, i: int) -> MinuteBars:
    """The minute path of session ``i`` (cached), consistent with its daily bar."""
    key = (series.inst.symbol, int(series.opens[i]))
    with _minute_lock:
        found = _minute_cache.get(key)
        if found is not None:
            _minute_cache.move_to_end(key)
            return found
    bars = _build_minutes(series, i)
    with _minute_lock:
        _minute_cache[key] = bars
        while len(_minute_cache) > MINUTE_CACHE_SIZE:
            _minute_cache.popitem(last=False)
    return bars


def _bridge(rng: np.random.Generator, steps: int) -> np.ndarray:
    """Standard Brownian bridge on steps+1 points, zero at both ends."""
    if steps <= 0:
        return np.zeros(1)
    w = np.concatenate([[0.0], np.cumsum(rng.standard_normal(steps))])
    return w - np.linspace(0.0, 1.0, steps + 1) * w[-1]


def _build_minutes(series: DailySeries, i: int) -> MinuteBars:
    inst = series.inst
    dp = inst.price_hint
    day_o, day_h, day_l, day_c = (float(a[i]) for a in (series.o, series.h, series.lo,
                                                         series.c))
    day_v = int(series.v[i])
    m = max(int(series.closes[i] - series.opens[i]) // 60, 1)
    rng = _rng(inst, 7, int(series.opens[i]))
    sd = (day_h - day_l) / math.sqrt(m) * 0.6
    p = np.empty(m + 1)
    if m >= 3:
        kh = 1 + int(rng.integers(m - 1))
        kl = 1 + int(rng.integers(m - 1))
        if kl == kh:
            kl = (kh + m // 2 - 1) % (m - 1) + 1
        pins = sorted([(0, day_o), (kh, day_h), (kl, day_l), (m, day_c)])
        for (a, va), (b, vb) in itertools.pairwise(pins):
            seg = b - a
            p[a:b + 1] = va + (vb - va) * np.linspace(0.0, 1.0, seg + 1) + sd * _bridge(rng, seg)
        p = np.clip(p, day_l, day_h)
        p[kh], p[kl] = day_h, day_l
    else:
        p[:] = np.linspace(day_o, day_c, m + 1)
    p[0], p[m] = day_o, day_c
    p = np.round(p, dp)
    o = p[:-1].copy()
    c = p[1:].copy()
    wig = np.abs(rng.standard_normal((2, m))) * sd * 0.3
    h = np.minimum(np.round(np.maximum(o, c) + wig[0], dp), day_h)
    lo = np.maximum(np.round(np.minimum(o, c) - wig[1], dp), day_l)
    h = np.maximum(h, np.maximum(o, c))
    lo = np.minimum(lo, np.minimum(o, c))
    if day_v > 0:
        x = (np.arange(m) + 0.5) / m * 2.0 - 1.0
        w = (1.0 + 1.5 * x * x) * np.exp(0.4 * rng.standard_normal(m))
        cum = np.floor(day_v * np.cumsum(w) / w.sum()).astype(np.int64)
        cum[-1] = day_v
        v = np.diff(cum, prepend=0)
    else:
        v = np.zeros(m, dtype=np.int64)
    return MinuteBars(o, h, lo, c, v)


def minutes_elapsed(series: DailySeries, i: int, now: int) -> int:
    """How many minute bars of session i exist at ``now`` (the forming one included)."""
    total = int(series.closes[i] - series.opens[i]) // 60
    if now >= series.closes[i]:
        return total
    if now < series.opens[i]:
        return 0
    return min(int(now - series.opens[i]) // 60 + 1, total)


@dataclass(frozen=True)
class Bars:
    """Parallel arrays of aggregated bars."""

    ts: np.ndarray
    o: np.ndarray
    h: np.ndarray
    lo: np.ndarray
    c: np.ndarray
    v: np.ndarray

    def __len__(self) -> int:
        return len(self.ts)


def _aggregate(keys: np.ndarray, o: np.ndarray, h: np.ndarray, lo: np.ndarray, c: np.ndarray,
               v: np.ndarray) -> tuple[np.ndarray, ...]:
    """Group consecutive equal keys: first open, max high, min low, last close, sum volume."""
    if not len(keys):
        return keys, o, h, lo, c, v
    starts = np.concatenate([[0], np.nonzero(np.diff(keys))[0] + 1])
    ends = np.concatenate([starts[1:], [len(keys)]]) - 1
    return (keys[starts], o[starts], np.maximum.reduceat(h, starts),
            np.minimum.reduceat(lo, starts), c[ends], np.add.reduceat(v, starts))


def intraday_bars(series: DailySeries, i: int, interval_s: int, now: int) -> Bars:
    """Bars of ``interval_s`` seconds for session i, cut at the clock (forming bar kept)."""
    count = minutes_elapsed(series, i, now)
    if count <= 0 or series.inst.kind == MUTUALFUND:
        empty = np.zeros(0, dtype=np.int64)
        return Bars(empty, empty.astype(float), empty.astype(float), empty.astype(float),
                    empty.astype(float), empty)
    mb = minute_bars(series, i)
    keys = (np.arange(count) * 60) // interval_s
    k, o, h, lo, c, v = _aggregate(keys, mb.o[:count], mb.h[:count], mb.lo[:count],
                                   mb.c[:count], mb.v[:count])
    return Bars(series.opens[i] + k * interval_s, o, h, lo, c, v)


def daily_bar(series: DailySeries, i: int, now: int) -> tuple[float, float, float, float, int]:
    """(open, high, low, close, volume) of session i as seen at ``now`` (partial if open)."""
    if not series.is_open(i, now):
        return (float(series.o[i]), float(series.h[i]), float(series.lo[i]),
                float(series.c[i]), int(series.v[i]))
    count = minutes_elapsed(series, i, now)
    mb = minute_bars(series, i)
    return (float(series.o[i]), float(mb.h[:count].max()), float(mb.lo[:count].min()),
            float(mb.c[count - 1]), int(mb.v[:count].sum()))


def daily_range(series: DailySeries, i0: int, i1: int, now: int) -> Bars:
    """Daily bars for local sessions i0..i1 inclusive; the last one partial if still open."""
    sl = slice(i0, i1 + 1)
    o, h, lo, c, v = (a[sl].copy() for a in (series.o, series.h, series.lo, series.c,
                                              series.v))
    if i1 >= i0 and series.is_open(i1, now):
        o[-1], h[-1], lo[-1], c[-1], v[-1] = daily_bar(series, i1, now)
    return Bars(series.opens[sl], o, h, lo, c, v)


# --- extended hours -----------------------------------------------------------------------

def _ext_window(series: DailySeries, i: int, which: str) -> tuple[int, int]:
    venue = series.inst.venue
    day = date.fromisoformat(str(series.days[i]))
    if which == "post":
        assert venue.post_end_hm is not None
        return int(series.closes[i]), local_epoch(day, venue.tz, venue.post_end_hm)
    assert venue.pre_start_hm is not None
    return local_epoch(day, venue.tz, venue.pre_start_hm), int(series.opens[i])


def _overnight_mid(series: DailySeries, i: int) -> float:
    nxt = float(series.o[i + 1]) if i + 1 < len(series) else float(series.c[i])
    return float(series.c[i]) + (nxt - float(series.c[i])) * 0.5


def extended_price(series: DailySeries, i: int, which: str, at: int) -> float:
    """Extended-hours price: post-market after session i, or pre-market before session i.

    The post path runs from the close to halfway towards the next open; the pre path from
    there to the next open, so extended prices join the regular series smoothly.
    """
    start, end = _ext_window(series, i, which)
    steps = max((end - start) // 60, 1)
    if which == "post":
        a, b = float(series.c[i]), _overnight_mid(series, i)
    else:
        a = _overnight_mid(series, i - 1) if i > 0 else float(series.o[i])
        b = float(series.o[i])
    rng = _rng(series.inst, 11 if which == "post" else 13, int(series.opens[i]))
    sd = a * series.inst.daily_vol * 0.25 / math.sqrt(steps)
    path = a + (b - a) * np.linspace(0.0, 1.0, steps + 1) + sd * _bridge(rng, steps)
    k = min(max(int(at - start) // 60 + 1, 0), steps)
    return max(round(float(path[k]), series.inst.price_hint), 10.0 ** -series.inst.price_hint)


# --- market snapshot ------------------------------------------------------------------------

@dataclass(frozen=True)
class Snapshot:
    """The regular-session view at a clock time, shared by quote, quoteSummary and chart."""

    index: int  # local session index of the regular-session values
    state: str
    price: float
    prev_close: float
    open: float
    high: float
    low: float
    volume: int
    market_time: int
    pre: tuple[float, int] | None
    post: tuple[float, int] | None
    high_52w: float
    low_52w: float
    all_time_high: float  # over the whole simulated history up to now
    all_time_low: float
    close_52w_ago: float
    avg50: float
    avg200: float
    avg_vol_3m: int
    avg_vol_10d: int

    @property
    def change(self) -> float:
        return self.price - self.prev_close

    @property
    def change_fraction(self) -> float:
        return self.change / self.prev_close if self.prev_close else 0.0


def market_state(series: DailySeries, now: int) -> str:
    """PRE / REGULAR / POST / CLOSED from the clock, the venue and its calendar."""
    inst = series.inst
    if inst.kind == CRYPTO:
        return "REGULAR"
    i = series.last_started(now)
    if i >= 0 and series.opens[i] <= now < series.closes[i]:
        return "REGULAR"
    venue = inst.venue
    if not venue.has_extended_hours or inst.kind == CURRENCY:
        return "CLOSED"
    if i >= 0:
        post_start, post_end = _ext_window(series, i, "post")
        if post_start <= now < post_end:
            return "POST"
    if i + 1 < len(series):
        pre_start, pre_end = _ext_window(series, i + 1, "pre")
        if pre_start <= now < pre_end:
            return "PRE"
    return "CLOSED"


def snapshot(series: DailySeries, now: int) -> Snapshot:
    """Quote-like view of an instrument at ``now``."""
    inst = series.inst
    i = max(series.last_visible(now), 0)
    o, h, lo, c, v = daily_bar(series, i, now)
    open_now = series.is_open(i, now)
    market_time = now if open_now else int(series.closes[i])
    if inst.kind == MUTUALFUND:
        market_time = int(series.closes[i])
    prev_close = float(series.c[i - 1]) if i > 0 else o
    state = market_state(series, now)

    pre = post = None
    if inst.has_pre_post and not open_now:
        post_start, post_end = _ext_window(series, i, "post")
        if now >= post_start:
            at = min(now, post_end - 1)
            post = (extended_price(series, i, "post", at), at)
        if state == "PRE":
            pre = (extended_price(series, i + 1, "pre", now), now)

    lo52_i = int(np.searchsorted(series.opens, now - 365 * 86400, side="right"))
    lo52_i = min(lo52_i, i)
    highs = series.h[lo52_i:i]
    lows = series.lo[lo52_i:i]
    high_52w = max(float(highs.max()) if len(highs) else h, h)
    low_52w = min(float(lows.min()) if len(lows) else lo, lo)
    all_time_high = max(float(series.h[:i].max()) if i else h, h)
    all_time_low = min(float(series.lo[:i].min()) if i else lo, lo)
    closes = series.c[max(0, i - 199):i]

    def avg(arr: np.ndarray) -> float:
        return float(arr.mean()) if len(arr) else c

    vols = series.v[max(0, i - 63):i]
    vols10 = series.v[max(0, i - 10):i]
    return Snapshot(
        index=i, state=state, price=c, prev_close=prev_close, open=o, high=h, low=lo,
        volume=v, market_time=market_time, pre=pre, post=post,
        high_52w=high_52w, low_52w=low_52w, all_time_high=all_time_high,
        all_time_low=all_time_low, close_52w_ago=float(series.c[lo52_i]),
        avg50=round(avg(np.append(closes[-49:], c)), 4),
        avg200=round(avg(np.append(closes, c)), 4),
        avg_vol_3m=int(vols.mean()) if len(vols) else v,
        avg_vol_10d=int(vols10.mean()) if len(vols10) else v,
    )
