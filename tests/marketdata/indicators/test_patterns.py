"""Candlestick patterns on hand-made candles: each pattern once where it must be named and
once in a near miss (one condition just broken), plus the priority between patterns."""

from __future__ import annotations

import pytest

from marketdata.indicators.patterns import PATTERNS, detect_patterns

FLAT = 0.2  # half the high-low span of the flat trend bars


def run(bars: list[tuple[float, float, float, float]]) -> list[str | None]:
    o, h, lo, c = (list(column) for column in zip(*bars, strict=True))
    return detect_patterns(o, h, lo, c)


def last(bars: list[tuple[float, float, float, float]]) -> str | None:
    return run(bars)[-1]


def trend(*closes: float) -> list[tuple[float, float, float, float]]:
    """Flat bars (open == close: no colour, so no 2- or 3-bar pattern) at these closes."""
    return [(c, c + FLAT, c - FLAT, c) for c in closes]


DOWN = trend(15, 14, 13, 12)
UP = trend(12, 13, 14, 15)
LEVEL = trend(12, 12, 12, 12)

# name: (bars that complete the pattern, near miss, what the near miss is named instead)
CASES: dict[str, tuple[list, list, str | None]] = {
    # -- 1 bar --
    "Doji": ([(10, 11, 9, 10.05)],  # body 2.5% of the range
             [(10, 11, 9, 10.15)], "SpinningTop"),  # 7.5%
    "BullishMarubozu": ([(10, 11.02, 9.98, 11)],  # body 96%
                        [(10, 11.1, 9.9, 11)], None),  # 83%
    "BearishMarubozu": ([(11, 11.02, 9.98, 10)],
                        [(11, 11.1, 9.9, 10)], None),
    "Hammer": ([*DOWN, (11, 11.25, 10, 11.2)],  # lower wick 5x body, upper 0.25x
               [*DOWN, (11, 11.25, 10.7, 11.2)], None),  # lower wick only 1.5x
    "HangingMan": ([*UP, (15, 15.25, 14, 15.2)],
                   [*UP, (15, 15.35, 14, 15.2)], None),  # upper wick 0.75x body
    "InvertedHammer": ([*DOWN, (11, 12.2, 10.95, 11.2)],
                       [*LEVEL, (11, 12.2, 10.95, 11.2)], None),  # no trend
    "ShootingStar": ([*UP, (15, 16.2, 14.95, 15.2)],
                     [*UP, (15, 16.2, 14.85, 15.2)], None),  # lower wick 0.75x body
    "SpinningTop": ([(10, 11, 9, 10.4)],  # body 20%, both wicks longer than it
                    [(10, 11, 9, 10.7)], None),  # body 35%
    # -- 2 bars --
    "TweezerTop": ([(10, 12, 9.8, 11.8), (11.8, 12.01, 11, 11.2)],  # highs 0.08% apart
                   [(10, 12, 9.8, 11.8), (11.8, 12.02, 11, 11.2)], "BearishHarami"),
    "TweezerBottom": ([(12, 12.2, 10, 10.2), (10.2, 11, 10.005, 10.8)],
                      [(12, 12.2, 10, 10.2), (10.2, 11, 10.02, 10.8)], "BullishHarami"),
    "BullishEngulfing": ([(11, 11.2, 9.9, 10), (9.8, 11.4, 9.7, 11.2)],
                         [(11, 11.2, 9.9, 10), (10, 11.2, 9.7, 11)], None),  # equal body
    "BearishEngulfing": ([(10, 11.1, 9.8, 11), (11.2, 11.3, 9.6, 9.8)],
                         [(10, 11.1, 9.8, 11), (11, 11.3, 9.6, 10)], None),  # equal body
    "BullishHarami": ([(12, 12.2, 9.8, 10), (10.5, 11.5, 10.3, 11.2)],
                      [(12, 12.2, 9.8, 10), (10.5, 12.3, 10.3, 12.1)], None),  # top sticks out
    "BearishHarami": ([(10, 12.2, 9.8, 12), (11.5, 11.7, 10.3, 10.8)],
                      [(10, 12.2, 9.8, 12), (11.5, 11.7, 9.85, 9.9)], None),
    "PiercingLine": ([(12, 12.1, 9.9, 10), (9.7, 11.6, 9.6, 11.4)],
                     [(12, 12.1, 9.9, 10), (9.7, 11.0, 9.6, 10.9)], None),  # below midpoint
    "DarkCloudCover": ([(10, 12.1, 9.9, 12), (12.3, 12.4, 10.4, 10.6)],
                       [(10, 12.1, 9.9, 12), (12.3, 12.4, 11.0, 11.1)], None),
    # -- 3 bars --
    "ThreeWhiteSoldiers": (
        [(10, 11.1, 9.9, 11), (10.5, 12.1, 10.4, 12), (11.5, 13.1, 11.4, 13)],
        [(10, 11.1, 9.9, 11), (10.5, 12.1, 10.4, 12), (12.2, 13.1, 12.1, 13)], None),
    "ThreeBlackCrows": (
        [(13, 13.1, 11.9, 12), (12.5, 12.6, 10.9, 11), (11.5, 11.6, 9.9, 10)],
        [(13, 13.1, 11.9, 12), (12.5, 12.6, 10.9, 11), (10.8, 10.9, 9.9, 10)], None),
    "MorningStar": (
        [(12, 12.1, 9.9, 10), (9.5, 9.7, 9.3, 9.6), (9.8, 11.6, 9.7, 11.5)],
        [(12, 12.1, 9.9, 10), (9.5, 9.7, 9.3, 9.6), (9.8, 10.9, 9.7, 10.8)], None),
    "EveningStar": (
        [(10, 12.1, 9.9, 12), (12.4, 12.7, 12.3, 12.5), (12.2, 12.3, 10.4, 10.5)],
        [(10, 12.1, 9.9, 12), (12.4, 12.7, 12.3, 12.5), (12.2, 12.3, 11.1, 11.2)], None),
}


def test_every_pattern_has_a_case():
    assert set(CASES) == set(PATTERNS)


@pytest.mark.parametrize("name", list(CASES))
def test_pattern_is_named(name):
    bars, _, _ = CASES[name]
    names = run(bars)
    assert len(names) == len(bars)
    assert names[-1] == name


@pytest.mark.parametrize("name", list(CASES))
def test_near_miss_is_not_named(name):
    _, near, instead = CASES[name]
    assert last(near) == instead
    assert last(near) != name


def test_zero_range_bar_is_a_doji():
    assert run([(10, 10, 10, 10)]) == ["Doji"]


def test_hammer_needs_four_bars_of_history():
    """Trend context needs close[i-4]: on the fourth bar there is none, no hammer."""
    bars = [*DOWN[1:], (11, 11.25, 10, 11.2)]
    assert last(bars) is None
    assert last([*DOWN, (11, 11.25, 10, 11.2)]) == "Hammer"


def test_three_bar_pattern_wins_over_one_bar():
    """The third soldier is also a bullish marubozu: the 3-bar pattern is named."""
    bars = [(10, 11.05, 9.95, 11), (10.5, 12.05, 10.45, 12), (11.5, 13.02, 11.48, 13)]
    assert last(bars[-1:]) == "BullishMarubozu"
    assert last(bars) == "ThreeWhiteSoldiers"


def test_two_bar_pattern_wins_over_one_bar():
    """An engulfing bar that is also a marubozu is named as the engulfing."""
    bars = [(11, 11.2, 9.9, 10), (9.8, 11.85, 9.75, 11.8)]
    assert last(bars[-1:]) == "BullishMarubozu"
    assert last(bars) == "BullishEngulfing"


def test_tweezer_wins_over_harami():
    bars, _, _ = CASES["TweezerTop"]
    prev, cur = bars
    assert last([prev, (cur[0], 12.05, cur[2], cur[3])]) == "BearishHarami"
    assert last(bars) == "TweezerTop"


def test_aligned_one_to_one_with_nones():
    bars = [*trend(10, 10, 10), (10, 11, 9, 10.4)]
    assert run(bars) == ["Doji", "Doji", "Doji", "SpinningTop"]
    assert run([(10, 11.1, 9.9, 10.5), (10.5, 11.2, 10.3, 11.0)]) == [None, None]


def test_empty():
    assert detect_patterns([], [], [], []) == []
