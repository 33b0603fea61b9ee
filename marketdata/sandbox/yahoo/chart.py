"""GET /v8/finance/chart/{symbol}: OHLCV bars in Yahoo's v8 chart shape.

Why: the chart parser, the range/interval rules and the null-row handling of the real
client must run unchanged offline. Bars come from ``marketdata.sandbox.prices``: daily
bars at the session open, intraday bars at their start, weekly bars at Monday 00:00 and
monthly bars at the 1st 00:00 (exchange time), regular session only.

Events (``events=div,split,capitalGain``, ``|`` also accepted): dividends (``prices``);
the real splits of the well-known companies of ``corporate_actions.py`` (AAPL, MSFT, NVDA,
TSLA, GOOG...), and for other equities a stock split whenever a split-prone equity's price
has grown by its trigger factor since its last split (or first trade), the ratio being
that growth rounded down (prices are split-adjusted, as Yahoo's are, so a split leaves no
gap); a
yearly December capital gain for mutual funds (and one ETF in four) after a year whose
return exceeded 2%, a share of that return (at most 5% of the price). Daily ``adjclose``
accounts for dividends and capital gains, Yahoo-style.
"""

from __future__ import annotations

import math
from datetime import date, datetime
from functools import lru_cache
from zoneinfo import ZoneInfo

import numpy as np

from marketdata.sandbox.corporate_actions import actions_for
from marketdata.sandbox.instruments import (
    EQUITY,
    ETF,
    FUTURE,
    MUTUALFUND,
    get_instrument,
    stable_hash,
)
from marketdata.sandbox.prices import (
    Bars,
    DailySeries,
    daily_range,
    get_series,
    intraday_bars,
    series_for,
    snapshot,
)
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.sessions import local_epoch, tz_info
from marketdata.sandbox.yahoo.common import Request, error_response, json_response

INTRADAY_SECONDS = {"1m": 60, "2m": 120, "5m": 300, "15m": 900, "30m": 1800, "60m": 3600,
                    "90m": 5400, "1h": 3600, "4h": 14400}
DAILY_INTERVALS = ("1d", "5d", "1wk", "1mo", "3mo")
VALID_INTERVALS = ("1m", "2m", "5m", "15m", "30m", "60m", "90m", "1h", "4h", "1d", "5d",
                   "1wk", "1mo", "3mo")
RANGES = ("1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y", "2y", "5y", "10y", "max")
VALID_RANGES = ["1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "ytd", "max"]
FUND_VALID_RANGES = ["1mo", "3mo", "6mo", "ytd", "1y", "2y", "5y", "10y", "max"]
# How far back intraday data reaches (days), as Yahoo enforces it.
LOOKBACK_DAYS = {"1m": 30, "2m": 60, "5m": 60, "15m": 60, "30m": 60, "90m": 60, "60m": 730,
                 "1h": 730, "4h": 730}
ONE_MINUTE_SPAN_DAYS = 8
_RANGE_DAYS = {"1d": 1, "5d": 5, "1mo": 31, "3mo": 92, "6mo": 183, "1y": 366, "2y": 731,
               "5y": 1827, "10y": 3653}
_RANGE_MONTHS = {"1mo": 1, "3mo": 3, "6mo": 6, "1y": 12, "2y": 24, "5y": 60, "10y": 120}
NULL_ROW_PER_MILLE = 5  # ~0.5% of intraday rows are all-null, as Yahoo sometimes sends


def _err(code: str, description: str, status: int) -> SandboxResponse:
    return error_response("chart", code, description, status)


def _minus_months(d: date, months: int) -> date:
    total = d.year * 12 + (d.month - 1) - months
    year, month = divmod(total, 12)
    month += 1
    for day in (d.day, 30, 29, 28):
        try:
            return date(year, month, day)
        except ValueError:
            continue
    return date(year, month, 28)


def handle_chart(req: Request) -> SandboxResponse:
    """Validate the query like Yahoo does, then build the chart payload."""
    symbol = req.params["symbol"]
    interval = req.arg("interval", "1d") or "1d"
    range_ = req.arg("range")
    p1 = req.int_arg("period1")
    p2 = req.int_arg("period2")
    if interval not in VALID_INTERVALS:
        return _err("Bad Request", f"Invalid input - interval={interval} is not supported. "
                    f"Valid intervals: [{', '.join(VALID_INTERVALS)}]", 400)
    if p1 is None and range_ is None:
        range_ = "1mo"  # documented default when neither range nor period1 is given
    if p1 is not None:
        range_ = None
    if range_ is not None and range_ not in RANGES:
        return _err("Bad Request", f"Invalid input - range={range_} is not supported. "
                    f"Valid ranges: [{', '.join(RANGES)}]", 400)

    series = series_for(symbol)
    if series is None:
        return _err("Not Found", "No data found, symbol may be delisted", 404)

    now = req.now()
    if p1 is not None:
        end = now if p2 is None else p2
        if p1 > end:
            return _err("Bad Request", f"Invalid input - start date cannot be after end date. "
                        f"startDate = {p1}, endDate = {end}", 400)
        start, span_days = p1, (end - p1) / 86400
    else:
        assert range_ is not None
        span_days = _range_days(series, range_, now)
        start = now - int(span_days * 86400) if math.isfinite(span_days) else 0
        end = now
    error = _check_limits(interval, start, end, span_days, now)
    if error is not None:
        return error
    return json_response(build_chart(series, interval, range_, p1, p2, now,
                                     _events(req.arg("events", "") or "")))


def _events(raw: str) -> set[str]:
    return {e.strip() for e in raw.replace("|", ",").split(",") if e.strip()}


def _range_days(series: DailySeries, range_: str, now: int) -> float:
    if range_ == "max":
        return math.inf
    if range_ == "ytd":
        today = datetime.fromtimestamp(now, ZoneInfo(series.inst.tz)).date()
        return (today - date(today.year, 1, 1)).days + 1
    return _RANGE_DAYS[range_]


def _check_limits(interval: str, start: int, end: int, span_days: float,
                  now: int) -> SandboxResponse | None:
    """Yahoo's 422s for intraday requests that reach too far back or span too long."""
    limit = LOOKBACK_DAYS.get(interval)
    if limit is None:
        return None
    start_s = start if math.isfinite(span_days) else 0
    prefix = f"{interval} data not available for startTime={start_s} and endTime={end}."
    if interval == "1m" and span_days > ONE_MINUTE_SPAN_DAYS:
        return _err("Unprocessable Entity", f"{prefix} Only 7 days worth of 1m granularity "
                    "data are allowed to be fetched per request.", 422)
    if span_days > limit or start < now - limit * 86400:
        return _err("Unprocessable Entity", f"{prefix} The requested range must be within "
                    f"the last {limit} days.", 422)
    return None


# --- payload ------------------------------------------------------------------------------

def _window(series: DailySeries, range_: str | None, p1: int | None, p2: int | None,
            now: int) -> tuple[int, int]:
    """Local session indices [i0, i1] the request covers (i1 < i0 when empty)."""
    last = series.last_visible(now)
    if last < 0:
        return 0, -1
    if range_ is None:
        assert p1 is not None
        end = now + 1 if p2 is None else min(p2, now + 1)
        i0 = int(np.searchsorted(series.closes, p1, side="right"))
        i1 = min(int(np.searchsorted(series.opens, end, side="left")) - 1, last)
        return i0, i1
    if range_ == "1d":
        return last, last
    if range_ == "5d":
        return max(0, last - 4), last
    if range_ == "max":
        return 0, last
    today = datetime.fromtimestamp(now, ZoneInfo(series.inst.tz)).date()
    first = date(today.year, 1, 1) if range_ == "ytd" else _minus_months(today,
                                                                         _RANGE_MONTHS[range_])
    i0 = int(np.searchsorted(series.days, np.datetime64(first, "D"), side="left"))
    return i0, last


def _period_keys(series: DailySeries, interval: str, idx: np.ndarray) -> np.ndarray:
    days = series.days[idx].astype(np.int64)  # days since 1970-01-01
    if interval == "1wk":
        return (days + 3) // 7
    months = series.days[idx].astype("datetime64[M]").astype(np.int64)
    if interval == "1mo":
        return months
    if interval == "3mo":
        return months // 3
    return (idx + series.start) // 5  # 5d: fixed blocks of five sessions


def _period_start(series: DailySeries, interval: str, key: int, first_idx: int) -> int:
    tz = series.inst.tz
    if interval == "1wk":
        monday = date.fromordinal(date(1970, 1, 1).toordinal() + int(key) * 7 - 3)
        return local_epoch(monday, tz)
    if interval in ("1mo", "3mo"):
        months = int(key) * (3 if interval == "3mo" else 1)
        return local_epoch(date(1970 + months // 12, months % 12 + 1, 1), tz)
    return int(series.opens[first_idx])


def _daily_bars(series: DailySeries, interval: str, i0: int, i1: int,
                now: int) -> tuple[Bars, np.ndarray]:
    """Daily-or-longer bars plus the matching adjusted closes."""
    last = max(series.last_visible(now), 0)
    if interval != "1d" and i1 >= i0:
        keys_all = _period_keys(series, interval, np.arange(i0, i0 + 1))
        while i0 > 0 and _period_keys(series, interval, np.arange(i0 - 1, i0))[0] == keys_all[0]:
            i0 -= 1  # whole periods only, so a week/month bar never depends on the range
    bars = daily_range(series, i0, i1, now)
    factors = (series.adj_factors(last) * _gain_factors(series, last))[i0:i1 + 1]
    adj = np.round(bars.c * factors, 6)
    if interval == "1d" or not len(bars):
        return bars, adj
    idx = np.arange(i0, i1 + 1)
    keys = _period_keys(series, interval, idx)
    starts = np.concatenate([[0], np.nonzero(np.diff(keys))[0] + 1])
    ends = np.concatenate([starts[1:], [len(keys)]]) - 1
    ts = np.array([_period_start(series, interval, keys[s], i0 + s) for s in starts],
                  dtype=np.int64)
    out = Bars(ts, bars.o[starts], np.maximum.reduceat(bars.h, starts),
               np.minimum.reduceat(bars.lo, starts), bars.c[ends],
               np.add.reduceat(bars.v, starts))
    return out, adj[ends]


def _intraday(series: DailySeries, interval: str, i0: int, i1: int, p1: int | None,
              p2: int | None, now: int) -> Bars:
    step = INTRADAY_SECONDS[interval]
    parts = [intraday_bars(series, i, step, now) for i in range(i0, i1 + 1)]
    parts = [b for b in parts if len(b)]
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return Bars(empty, empty.astype(float), empty.astype(float), empty.astype(float),
                    empty.astype(float), empty)
    cat = [np.concatenate([getattr(b, f) for b in parts]) for f in ("ts", "o", "h", "lo", "c",
                                                                     "v")]
    bars = Bars(*cat)
    if p1 is not None:
        hi = now + 1 if p2 is None else min(p2, now + 1)
        keep = (bars.ts >= p1) & (bars.ts < hi)
        bars = Bars(*(getattr(bars, f)[keep] for f in ("ts", "o", "h", "lo", "c", "v")))
    return bars


def _null_mask(series: DailySeries, ts: np.ndarray, step: int) -> np.ndarray:
    """Deterministic ~0.5% of rows, never the newest one."""
    if not len(ts):
        return np.zeros(0, dtype=bool)
    salt = np.uint64((series.inst.seed ^ (step * 0x9E3779B97F4A7C15)) & (2**64 - 1))
    with np.errstate(over="ignore"):
        h = ts.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15) + salt
        h ^= h >> np.uint64(29)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(32)
    mask = (h % np.uint64(1000)) < np.uint64(NULL_ROW_PER_MILLE)
    mask[-1] = False
    return mask


def _trading_period(series: DailySeries, start: int, end: int) -> dict:
    name, offset = tz_info(series.inst.tz, start)
    return {"timezone": name, "start": int(start), "end": int(end), "gmtoffset": offset}


def current_trading_period(series: DailySeries, now: int) -> dict:
    """Yahoo's currentTradingPeriod: today's session, or the next one once it is over."""
    venue = series.inst.venue
    post_len = 0
    if venue.post_end_hm is not None:
        post_len = 4 * 3600
    elif not venue.is_24h:
        post_len = venue.display_post_minutes * 60
    i = int(np.searchsorted(series.closes + post_len, now, side="right"))
    i = min(i, len(series) - 1)
    o, c = int(series.opens[i]), int(series.closes[i])
    if venue.is_24h:
        c -= 60
        pre, post = (o, o), (c, c)
    elif venue.pre_start_hm is not None:
        day = date.fromisoformat(str(series.days[i]))
        pre = (local_epoch(day, venue.tz, venue.pre_start_hm), o)
        post = (c, c + post_len)
    else:
        pre = (o - venue.display_pre_minutes * 60, o)
        post = (c, c + post_len)
    return {"pre": _trading_period(series, *pre), "regular": _trading_period(series, o, c),
            "post": _trading_period(series, *post)}


def _meta(series: DailySeries, interval: str, range_: str | None, now: int,
          chart_prev: float, intraday: bool, i0: int, i1: int) -> dict:
    inst = series.inst
    snap = snapshot(series, now)
    tz_name, offset = tz_info(inst.tz, now)
    meta: dict = {
        "currency": inst.currency, "symbol": inst.symbol, "exchangeName": inst.exchange.code,
        "fullExchangeName": inst.exchange.full_name, "instrumentType": inst.kind,
        "firstTradeDate": int(series.opens[0]), "regularMarketTime": snap.market_time,
        "hasPrePostMarketData": inst.has_pre_post, "gmtoffset": offset, "timezone": tz_name,
        "exchangeTimezoneName": inst.tz, "regularMarketPrice": snap.price,
        "fiftyTwoWeekHigh": snap.high_52w, "fiftyTwoWeekLow": snap.low_52w,
    }
    if inst.kind != MUTUALFUND:
        meta.update(regularMarketDayHigh=snap.high, regularMarketDayLow=snap.low,
                    regularMarketVolume=snap.volume)
    if inst.kind != FUTURE:
        meta["longName"] = inst.long_name
    meta["shortName"] = inst.short_name
    meta["chartPreviousClose"] = chart_prev
    if intraday:
        meta["previousClose"] = snap.prev_close
        meta["scale"] = 3
    meta["priceHint"] = inst.price_hint
    meta["currentTradingPeriod"] = current_trading_period(series, now)
    if intraday and i1 >= i0:
        end_cap = 60 if inst.venue.is_24h else 0
        meta["tradingPeriods"] = [
            [_trading_period(series, int(series.opens[i]), int(series.closes[i]) - end_cap)]
            for i in range(i0, i1 + 1)]
    meta["dataGranularity"] = interval
    meta["range"] = range_ or ""
    meta["validRanges"] = list(FUND_VALID_RANGES if inst.kind == MUTUALFUND else VALID_RANGES)
    return meta


def build_chart(series: DailySeries, interval: str, range_: str | None, p1: int | None,
                p2: int | None, now: int, events: set[str]) -> dict:
    """The full {"chart": {"result": [...], "error": null}} body."""
    i0, i1 = _window(series, range_, p1, p2, now)
    intraday = interval in INTRADAY_SECONDS
    adj: np.ndarray | None = None
    if intraday:
        bars = _intraday(series, interval, i0, i1, p1, p2, now)
    else:
        bars, adj = _daily_bars(series, interval, i0, i1, now)
    first_session = i0
    if len(bars) and not intraday:
        first_session = int(np.searchsorted(series.opens, bars.ts[0], side="left"))
    if first_session > 0:
        chart_prev = float(series.c[first_session - 1])
    else:
        chart_prev = float(bars.o[0]) if len(bars) else float(series.o[0])
    result: dict = {"meta": _meta(series, interval, range_, now, chart_prev, intraday, i0, i1)}
    if not len(bars):
        result["indicators"] = {"quote": [{}]}
        return {"chart": {"result": [result], "error": None}}

    result["timestamp"] = bars.ts.tolist()
    ev = _event_block(series, events, i0, i1)
    if ev:
        result["events"] = ev
    columns = {"open": bars.o.tolist(), "high": bars.h.tolist(), "low": bars.lo.tolist(),
               "close": bars.c.tolist(), "volume": bars.v.tolist()}
    if intraday:
        for k in np.nonzero(_null_mask(series, bars.ts, INTRADAY_SECONDS[interval]))[0]:
            for col in columns.values():
                col[k] = None
    indicators: dict = {"quote": [columns]}
    if adj is not None:
        indicators["adjclose"] = [{"adjclose": adj.tolist()}]
    result["indicators"] = indicators
    return {"chart": {"result": [result], "error": None}}


def _event_block(series: DailySeries, events: set[str], i0: int, i1: int) -> dict:
    """Yahoo's ``events`` object for sessions i0..i1: maps keyed by the timestamp text."""
    out: dict = {}
    if i1 < i0:
        return out
    if "div" in events:
        idx = np.nonzero(series.div[i0:i1 + 1])[0] + i0
        if len(idx):
            out["dividends"] = {str(int(series.opens[i])): {"amount": float(series.div[i]),
                                                            "date": int(series.opens[i])}
                                for i in idx}
    if "split" in events:
        splits = {str(int(series.opens[i])): {"date": int(series.opens[i]), "numerator": num,
                                              "denominator": den, "splitRatio": f"{num}:{den}"}
                  for i, num, den in split_sessions(series.inst.symbol) if i0 <= i <= i1}
        if splits:
            out["splits"] = splits
    if "capitalGain" in events:
        gains = {str(int(series.opens[i])): {"amount": amount, "date": int(series.opens[i])}
                 for i, amount in capital_gain_sessions(series.inst.symbol) if i0 <= i <= i1}
        if gains:
            out["capitalGains"] = gains
    return out


# --- splits and capital gains -------------------------------------------------------------

SPLIT_TRIGGERS = (3.0, 4.0, 5.0)  # growth since the last split that makes a company split
MAX_SPLIT_RATIO = 10
GAIN_DAY_FIRST = 10  # capital gains go ex on the first session on/after Dec 10..19
GAIN_SHARE = {MUTUALFUND: 0.1, ETF: 0.03}  # share of the year's return distributed
MAX_GAIN_FRACTION = 0.05  # of the price
MIN_YEAR_RETURN = 0.02
SESSIONS_PER_YEAR = 252


@lru_cache(maxsize=1024)
def split_sessions(symbol: str) -> tuple[tuple[int, int, int], ...]:
    """``(local session index, numerator, denominator)`` of every split, oldest first.

    The companies of :data:`~marketdata.sandbox.corporate_actions.ACTIONS` have their real
    splits (on the first session on or after the ex-date, when the sandbox's history
    reaches it), and no other. Of the other equities, two in three are split-prone:
    walking forward from the first trade, an N:1 split goes ex on the first session whose
    previous close is ``trigger`` times the reference close (the first close, then the
    close of the last split's session); N is that growth rounded down (2..10). Only past
    prices decide, so history never changes."""
    inst = get_instrument(symbol)
    if inst is None or inst.kind != EQUITY:
        return ()
    actions = actions_for(inst.symbol)
    if actions is not None:
        days = get_series(inst).days
        found = ((int(np.searchsorted(days, np.datetime64(split.day, "D"))), split)
                 for split in actions.splits)
        return tuple((k, split.numerator, split.denominator) for k, split in found
                     if 0 < k < len(days))
    if stable_hash("split-prone", inst.symbol) % 3 == 0:
        return ()
    series = get_series(inst)
    closes = series.c
    trigger = SPLIT_TRIGGERS[stable_hash("split-trigger", inst.symbol) % len(SPLIT_TRIGGERS)]
    out: list[tuple[int, int, int]] = []
    ref = 0  # session whose close is the reference
    while ref + 2 < len(closes):
        hits = np.nonzero(closes[ref:-1] >= closes[ref] * trigger)[0]
        if not len(hits):
            break
        k = ref + int(hits[0]) + 1  # ex-date: the session after the close that got there
        ratio = int(min(max(closes[k - 1] / closes[ref], 2.0), MAX_SPLIT_RATIO))
        out.append((k, ratio, 1))
        ref = k
    return tuple(out)


@lru_cache(maxsize=1024)
def capital_gain_sessions(symbol: str) -> tuple[tuple[int, float], ...]:
    """``(local session index, amount)`` of every capital gain distribution, oldest first.

    Mutual funds, and one ETF in four, distribute once a year in December (first session
    on/after a per-symbol day, Dec 10..19), after a year whose return (the last 252
    sessions) exceeded 2%: a share of that return times the price, at most 5% of it."""
    inst = get_instrument(symbol)
    if inst is None or inst.kind not in GAIN_SHARE:
        return ()
    if inst.kind == ETF and stable_hash("etf-gains", inst.symbol) % 4:
        return ()
    series = get_series(inst)
    table = series.table
    months = table.months[series.start:]
    dom = table.day_of_month[series.start:]
    day = GAIN_DAY_FIRST + stable_hash("gain-day", inst.symbol) % 10
    cand = np.nonzero((months % 12 == 11) & (dom >= day))[0]
    cand = cand[cand > SESSIONS_PER_YEAR]
    if not len(cand):
        return ()
    first_of_year = cand[np.concatenate([[True], np.diff(months[cand]) != 0])]
    closes = series.c
    out: list[tuple[int, float]] = []
    for k in first_of_year.tolist():
        prev = float(closes[k - 1])
        year_return = prev / float(closes[k - 1 - SESSIONS_PER_YEAR]) - 1.0
        if year_return <= MIN_YEAR_RETURN:
            continue
        fraction = min(GAIN_SHARE[inst.kind] * year_return, MAX_GAIN_FRACTION)
        amount = round(prev * fraction, 4)
        if amount > 0:
            out.append((k, amount))
    return tuple(out)


def _gain_factors(series: DailySeries, upto: int) -> np.ndarray:
    """Adjustment factors for the capital gains up to session ``upto`` (as dividends)."""
    n = len(series)
    m = np.zeros(n)
    for k, amount in capital_gain_sessions(series.inst.symbol):
        if 0 < k <= upto:
            m[k] = math.log1p(-amount / float(series.c[k - 1]))
    if not m.any():
        return np.ones(n)
    cs = np.cumsum(m)
    return np.exp(cs[-1] - cs)
