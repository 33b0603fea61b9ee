"""The bar loop, compiled with numba (cached in ``__pycache__`` like the indicator kernels).

Everything that can be computed for all bars at once (indicators, signal conditions,
drawdowns, metrics) is vectorised elsewhere; what is left is inherently sequential: cash,
position, fills, stops and margin calls depend on the previous bar. Written in Python this
loop costs milliseconds per 2,500 bars; compiled it costs microseconds.

The semantics are documented (and tested bar by bar) in README.md; in short, per bar ``i``:

1. a dividend going ex on bar ``i`` is credited (or, short, debited) to the position held
   over the previous close;
2. orders decided at the previous close fill at this bar's open: the exit first, then the
   entry (a reversal), sized from the cash after the exit;
3. the stop-loss, then the take-profit, is checked against this bar's low/high (from the
   entry price; filled at the level, or at the open when the bar opens beyond it);
4. financing accrues at the close: interest on borrowed cash, the borrow fee on a short;
5. equity is marked at the close; a position whose equity is at or below zero, or below
   the maintenance margin, is force-closed at that close;
6. the strategy's flags for the position now held become signals (recorded; pending for
   the next open unless this is the last bar);
7. on the last bar a position still open is closed at the close.

Every fill moves the price by the slippage against the trader and pays the commission on
its value.
"""

from __future__ import annotations

import numba
import numpy as np

# Flag bits (as marketdata.backtest.strategies packs them).
LONG_ENTRY, LONG_EXIT, SHORT_ENTRY, SHORT_EXIT = 1, 2, 4, 8
# Signal kinds.
LONG, SHORT, EXIT_LONG, EXIT_SHORT = 0, 1, 2, 3
# Signal outcomes.
EXECUTED, LAST_BAR, SHORTS_DISABLED, NO_CASH, PENDING = 0, 1, 2, 3, 4
# How a trade ended.
EXIT_SIGNAL, EXIT_STOP, EXIT_TAKE, EXIT_MARGIN, EXIT_END = 0, 1, 2, 3, 4
# Leverage reported for a position held with no equity left.
LEVERAGE_CAP = 1e6

_jit = numba.njit(cache=True, nogil=True)


@_jit
def simulate(open_, high, low, close, dividend, flags, capital, commission, slippage,
             size_pct, leverage, stop_pct, take_pct, maintenance, margin_rate, borrow_rate,
             allow_short):
    """Run the bar loop. Rates are per bar (annual / bars per year); a stop or take-profit
    of 0 is none. Returns the equity at each close, whether a position was held at each
    close, the maximum leverage seen, and the trades and signals as parallel arrays (the
    first ``n_trades`` / ``n_signals`` rows)."""
    n = close.size
    equity = np.empty(n)
    held = np.zeros(n, dtype=np.bool_)

    # At most one entry per bar (entries fill only at an open).
    t_side = np.zeros(n, dtype=np.int8)
    t_entry_bar = np.zeros(n, dtype=np.int64)
    t_exit_bar = np.zeros(n, dtype=np.int64)
    t_entry_price = np.zeros(n)
    t_exit_price = np.zeros(n)
    t_quantity = np.zeros(n)
    t_commission = np.zeros(n)
    t_dividends = np.zeros(n)
    t_financing = np.zeros(n)
    t_entry_signal = np.full(n, -1, dtype=np.int64)
    t_exit_signal = np.full(n, -1, dtype=np.int64)
    t_exit_kind = np.zeros(n, dtype=np.int8)
    # At most two signals per bar (an exit and the reversing entry).
    s_bar = np.zeros(2 * n, dtype=np.int64)
    s_kind = np.zeros(2 * n, dtype=np.int8)
    s_status = np.zeros(2 * n, dtype=np.int8)

    n_trades = 0
    n_signals = 0
    cash = capital
    qty = 0.0  # signed: > 0 long, < 0 short
    trade = -1
    pending_exit = -1  # signal index of an exit to fill at the next open
    pending_entry = -1  # signal index of an entry to fill at the next open
    pending_side = 0
    max_leverage = 0.0

    for i in range(n):
        o = open_[i]
        c = close[i]

        # 1. dividends, to the position held over the previous close
        if qty != 0.0 and dividend[i] != 0.0:
            income = qty * dividend[i]
            cash += income
            t_dividends[trade] += income

        # 2. orders decided at the previous close, at this open
        if pending_exit >= 0:
            side = 1.0 if qty > 0.0 else -1.0
            fill = o * (1.0 - side * slippage)
            fee = abs(qty) * fill * commission
            cash += qty * fill - fee
            t_commission[trade] += fee
            t_exit_bar[trade] = i
            t_exit_price[trade] = fill
            t_exit_signal[trade] = pending_exit
            t_exit_kind[trade] = EXIT_SIGNAL
            s_status[pending_exit] = EXECUTED
            qty = 0.0
            pending_exit = -1
        if pending_entry >= 0:
            side = float(pending_side)
            fill = o * (1.0 + side * slippage)
            if cash > 0.0 and fill > 0.0:
                size = cash * size_pct * leverage / (fill * (1.0 + commission))
                fee = size * fill * commission
                cash -= side * size * fill + fee
                if abs(cash) < 1e-12 * capital:
                    cash = 0.0  # all-in: a rounding residue is not a loan
                qty = side * size
                trade = n_trades
                n_trades += 1
                t_side[trade] = pending_side
                t_entry_bar[trade] = i
                t_entry_price[trade] = fill
                t_quantity[trade] = size
                t_commission[trade] = fee
                t_entry_signal[trade] = pending_entry
                s_status[pending_entry] = EXECUTED
            else:
                s_status[pending_entry] = NO_CASH
            pending_entry = -1

        # 3. stop-loss before take-profit, intrabar
        if qty != 0.0 and (stop_pct > 0.0 or take_pct > 0.0):
            entry = t_entry_price[trade]
            level = 0.0
            kind = -1
            if qty > 0.0:
                stop = entry * (1.0 - stop_pct)
                take = entry * (1.0 + take_pct)
                if stop_pct > 0.0 and low[i] <= stop:
                    level, kind = min(o, stop), EXIT_STOP
                elif take_pct > 0.0 and high[i] >= take:
                    level, kind = max(o, take), EXIT_TAKE
            else:
                stop = entry * (1.0 + stop_pct)
                take = entry * (1.0 - take_pct)
                if stop_pct > 0.0 and high[i] >= stop:
                    level, kind = max(o, stop), EXIT_STOP
                elif take_pct > 0.0 and low[i] <= take:
                    level, kind = min(o, take), EXIT_TAKE
            if kind >= 0:
                side = 1.0 if qty > 0.0 else -1.0
                fill = level * (1.0 - side * slippage)
                fee = abs(qty) * fill * commission
                cash += qty * fill - fee
                t_commission[trade] += fee
                t_exit_bar[trade] = i
                t_exit_price[trade] = fill
                t_exit_kind[trade] = kind
                qty = 0.0

        # 4. financing at the close
        if qty != 0.0:
            if cash < 0.0 and margin_rate > 0.0:
                cost = -cash * margin_rate
                cash -= cost
                t_financing[trade] += cost
            if qty < 0.0 and borrow_rate > 0.0:
                cost = -qty * c * borrow_rate
                cash -= cost
                t_financing[trade] += cost

        # 5. mark to the close; margin call
        value = cash + qty * c
        if qty != 0.0:
            held[i] = True
            notional = abs(qty) * c
            used = notional / value if value > 0.0 else LEVERAGE_CAP
            if used > max_leverage:
                max_leverage = used
            if value <= 0.0 or value < maintenance * notional:
                side = 1.0 if qty > 0.0 else -1.0
                fill = c * (1.0 - side * slippage)
                fee = abs(qty) * fill * commission
                cash += qty * fill - fee
                t_commission[trade] += fee
                t_exit_bar[trade] = i
                t_exit_price[trade] = fill
                t_exit_kind[trade] = EXIT_MARGIN
                qty = 0.0
                value = cash

        # 6. the strategy's decision at this close
        f = flags[i]
        last = i == n - 1
        if f != 0:
            if qty > 0.0:
                if f & LONG_EXIT:
                    s_bar[n_signals] = i
                    s_kind[n_signals] = EXIT_LONG
                    s_status[n_signals] = LAST_BAR if last else PENDING
                    if not last:
                        pending_exit = n_signals
                    n_signals += 1
                    if allow_short and f & SHORT_ENTRY:
                        s_bar[n_signals] = i
                        s_kind[n_signals] = SHORT
                        s_status[n_signals] = LAST_BAR if last else PENDING
                        if not last:
                            pending_entry = n_signals
                            pending_side = -1
                        n_signals += 1
            elif qty < 0.0:
                if f & SHORT_EXIT:
                    s_bar[n_signals] = i
                    s_kind[n_signals] = EXIT_SHORT
                    s_status[n_signals] = LAST_BAR if last else PENDING
                    if not last:
                        pending_exit = n_signals
                    n_signals += 1
                    if f & LONG_ENTRY:
                        s_bar[n_signals] = i
                        s_kind[n_signals] = LONG
                        s_status[n_signals] = LAST_BAR if last else PENDING
                        if not last:
                            pending_entry = n_signals
                            pending_side = 1
                        n_signals += 1
            elif f & LONG_ENTRY:
                s_bar[n_signals] = i
                s_kind[n_signals] = LONG
                s_status[n_signals] = LAST_BAR if last else PENDING
                if not last:
                    pending_entry = n_signals
                    pending_side = 1
                n_signals += 1
            elif f & SHORT_ENTRY:
                s_bar[n_signals] = i
                s_kind[n_signals] = SHORT
                if not allow_short:
                    s_status[n_signals] = SHORTS_DISABLED
                elif last:
                    s_status[n_signals] = LAST_BAR
                else:
                    s_status[n_signals] = PENDING
                    pending_entry = n_signals
                    pending_side = -1
                n_signals += 1

        # 7. the end of the data closes what is still open
        if last and qty != 0.0:
            side = 1.0 if qty > 0.0 else -1.0
            fill = c * (1.0 - side * slippage)
            fee = abs(qty) * fill * commission
            cash += qty * fill - fee
            t_commission[trade] += fee
            t_exit_bar[trade] = i
            t_exit_price[trade] = fill
            t_exit_kind[trade] = EXIT_END
            qty = 0.0
            value = cash

        equity[i] = value

    return (equity, held, max_leverage, n_trades, t_side, t_entry_bar, t_exit_bar,
            t_entry_price, t_exit_price, t_quantity, t_commission, t_dividends, t_financing,
            t_entry_signal, t_exit_signal, t_exit_kind, n_signals, s_bar, s_kind, s_status)
