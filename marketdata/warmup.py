"""What a serving process loads before its first request instead of during it: the market
calendar, the compiled indicator, backtest and options kernels, and (in the background) every
region's exchange calendar. A gunicorn worker runs it at start (``post_worker_init``),
``manage.py mcp`` on a thread beside its handshake.

``MARKETDATA_WARM_UP=lazy`` (the test suite's servers, nothing else) skips it: each piece is
then built by the first request that needs it, as it would be without a warm-up. A test
server that never asks for an indicator or an exchange calendar saves the ~3 s of CPU its
start would spend on them (tests/integration/servers.py)."""

from __future__ import annotations

import os


def warm_up_process() -> None:
    if os.environ.get("MARKETDATA_WARM_UP", "eager").strip().lower() == "lazy":
        return
    from marketdata.backtest.warmup import warm_up as warm_up_backtest
    from marketdata.exchange_hours import warm_up_in_background
    from marketdata.indicators.warmup import warm_up as warm_up_indicators
    from marketdata.markets import market_status
    from marketdata.options.warmup import warm_up as warm_up_options

    market_status()
    warm_up_indicators()
    warm_up_backtest()
    warm_up_options()
    # Every region's exchange calendar for /v2/hours: ~0.5 s of CPU, so the first request
    # for any region finds it built (marketdata/exchange_hours.py).
    warm_up_in_background()
