"""Real daily price series for indicator tests (oracle suite, API tests, benchmarks).

- bokeh-sampledata's public-domain ``stocks.csv.gz`` (test-only dependency): AAPL, IBM and
  MSFT, the last 2,500 daily bars each (2003-2013);
- two real Yahoo chart recordings from ``../shared/upstream`` when that folder is present
  (MSFT and NVDA, 2021-02..2022-01, about 250 bars each).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pandas as pd

from marketdata.indicators.bars import PriceArrays
from marketdata.providers.yahoo.chart import parse_bars

UPSTREAM = Path(__file__).resolve().parents[2] / "shared" / "upstream" / "yahoo" / "v8-chart"
RECORDINGS = {
    "MSFT-2021": "historical-via-chart-MSFT-dividends-2021-02-01-to-2022-01-31.json",
    "NVDA-2021": "historical-via-chart-NVDA-split-2021-02-01-to-2022-01-31.json",
}
BOKEH_TICKERS = ("AAPL", "IBM", "MSFT")


@functools.cache
def _bokeh_frame() -> pd.DataFrame:
    import bokeh_sampledata

    path = Path(bokeh_sampledata.__file__).parent / "_data" / "stocks.csv.gz"
    return pd.read_csv(path)


@functools.cache
def bokeh_bars(ticker: str, rows: int = 2500) -> PriceArrays:
    frame = _bokeh_frame()
    frame = frame[frame["Ticker"] == ticker].sort_values("Date").tail(rows)
    stamps = pd.to_datetime(frame["Date"]).to_numpy().astype("datetime64[s]").astype("int64")
    return PriceArrays.from_columns(stamps, frame["Open"], frame["High"], frame["Low"],
                             frame["Close"], frame["Volume"], frame["Adj Close"])


@functools.cache
def recorded_bars(name: str) -> PriceArrays:
    payload = json.loads((UPSTREAM / RECORDINGS[name]).read_text())
    return PriceArrays.from_candles(parse_bars(payload, "1d").candles())
