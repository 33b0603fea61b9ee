import warnings

import numpy as np
import pytest

from marketdata.backtest.warmup import warm_up


@pytest.mark.slow("compiles every strategy's kernels when numba's cache is empty")
def test_warm_up_runs_every_strategy_without_warnings():
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        warm_up()
