"""The start-up warm-up runs every compiled kernel."""

import warnings

from marketdata.indicators.warmup import warm_up


def test_warm_up_runs_every_kernel_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warm_up()
