"""Shared inputs of the options tests: the generated grid and QuantLib helpers."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tests.conftest import UPSTREAM_DIR

QL_TODAY = (2, 1, 2025)


def grid(n: int, seed: int = 45) -> dict[str, np.ndarray]:
    """n contracts: spots 10..1,000, strikes 0.5..2 x spot, T 1 day..3 years (whole days,
    so QuantLib's Actual/365 dates give the same T), r -1%..8%, q 0..5%, sigma 5%..150%,
    calls and puts."""
    rng = np.random.default_rng(seed)
    S = np.exp(rng.uniform(np.log(10), np.log(1000), n))
    return {
        "S": S, "K": S * np.exp(rng.uniform(np.log(0.5), np.log(2.0), n)),
        "T": rng.integers(1, 3 * 365 + 1, n) / 365.0, "r": rng.uniform(-0.01, 0.08, n),
        "q": rng.uniform(0.0, 0.05, n), "sigma": rng.uniform(0.05, 1.5, n),
        "is_call": rng.integers(0, 2, n).astype(bool),
    }


@pytest.fixture(scope="session")
def ql():
    return pytest.importorskip("QuantLib")


def ql_option(ql, S, K, T, r, q, sigma, is_call, american: bool):
    """A QuantLib vanilla option on flat continuous curves (Actual/365 Fixed, T in whole
    days) and its Black-Scholes-Merton process."""
    today = ql.Date(*QL_TODAY)
    ql.Settings.instance().evaluationDate = today
    dc = ql.Actual365Fixed()
    expiry = today + round(T * 365)
    process = ql.BlackScholesMertonProcess(
        ql.QuoteHandle(ql.SimpleQuote(S)),
        ql.YieldTermStructureHandle(ql.FlatForward(today, q, dc, ql.Continuous)),
        ql.YieldTermStructureHandle(ql.FlatForward(today, r, dc, ql.Continuous)),
        ql.BlackVolTermStructureHandle(ql.BlackConstantVol(today, ql.NullCalendar(), sigma, dc)))
    payoff = ql.PlainVanillaPayoff(ql.Option.Call if is_call else ql.Option.Put, K)
    exercise = ql.AmericanExercise(today, expiry) if american else ql.EuropeanExercise(expiry)
    return ql.VanillaOption(payoff, exercise), process


def recorded_chains() -> list[tuple[str, dict, dict, bool]]:
    """Every contract of the real Yahoo chains in ../shared/upstream: (file name, the
    chain's quote, the contract, is_call); the test skips without them."""
    folder = UPSTREAM_DIR / "yahoo" / "v7-options"
    if not folder.is_dir():
        pytest.skip("../shared/upstream absent")
    out = []
    for path in sorted(folder.glob("*.json")):
        result = (json.loads(path.read_text()).get("optionChain", {}).get("result") or [None])[0]
        if not result or not result.get("options") or not result.get("quote"):
            continue
        quote = result["quote"]
        for expiry in result["options"]:
            for side, is_call in (("calls", True), ("puts", False)):
                for c in expiry.get(side, []):
                    out.append((path.name, quote, c, is_call))
    if not out:
        pytest.skip("no option chain in ../shared/upstream")
    return out
