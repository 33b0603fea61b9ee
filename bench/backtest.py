"""Backtest benchmark: our engine next to backtesting.py on the same bars, in one run, and
the endpoint's latency with the history cached.

1. The SMA crossover (10/20, commission 0.1 %, no slippage, long only) on 2,500 daily bars
   (bokeh-sampledata AAPL, the last 2,500 sessions): our ``engine.backtest`` (indicators,
   the bar loop, trades, signals with their reasons, every metric) against backtesting.py's
   ``Backtest.run`` (its own SMA; whole shares) and ``FractionalBacktest.run`` (the
   cross-check's setting). Targets: under 5 ms per run, at least 10x faster.
2. Every strategy with its defaults: ours (indicators included) against backtesting.py
   running the same signals (our flags fed to a generic strategy, so its time has no
   indicator cost at all: the ratio flatters it).
3. ``POST /v2/backtest/{symbol}`` through the service's production command (gunicorn,
   uvicorn worker, sandbox mode, v2 token bucket off) over loopback, sequential requests
   after a warm-up request (the history is cached): the SMA crossover on range 10y
   (about 2,500 daily bars, the whole equity curve in the answer) and every strategy on
   the default 1y. Target: p50 under 30 ms.

Times are the best of ``--repeat`` ``timeit`` runs (each about 0.2 s long), per call.
Usage:

    .venv/bin/python bench/backtest.py [--bars 2500] [--repeat 5] [--requests 200]
                                       [--no-http] [--markdown]

backtesting.py is AGPL-3.0 and a dev requirement; only tests and this benchmark import it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import timeit
import warnings
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from backtesting import Backtest, Strategy  # noqa: E402
from backtesting.lib import FractionalBacktest  # noqa: E402
from backtesting.test import SMA  # noqa: E402

from marketdata.backtest.engine import backtest  # noqa: E402
from marketdata.backtest.strategies import (  # noqa: E402
    LONG_ENTRY,
    LONG_EXIT,
    STRATEGIES,
)
from marketdata.backtest.warmup import warm_up  # noqa: E402
from tests.price_series import bokeh_bars  # noqa: E402

TARGET_MS = 5.0
TARGET_RATIO = 10.0
TARGET_HTTP_P50_MS = 30.0
COMMISSION = 0.001
PARAMS = {"commissionPct": COMMISSION, "slippagePct": 0.0}


def best(fn: Callable[[], object], repeat: int) -> float:
    """Seconds per call: best of ``repeat`` runs of an autoranged loop."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    number = max(1, number)
    return min(timer.repeat(repeat=repeat, number=number)) / number


class SmaCross(Strategy):
    """backtesting.py's own example strategy with our crossing rule, long only."""

    fast, slow = 10, 20

    def init(self):
        self.fast_sma = self.I(SMA, self.data.Close, self.fast)
        self.slow_sma = self.I(SMA, self.data.Close, self.slow)

    def next(self):
        f, s = self.fast_sma, self.slow_sma
        if f[-2] <= s[-2] and f[-1] > s[-1]:
            if not self.position:
                self.buy(size=0.999999)
        elif f[-2] >= s[-2] and f[-1] < s[-1] and self.position:
            self.position.close()


class Flags(Strategy):
    """Trades the flags our strategy computed (long only, like our default)."""

    flags = None

    def init(self):
        self.signal = self.I(lambda: self.flags.astype(float), name="flags", plot=False)

    def next(self):
        f = int(self.signal[-1])
        if self.position and f & LONG_EXIT:
            self.position.close()
        elif not self.position and f & LONG_ENTRY:
            self.buy(size=0.999999)


def frame(bars) -> pd.DataFrame:
    index = pd.to_datetime(bars.timestamps, unit="s")
    return pd.DataFrame({"Open": bars.open, "High": bars.high, "Low": bars.low,
                         "Close": bars.close, "Volume": bars.volume}, index=index)


def run_quietly(bt: Backtest, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return bt.run(**kwargs)


def engine_rows(bars, repeat: int) -> list[tuple[str, float, float, int, int]]:
    """(name, ours ms, backtesting.py ms, our trades, its trades)."""
    data = frame(bars)
    rows = []
    ours = best(lambda: backtest(bars, "sma_crossover", PARAMS), repeat)
    bt = Backtest(data, SmaCross, cash=10_000, commission=COMMISSION)
    theirs = best(lambda: run_quietly(bt), repeat)
    fractional = FractionalBacktest(data, SmaCross, cash=10_000, commission=COMMISSION,
                                    fractional_unit=1e-8)
    theirs_fractional = best(lambda: run_quietly(fractional), repeat)
    n_ours = len(backtest(bars, "sma_crossover", PARAMS).trades)
    rows.append(("sma_crossover (its own SMA, Backtest)", ours * 1e3, theirs * 1e3, n_ours,
                 len(run_quietly(bt)._trades)))
    rows.append(("sma_crossover (FractionalBacktest)", ours * 1e3, theirs_fractional * 1e3,
                  n_ours, len(run_quietly(fractional)._trades)))
    for name, cls in STRATEGIES.items():
        flags = cls().plan(bars).flags
        ours = best(lambda name=name: backtest(bars, name, PARAMS), repeat)
        bt = Backtest(data, Flags, cash=10_000, commission=COMMISSION)
        theirs = best(lambda bt=bt, flags=flags: run_quietly(bt, flags=flags), repeat)
        rows.append((f"{name} (same signals)", ours * 1e3, theirs * 1e3,
                     len(backtest(bars, name, PARAMS).trades),
                     len(run_quietly(bt, flags=flags)._trades)))
    return rows


def http_rows(requests: int) -> list[tuple[str, int, float, float, float, int]]:
    """(case, requests, p50, p90, p99 ms, body bytes) through the production server."""
    from tests.integration.servers import http, start_service

    cases = [("sma_crossover, 10y (~2,500 bars), whole curve",
              {"strategy": "sma_crossover", "range": "10y"}, requests)]
    cases += [(f"{name}, 1y", {"strategy": name}, max(20, requests // 4))
              for name in STRATEGIES]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        service = start_service(Path(tmp), {"MARKETDATA_UPSTREAM": "sandbox",
                                            "V2_RATE_LIMIT_CAPACITY": "0",
                                            "LOG_LEVEL": "WARNING"})
        try:
            url = f"{service.base_url}/v2/backtest/AAPL"
            for label, body, count in cases:
                status, _, raw = http("POST", url, body, timeout=120)  # warm: cache, kernels
                assert status == 200, raw[:300]
                times = []
                for _ in range(count):
                    start = time.perf_counter()
                    status, _, raw = http("POST", url, body)
                    times.append((time.perf_counter() - start) * 1e3)
                    assert status == 200
                q = np.percentile(times, [50, 90, 99])
                rows.append((label, count, float(q[0]), float(q[1]), float(q[2]), len(raw)))
        finally:
            service.stop()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bars", type=int, default=2500)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--no-http", action="store_true")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()

    warm_up()
    bars = bokeh_bars("AAPL", args.bars)
    print(f"{len(bars)} daily bars (bokeh-sampledata AAPL), commission {COMMISSION}, "
          "no slippage, long only")
    rows = engine_rows(bars, args.repeat)
    ok = True
    if args.markdown:
        print("\n| run | ours ms | backtesting.py ms | ratio | trades (ours / theirs) |")
        print("|---|---|---|---|---|")
    for name, ours, theirs, n_ours, n_theirs in rows:
        ratio = theirs / ours
        if args.markdown:
            print(f"| {name} | {ours:.3f} | {theirs:.2f} | {ratio:.0f}x | "
                  f"{n_ours} / {n_theirs} |")
        else:
            print(f"{name:45s} ours {ours:8.3f} ms  backtesting.py {theirs:8.2f} ms  "
                  f"{ratio:6.0f}x  trades {n_ours}/{n_theirs}")
    sma = rows[0]
    ok &= sma[1] < TARGET_MS and sma[2] / sma[1] >= TARGET_RATIO
    print(f"\nSMA crossover: {sma[1]:.3f} ms (target < {TARGET_MS} ms), "
          f"{sma[2] / sma[1]:.0f}x backtesting.py (target >= {TARGET_RATIO:.0f}x)")

    if not args.no_http:
        http_result = http_rows(args.requests)
        if args.markdown:
            print("\n| POST /v2/backtest/AAPL | requests | p50 ms | p90 ms | p99 ms | body |")
            print("|---|---|---|---|---|---|")
        for label, count, p50, p90, p99, size in http_result:
            if args.markdown:
                print(f"| {label} | {count} | {p50:.1f} | {p90:.1f} | {p99:.1f} | "
                      f"{size:,} B |")
            else:
                print(f"{label:48s} n={count:4d} p50 {p50:6.1f} ms p90 {p90:6.1f} ms "
                      f"p99 {p99:6.1f} ms  {size:,} B")
        worst = max(p50 for _, _, p50, _, _, _ in http_result)
        ok &= worst < TARGET_HTTP_P50_MS
        print(f"\nEndpoint: worst p50 {worst:.1f} ms (target < {TARGET_HTTP_P50_MS:.0f} ms); "
              f"median of p50s {statistics.median(r[2] for r in http_result):.1f} ms")
    print("targets met" if ok else "TARGETS MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
