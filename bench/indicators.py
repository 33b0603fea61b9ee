"""Indicator computation benchmark: ours vs TA-Lib's C, side by side, in one run.

On 2,500 daily bars (bokeh-sampledata AAPL, the last 2,500 sessions) it times:

1. each of the 15 v1 functions with its default parameters, and TA-Lib computing the same
   thing where TA-Lib defines it (ratio = ours / TA-Lib; target: no ratio above 20);
2. each v2-only indicator TA-Lib also defines, likewise;
3. the whole v2 indicator set for one symbol (target: under 10 ms), next to TA-Lib
   computing the subset of it that TA-Lib supports;
4. all 15 v1 functions together, next to TA-Lib's subset.

Times are the best of ``--repeat`` ``timeit`` runs (each long enough to last about 0.2 s),
per call. Usage:

    .venv/bin/python bench/indicators.py [--bars 2500] [--repeat 7] [--markdown]

Needs the dev requirements (TA-Lib, bokeh-sampledata). numba kernels are compiled (or
loaded from their cache) before timing starts.
"""

from __future__ import annotations

import argparse
import os
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import talib  # noqa: E402

from marketdata.indicators import core, extra  # noqa: E402
from marketdata.indicators.functions import FUNCTIONS  # noqa: E402
from marketdata.indicators.indicator_set import indicator_set  # noqa: E402
from tests.price_series import bokeh_bars  # noqa: E402

TARGET_RATIO = 20.0
TARGET_SET_MS = 10.0


def best(fn: Callable[[], object], repeat: int) -> float:
    """Seconds per call: best of ``repeat`` runs of an autoranged loop."""
    timer = timeit.Timer(fn)
    number, _ = timer.autorange()
    number = max(1, number)
    return min(timer.repeat(repeat=repeat, number=number)) / number


def v1_pairs(b) -> dict[str, tuple[Callable, Callable | None]]:
    h, lo, c, v = b.high, b.low, b.close, b.volume

    def ours(name: str) -> Callable:
        function = FUNCTIONS[name]
        defaults = function.defaults()
        return lambda: function.compute(b, **defaults)

    def macd_talib():
        line = talib.EMA(c, 12) - talib.EMA(c, 26)
        return line, talib.EMA(line[25:], 9)

    def ichimoku_talib():
        tenkan = (talib.MAX(h, 9) + talib.MIN(lo, 9)) / 2
        kijun = (talib.MAX(h, 26) + talib.MIN(lo, 26)) / 2
        span_b = (talib.MAX(h, 52) + talib.MIN(lo, 52)) / 2
        return tenkan, kijun, (tenkan + kijun) / 2, span_b

    def srsi_talib():
        r = talib.RSI(c, 14)[14:]
        return talib.STOCH(r, r, r, 14, 3, 0, 3, 0)

    return {
        "SMA": (ours("SMA"), lambda: talib.SMA(c, 10)),
        "EMA": (ours("EMA"), lambda: talib.EMA(c, 10)),
        "WMA": (ours("WMA"), lambda: talib.WMA(c, 10)),
        "VWMA": (ours("VWMA"), lambda: talib.VWMA(c, v, 20)),
        "RSI": (ours("RSI"), lambda: talib.RSI(c, 14)),
        "SRSI": (ours("SRSI"), srsi_talib),
        "STOCH": (ours("STOCH"), lambda: talib.STOCH(h, lo, c, 14, 3, 0, 3, 0)),
        "CCI": (ours("CCI"), lambda: talib.CCI(h, lo, c, 20)),
        "OBV": (ours("OBV"), lambda: talib.OBV(c, v)),
        "BBANDS": (ours("BBANDS"), lambda: talib.BBANDS(c, 20, 2, 2)),
        "AROON": (ours("AROON"), lambda: talib.AROON(h, lo, 25)),
        "ADX": (ours("ADX"), lambda: talib.ADX(h, lo, c, 14)),
        "MACD": (ours("MACD"), macd_talib),
        "SUPERTREND": (ours("SUPERTREND"), lambda: talib.SUPERTREND(h, lo, c, 10, 3.0)),
        "ICHIMOKU": (ours("ICHIMOKU"), ichimoku_talib),
    }


def v2_pairs(b) -> dict[str, tuple[Callable, Callable]]:
    o, h, lo, c, v = b.open, b.high, b.low, b.close, b.volume
    return {
        "DEMA(20)": (lambda: extra.dema(c, 20), lambda: talib.DEMA(c, 20)),
        "TEMA(20)": (lambda: extra.tema(c, 20), lambda: talib.TEMA(c, 20)),
        "HMA(20)": (lambda: extra.hma(c, 20), lambda: talib.HMA(c, 20)),
        "Williams %R(14)": (lambda: extra.williams_r(h, lo, c, 14),
                            lambda: talib.WILLR(h, lo, c, 14)),
        "ROC(12)": (lambda: extra.roc(c, 12), lambda: talib.ROC(c, 12)),
        "Momentum(10)": (lambda: extra.momentum(c, 10), lambda: talib.MOM(c, 10)),
        "CMO(14)": (lambda: extra.cmo(c, 14), lambda: talib.CMO(c, 14)),
        "Awesome oscillator": (lambda: extra.awesome_oscillator(h, lo),
                               lambda: talib.AO(h, lo, 5, 34)),
        "Parabolic SAR": (lambda: extra.parabolic_sar(h, lo), lambda: talib.SAR(h, lo)),
        "ATR(14)": (lambda: core.atr(h, lo, c, 14), lambda: talib.ATR(h, lo, c, 14)),
        "True range": (lambda: core.true_range(h, lo, c), lambda: talib.TRANGE(h, lo, c)),
        "Keltner(20,10,2)": (lambda: extra.keltner_channels(h, lo, c, 20, 10, 2.0),
                             lambda: talib.KC(h, lo, c, 20, 10, 2.0)),
        "Donchian(20)": (lambda: extra.donchian_channels(h, lo, 20),
                         lambda: talib.DONCHIAN(h, lo, 20)),
        "MFI(14)": (lambda: extra.money_flow_index(h, lo, c, v, 14),
                    lambda: talib.MFI(h, lo, c, v, 14)),
        "CMF(20)": (lambda: extra.chaikin_money_flow(h, lo, c, v, 20),
                    lambda: talib.CMF(h, lo, c, v, 20)),
        "A/D line": (lambda: extra.accumulation_distribution(h, lo, c, v),
                     lambda: talib.AD(h, lo, c, v)),
        "Chaikin osc.(3,10)": (lambda: extra.chaikin_oscillator(h, lo, c, v),
                               lambda: talib.ADOSC(h, lo, c, v, 3, 10)),
        "VWAP": (lambda: extra.vwap(h, lo, c, v), lambda: talib.VWAP(h, lo, c, v)),
        "Balance of power": (lambda: extra.balance_of_power(o, h, lo, c),
                             lambda: talib.BOP(o, h, lo, c)),
        "Heikin-Ashi": (lambda: extra.heikin_ashi(o, h, lo, c), lambda: talib.HA(o, h, lo, c)),
    }


def talib_v2_subset(b) -> Callable[[], None]:
    """TA-Lib computing every member of the v2 set it supports (same parameters)."""
    o, h, lo, c, v = b.open, b.high, b.low, b.close, b.volume

    def run() -> None:
        for n in (10, 20, 50, 100, 200):
            talib.SMA(c, n), talib.EMA(c, n), talib.WMA(c, n)
        talib.DEMA(c, 20), talib.TEMA(c, 20), talib.HMA(c, 20), talib.VWMA(c, v, 20)
        talib.RSI(c, 14), talib.STOCH(h, lo, c, 14, 3, 0, 3, 0), talib.STOCHRSI(c, 14, 14, 3)
        talib.CCI(h, lo, c, 20), talib.WILLR(h, lo, c, 14), talib.ROC(c, 12)
        talib.MOM(c, 10), talib.CMO(c, 14), talib.AO(h, lo, 5, 34), talib.MACD(c, 12, 26, 9)
        talib.ADX(h, lo, c, 14), talib.AROON(h, lo, 25), talib.SUPERTREND(h, lo, c, 10, 3.0)
        talib.SAR(h, lo), talib.EMA(c, 13), talib.BBANDS(c, 20, 2, 2), talib.ATR(h, lo, c, 14)
        talib.KC(h, lo, c, 20, 10, 2.0), talib.DONCHIAN(h, lo, 20), talib.TRANGE(h, lo, c)
        talib.OBV(c, v), talib.MFI(h, lo, c, v, 14), talib.CMF(h, lo, c, v, 20)
        talib.ADOSC(h, lo, c, v, 3, 10), talib.AD(h, lo, c, v), talib.VWAP(h, lo, c, v)
        talib.BOP(o, h, lo, c), talib.HA(o, h, lo, c)
        talib.MAX(h, 9), talib.MIN(lo, 9), talib.MAX(h, 26), talib.MIN(lo, 26)
        talib.MAX(h, 52), talib.MIN(lo, 52), talib.MAX(h, 50), talib.MIN(lo, 50)

    return run


def row(name: str, ours: float, theirs: float | None, limit: float) -> tuple[str, bool]:
    if theirs is None:
        return f"| {name} | {ours * 1e6:,.1f} | - | - |", True
    ratio = ours / theirs
    ok = ratio <= limit
    flag = "" if ok else " **over target**"
    return f"| {name} | {ours * 1e6:,.1f} | {theirs * 1e6:,.1f} | {ratio:.1f}x{flag} |", ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bars", type=int, default=2500)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()

    bars = bokeh_bars("AAPL", args.bars)
    indicator_set(bars)  # compile or load every numba kernel before timing
    for function in FUNCTIONS.values():
        function.compute(bars, **function.defaults())
    print(f"{len(bars)} daily bars (bokeh-sampledata AAPL), best of {args.repeat}; "
          f"TA-Lib {talib.__version__}\n")

    all_ok = True
    print("| v1 function (defaults) | ours µs | TA-Lib µs | ratio |\n|---|---|---|---|")
    pairs = v1_pairs(bars)
    for name, (ours, theirs) in pairs.items():
        line, ok = row(name, best(ours, args.repeat),
                       best(theirs, args.repeat) if theirs else None, TARGET_RATIO)
        all_ok &= ok
        print(line)

    print("\n| v2 indicator | ours µs | TA-Lib µs | ratio |\n|---|---|---|---|")
    for name, (ours, theirs) in v2_pairs(bars).items():
        line, ok = row(name, best(ours, args.repeat), best(theirs, args.repeat), TARGET_RATIO)
        all_ok &= ok
        print(line)

    print("\n| whole computation | ours ms | TA-Lib ms (its subset) | ratio |\n|---|---|---|---|")
    set_time = best(lambda: indicator_set(bars), args.repeat)
    talib_set = best(talib_v2_subset(bars), args.repeat)
    print(f"| v2 indicator set, one symbol (57 members) | {set_time * 1e3:.2f} | "
          f"{talib_set * 1e3:.3f} | {set_time / talib_set:.1f}x |")

    def all_v1() -> None:
        for ours, _ in pairs.values():
            ours()

    def all_v1_talib() -> None:
        for _, theirs in pairs.values():
            if theirs:
                theirs()

    v1_time, v1_talib = best(all_v1, args.repeat), best(all_v1_talib, args.repeat)
    print(f"| all 15 v1 functions, defaults | {v1_time * 1e3:.2f} | {v1_talib * 1e3:.3f} | "
          f"{v1_time / v1_talib:.1f}x |")
    set_ok = set_time * 1e3 < TARGET_SET_MS
    print(f"\nv2 set under {TARGET_SET_MS:.0f} ms: {'yes' if set_ok else 'NO'}; every "
          f"indicator within {TARGET_RATIO:.0f}x of TA-Lib: {'yes' if all_ok else 'NO'}")
    return 0 if (set_ok and all_ok) else 1


if __name__ == "__main__":
    sys.exit(main())
