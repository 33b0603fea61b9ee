"""Technical indicators: pure functions over numpy arrays, no Django.

- :mod:`core`: moving averages, smoothers, windows, true range (shared building blocks);
- :mod:`classic`: the v1 functions (RSI, stochastics, CCI, OBV, Bollinger, Aroon, ADX, MACD,
  SuperTrend, Ichimoku, VWMA); :mod:`extra`: the rest of the v2 set;
- :mod:`functions`: the v1 table (parameters, defaults, bounds, members);
  :mod:`indicator_set`: the v2 indicator set at the last bar.

Definitions, and every divergence from TA-Lib and the reference, are in README.md here.
"""
