"""Candlestick patterns: one name (or None) per bar, for ``/v2/chart?patterns=true``.

Why a fixed, documented rule set: a pattern name is only useful to a client if it always
means the same geometry, so every threshold is spelled out here and unit-tested on
hand-made candles (tests/marketdata/indicators/test_patterns.py). Pure numpy, no Django.

A pattern is reported on the bar that *completes* it (the last bar of a 2- or 3-bar
pattern). Each bar gets at most one name; when several match, the first in this priority
order wins: 3-bar patterns, then 2-bar, then 1-bar, each group in the order of its table.

Terms, for a bar with open ``o``, high ``h``, low ``l``, close ``c``: ``body = |c - o|``,
``range = h - l``, ``upper wick = h - max(o, c)``, ``lower wick = min(o, c) - l``;
*bullish* when ``c > o``, *bearish* when ``c < o`` (a bar with ``c == o`` is neither);
the *body midpoint* is ``(o + c) / 2``. Bars are numbered ``1`` (oldest) to ``3``.

3-bar patterns (sentiment):

=====================  =====  =====================================================
ThreeWhiteSoldiers     bull   three bullish bars; bars 2 and 3 each open inside the
                              previous body (inclusive) and close above the previous
                              close
ThreeBlackCrows        bear   three bearish bars; bars 2 and 3 each open inside the
                              previous body and close below the previous close
MorningStar            bull   bar 1 bearish with body >= 50% of its range; bar 2 body
                              <= 30% of its range (any body when its range is 0) and
                              entirely below bar 1's close; bar 3 bullish, closing above
                              bar 1's body midpoint
EveningStar            bear   mirror: bar 1 bullish (body >= 50%), bar 2 small body
                              entirely above bar 1's close, bar 3 bearish closing
                              below bar 1's body midpoint
=====================  =====  =====================================================

2-bar patterns (bar 1 = previous, bar 2 = current):

=================  =====  ==========================================================
TweezerTop         bear   bar 1 bullish, bar 2 bearish, highs within 0.1% of bar 1's
                          high
TweezerBottom      bull   bar 1 bearish, bar 2 bullish, lows within 0.1% of bar 1's
                          low
BullishEngulfing   bull   bar 1 bearish, bar 2 bullish; bar 2 opens at or below bar 1's
                          close and closes at or above bar 1's open, with a strictly
                          larger body
BearishEngulfing   bear   bar 1 bullish, bar 2 bearish; opens at or above bar 1's close,
                          closes at or below bar 1's open, strictly larger body
BullishHarami      bull   bar 1 bearish, bar 2 bullish, bar 2's body inside bar 1's body
                          (inclusive) and strictly smaller
BearishHarami      bear   bar 1 bullish, bar 2 bearish, body inside and smaller
PiercingLine       bull   bar 1 bearish, bar 2 bullish; opens below bar 1's close, closes
                          above bar 1's body midpoint but below bar 1's open
DarkCloudCover     bear   bar 1 bullish, bar 2 bearish; opens above bar 1's close, closes
                          below bar 1's body midpoint but above bar 1's open
=================  =====  ==========================================================

1-bar patterns:

===============  =======  ==========================================================
Doji             neutral  body <= 5% of the range, or a range of 0
BullishMarubozu  bull     bullish, body >= 90% of the range
BearishMarubozu  bear     bearish, body >= 90% of the range
Hammer           bull     hammer shape after a downtrend
HangingMan       bear     hammer shape after an uptrend
InvertedHammer   bull     inverted shape after a downtrend
ShootingStar     bear     inverted shape after an uptrend
SpinningTop      neutral  body <= 30% of the range and both wicks >= the body
===============  =======  ==========================================================

- Hammer shape: lower wick >= 2 x body and upper wick <= 0.5 x body; inverted shape: the
  two wick conditions swapped (the body is floored at 1e-9 so a flat body is no hammer).
- Trend context for those four: on bar ``i`` (0-based, needs ``i >= 4``), a downtrend is
  ``close[i-4] > close[i-1]`` and an uptrend ``close[i-4] < close[i-1]``; the signal bar
  itself is left out. Without a trend (too early, or equal closes) the shape is not named
  and the bar falls through to the spinning-top check.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DOJI_BODY = 0.05
MARUBOZU_BODY = 0.90
SPINNING_TOP_BODY = 0.30
HAMMER_WICK = 2.0
HAMMER_OTHER_WICK = 0.5
BODY_FLOOR = 1e-9
TWEEZER_TOLERANCE = 0.001
STAR_FIRST_BODY = 0.50
STAR_MIDDLE_BODY = 0.30
TREND_LOOKBACK = 4

THREE_BAR = ("ThreeWhiteSoldiers", "ThreeBlackCrows", "MorningStar", "EveningStar")
TWO_BAR = ("TweezerTop", "TweezerBottom", "BullishEngulfing", "BearishEngulfing",
           "BullishHarami", "BearishHarami", "PiercingLine", "DarkCloudCover")
ONE_BAR = ("Doji", "BullishMarubozu", "BearishMarubozu", "Hammer", "HangingMan",
           "InvertedHammer", "ShootingStar", "SpinningTop")
# Every name, in priority order (the first that matches a bar is its name).
PATTERNS = THREE_BAR + TWO_BAR + ONE_BAR


def _back(values: np.ndarray, k: int) -> np.ndarray:
    """``values`` shifted k bars later (element i is values[i-k]); NaN where i < k, so any
    comparison with it is False and a pattern never reaches before the first bar."""
    out = np.full(values.shape, np.nan)
    if k < values.size:
        out[k:] = values[:values.size - k]
    return out


def detect_patterns(open_: Sequence[float], high: Sequence[float], low: Sequence[float],
                    close: Sequence[float]) -> list[str | None]:
    """The pattern name of each bar (see the module docstring), None where none matches.
    The four sequences are parallel, oldest bar first."""
    o = np.asarray(open_, dtype=float)
    h = np.asarray(high, dtype=float)
    lo = np.asarray(low, dtype=float)
    c = np.asarray(close, dtype=float)
    if not o.size:
        return []
    conditions = dict(zip(PATTERNS, _conditions(o, h, lo, c), strict=True))
    with np.errstate(invalid="ignore"):
        chosen = np.select([conditions[name] for name in PATTERNS],
                           np.arange(len(PATTERNS)), default=-1)
    return [PATTERNS[k] if k >= 0 else None for k in chosen.tolist()]


def _conditions(o: np.ndarray, h: np.ndarray, lo: np.ndarray,
                c: np.ndarray) -> list[np.ndarray]:
    """One boolean mask per name of PATTERNS, in that order."""
    with np.errstate(invalid="ignore", divide="ignore"):
        body = np.abs(c - o)
        rng = h - lo
        top = np.maximum(o, c)
        bottom = np.minimum(o, c)
        upper = h - top
        lower = bottom - lo
        bull = c > o
        bear = c < o
        mid = (o + c) / 2.0

        # Previous bars (1 = one bar back, 2 = two bars back); NaN before the first bar.
        o1, h1, lo1, c1 = (_back(a, 1) for a in (o, h, lo, c))
        o2, c2 = _back(o, 2), _back(c, 2)
        body1, rng1, top1, bottom1, mid1 = (_back(a, 1) for a in (body, rng, top, bottom, mid))
        body2, rng2, mid2 = _back(body, 2), _back(rng, 2), _back(mid, 2)
        bull1, bear1 = c1 > o1, c1 < o1
        bull2, bear2 = c2 > o2, c2 < o2

        # -- 3 bars -----------------------------------------------------------------
        soldiers = (bull2 & bull1 & bull
                    & (o1 >= o2) & (o1 <= c2) & (c1 > c2)
                    & (o >= o1) & (o <= c1) & (c > c1))
        crows = (bear2 & bear1 & bear
                 & (o1 <= o2) & (o1 >= c2) & (c1 < c2)
                 & (o <= o1) & (o >= c1) & (c < c1))
        small_middle = (rng1 == 0) | (body1 <= STAR_MIDDLE_BODY * rng1)
        morning = (bear2 & (body2 >= STAR_FIRST_BODY * rng2)
                   & small_middle & (top1 < c2)
                   & bull & (c > mid2))
        evening = (bull2 & (body2 >= STAR_FIRST_BODY * rng2)
                   & small_middle & (bottom1 > c2)
                   & bear & (c < mid2))

        # -- 2 bars -----------------------------------------------------------------
        tweezer_top = bull1 & bear & (np.abs(h - h1) <= TWEEZER_TOLERANCE * np.abs(h1))
        tweezer_bottom = bear1 & bull & (np.abs(lo - lo1) <= TWEEZER_TOLERANCE * np.abs(lo1))
        bull_engulf = bear1 & bull & (o <= c1) & (c >= o1) & (body > body1)
        bear_engulf = bull1 & bear & (o >= c1) & (c <= o1) & (body > body1)
        inside = (top <= top1) & (bottom >= bottom1) & (body < body1)
        bull_harami = bear1 & bull & inside
        bear_harami = bull1 & bear & inside
        piercing = bear1 & bull & (o < c1) & (c > mid1) & (c < o1)
        dark_cloud = bull1 & bear & (o > c1) & (c < mid1) & (c > o1)

        # -- 1 bar ------------------------------------------------------------------
        doji = (rng == 0) | (body <= DOJI_BODY * rng)
        marubozu = (rng > 0) & (body >= MARUBOZU_BODY * rng)
        floor = np.maximum(body, BODY_FLOOR)
        hammer_shape = (lower >= HAMMER_WICK * floor) & (upper <= HAMMER_OTHER_WICK * floor)
        inverted_shape = (upper >= HAMMER_WICK * floor) & (lower <= HAMMER_OTHER_WICK * floor)
        before = _back(c, TREND_LOOKBACK)  # close[i-4]
        last = c1  # close[i-1]
        down = before > last
        up = before < last
        spinning = ((rng > 0) & (body <= SPINNING_TOP_BODY * rng)
                    & (upper >= body) & (lower >= body))

    return [soldiers, crows, morning, evening,
            tweezer_top, tweezer_bottom, bull_engulf, bear_engulf, bull_harami, bear_harami,
            piercing, dark_cloud,
            doji, marubozu & bull, marubozu & bear, hammer_shape & down, hammer_shape & up,
            inverted_shape & down, inverted_shape & up, spinning]
