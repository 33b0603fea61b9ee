"""A serving process's warm-up (marketdata/warmup.py): by default it loads everything before
the first request; MARKETDATA_WARM_UP=lazy (the test suite's servers) skips it."""

from __future__ import annotations

import pytest

from marketdata import warmup


@pytest.fixture
def pieces(monkeypatch) -> list[str]:
    """The warm-up's pieces, replaced by recorders of their names."""
    import marketdata.backtest.warmup
    import marketdata.exchange_hours
    import marketdata.indicators.warmup
    import marketdata.markets
    import marketdata.options.warmup

    ran: list[str] = []
    for module, name in ((marketdata.markets, "market_status"),
                         (marketdata.indicators.warmup, "warm_up"),
                         (marketdata.backtest.warmup, "warm_up"),
                         (marketdata.options.warmup, "warm_up"),
                         (marketdata.exchange_hours, "warm_up_in_background")):
        label = f"{module.__name__}.{name}"
        monkeypatch.setattr(module, name, lambda *_a, label=label, **_k: ran.append(label))
    return ran


@pytest.mark.parametrize("value", [None, "", "eager", "EAGER", "anything else"])
def test_a_worker_warms_up_everything_unless_told_lazy(pieces, monkeypatch, value):
    if value is None:
        monkeypatch.delenv("MARKETDATA_WARM_UP", raising=False)
    else:
        monkeypatch.setenv("MARKETDATA_WARM_UP", value)
    warmup.warm_up_process()
    assert pieces == ["marketdata.markets.market_status", "marketdata.indicators.warmup.warm_up",
                      "marketdata.backtest.warmup.warm_up", "marketdata.options.warmup.warm_up",
                      "marketdata.exchange_hours.warm_up_in_background"]


@pytest.mark.parametrize("value", ["lazy", " Lazy "])
def test_lazy_skips_the_warm_up(pieces, monkeypatch, value):
    monkeypatch.setenv("MARKETDATA_WARM_UP", value)
    warmup.warm_up_process()
    assert pieces == []
