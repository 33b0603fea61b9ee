"""Strategy backtesting over OHLCV arrays: no Django, no fetching.

- :mod:`params`: the ``params`` members (types, bounds, run-wide defaults) and
  :class:`~marketdata.backtest.params.RunConfig`;
- :mod:`strategies`: the prebuilt strategies (signal flags from the shared indicators);
- :mod:`engine`: :func:`~marketdata.backtest.engine.run_backtest` (and ``backtest``, the
  API's one-call entry), trades, signals, diagnostics;
- :mod:`_kernel`: the compiled bar loop; :mod:`metrics`: every metric.

Semantics, metric definitions and units: README.md here.
"""
