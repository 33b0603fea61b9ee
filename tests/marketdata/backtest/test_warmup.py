import warnings

import numpy as np

from marketdata.backtest.warmup import warm_up


def test_warm_up_runs_every_strategy_without_warnings():
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        warm_up()
