"""The start-up warm-up runs every compiled kernel."""

from marketdata.indicators.warmup import warm_up

from .conftest import strict


def test_warm_up_runs_every_kernel_without_warnings():
    with strict():
        warm_up()
