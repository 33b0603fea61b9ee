"""The ``params`` table: JSON types, bounds, unknown members, defaults."""

from __future__ import annotations

import pytest

from marketdata.backtest.engine import setup
from marketdata.backtest.params import PARAMS, RunConfig, parse_params
from marketdata.errors import InvalidParameters


def errors_of(raw) -> dict[str, str]:
    with pytest.raises(InvalidParameters) as caught:
        parse_params(raw)
    return {e.param: e.message for e in caught.value.errors}


def test_valid_members_are_typed_and_nulls_mean_default():
    got = parse_params({"fastPeriod": 5.0, "stdDev": 2, "allowShort": True,
                        "stopLossPct": None, "initialCapital": 5e5})
    assert got == {"fastPeriod": 5, "stdDev": 2.0, "allowShort": True, "initialCapital": 5e5}
    assert isinstance(got["fastPeriod"], int) and isinstance(got["stdDev"], float)
    assert parse_params(None) == {} and parse_params({}) == {}


@pytest.mark.parametrize(("raw", "member", "message"), [
    ({"fastPeriod": 2.5}, "fastPeriod", "Input should be a valid integer, got a number with "
                                        "a fractional part"),
    ({"fastPeriod": "10"}, "fastPeriod", "Input should be a valid integer"),
    ({"fastPeriod": True}, "fastPeriod", "Input should be a valid integer"),
    ({"fastPeriod": 0}, "fastPeriod", "Input should be greater than or equal to 1"),
    ({"slowPeriod": 1001}, "slowPeriod", "Input should be less than or equal to 1000"),
    ({"commissionPct": 0.2}, "commissionPct", "Input should be less than or equal to 0.1"),
    ({"commissionPct": -0.001}, "commissionPct", "Input should be greater than or equal to 0"),
    ({"positionSizePct": 0}, "positionSizePct", "Input should be greater than 0"),
    ({"positionSizePct": 1.5}, "positionSizePct", "Input should be less than or equal to 1"),
    ({"stopLossPct": 1}, "stopLossPct", "Input should be less than 1"),
    ({"initialCapital": 0}, "initialCapital", "Input should be greater than 0"),
    ({"maxLeverage": 0.5}, "maxLeverage", "Input should be greater than or equal to 1"),
    ({"oversold": 100}, "oversold", "Input should be less than 100"),
    ({"stdDev": float("inf")}, "stdDev", "Input should be a finite number"),
    ({"allowShort": 1}, "allowShort", "Input should be a valid boolean"),
    ({"allowShort": "true"}, "allowShort", "Input should be a valid boolean"),
    ({"multiplier": [3]}, "multiplier", "Input should be a valid number"),
])
def test_bad_members_are_named(raw, member, message):
    assert errors_of(raw) == {member: message}


def test_unknown_members_list_the_valid_names_and_all_errors_come_at_once():
    got = errors_of({"stopLosPct": 0.1, "fastPeriod": -1})
    assert set(got) == {"stopLosPct", "fastPeriod"}
    assert got["stopLosPct"].startswith("Unknown parameter; valid names: initialCapital, ")
    assert all(name in got["stopLosPct"] for name in PARAMS)
    assert errors_of([1]) == {"params": "Input should be a valid dictionary"}


def test_run_config_defaults_and_overrides():
    assert RunConfig.from_params({}) == RunConfig()
    assert RunConfig() == RunConfig(10_000.0, 0.001, 0.001, 1.0, False, 0.0, 0.0, 1.0, 0.25,
                                    0.0, 0.0)
    config = RunConfig.from_params(parse_params({"stopLossPct": 0.05, "allowShort": True,
                                                 "fastPeriod": 3}))
    assert (config.stop_loss_pct, config.allow_short) == (0.05, True)


def test_unknown_strategy_lists_the_valid_names():
    with pytest.raises(InvalidParameters) as caught:
        setup("sma_cross")
    [error] = caught.value.errors
    assert error.param == "strategy" and "'sma_crossover'" in error.message
    assert "'buy_and_hold'" in error.message
