"""Fixtures of the indicator oracle suite: each real series in turn, and the comparison."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import pytest

from marketdata.indicators.bars import PriceArrays
from tests.price_series import BOKEH_TICKERS, RECORDINGS, UPSTREAM, bokeh_bars, recorded_bars

# Oscillators on a 0-100 or +/-100 scale pass through exact zeros (a close at the window's
# low, a typical price equal to its mean), where two correct running sums differ by ~1e-12
# absolute: those values are compared with this absolute floor (1e-9 absolute error).
OSCILLATOR_FLOOR = 1e-3


def arr(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float64)


@contextmanager
def strict() -> Iterator[None]:
    """Any numpy floating-point event or Python warning is an error."""
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def _series_params() -> list:
    params = [pytest.param(("bokeh", t), id=f"bokeh-{t}") for t in BOKEH_TICKERS]
    for name in RECORDINGS:
        params.append(pytest.param(
            ("recording", name), id=f"yahoo-{name}",
            marks=pytest.mark.skipif(not (UPSTREAM / RECORDINGS[name]).exists(),
                                     reason="../shared/upstream recordings not present")))
    return params


@pytest.fixture(params=_series_params())
def oracle_series(request: pytest.FixtureRequest) -> PriceArrays:
    """Each real series in turn (at least three always; five with ../shared)."""
    kind, name = request.param
    return bokeh_bars(name) if kind == "bokeh" else recorded_bars(name)


def assert_matches(ours: np.ndarray, theirs: np.ndarray, rel: float = 1e-6,
                   skip: int = 0, abs_floor: float = 1e-9) -> None:
    """Same defined/undefined bars (after the first ``skip`` bars) and values within ``rel``
    relative error (values near zero are compared with an absolute floor)."""
    ours = np.asarray(ours, dtype=float)[skip:]
    theirs = np.asarray(theirs, dtype=float)[skip:]
    assert ours.shape == theirs.shape
    mine_nan, their_nan = np.isnan(ours), np.isnan(theirs)
    mismatch = np.flatnonzero(mine_nan != their_nan)
    assert mismatch.size == 0, (
        f"defined on different bars, first at {mismatch[0] + skip}: "
        f"ours={ours[mismatch[0]]} theirs={theirs[mismatch[0]]}")
    defined = ~their_nan
    assert defined.any(), "nothing to compare"
    scale = np.maximum(np.abs(theirs[defined]), abs_floor)
    error = np.abs(ours[defined] - theirs[defined]) / scale
    worst = int(np.argmax(error))
    assert error[worst] <= rel, (
        f"relative error {error[worst]:.3g} at defined bar {worst}: "
        f"ours={ours[defined][worst]!r} theirs={theirs[defined][worst]!r}")
