"""The rows of the simulated datasets: positions per (code, report date), as strings.

Why this way: every number depends only on the code and the report date (sha256-seeded
smooth waves plus a small per-week wobble), so any week can be built on its own, in any
order, the same on every run. The rows keep the identities real COT rows keep, exactly:

- disaggregated: open interest = the five categories' longs + the three spreads = their
  shorts + the three spreads; total reportable long = open interest - non-reportable long
  (short alike);
- legacy: open interest = non-commercial long + spread + commercial long + non-reportable
  long (shorts alike). For a commodity (in both reports) the legacy row regroups the
  disaggregated one: non-commercial = managed money + other reportable, commercial =
  producer/merchant + swap dealers (their spreads counted long and short), so both reports
  agree on open interest and non-reportable positions.

Numbers are Socrata strings (``"19404"``, percents ``"24.6"``); the report date is a
floating timestamp (``2024-08-20T00:00:00.000``). Column names and order follow the real
datasets (the legacy ones are the recorded row's); the columns the service reads are the
real names, the secondary ones (changes, percents, trader counts, concentration) follow
the CFTC's naming and are indicative.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from functools import lru_cache

from marketdata.sandbox.cftc.markets import DISAGGREGATED_ID, EXCHANGES, Market
from marketdata.sandbox.instruments import unit

_EPOCH = date(1986, 1, 14)

# Disaggregated position slots, and their column names per group (same slot order).
D_SLOTS = ("oi", "pm_l", "pm_s", "sd_l", "sd_s", "sd_sp", "mm_l", "mm_s", "mm_sp", "or_l",
           "or_s", "or_sp", "tr_l", "tr_s", "nr_l", "nr_s")
D_POSITIONS = (
    "open_interest_all", "prod_merc_positions_long", "prod_merc_positions_short",
    "swap_positions_long_all", "swap__positions_short_all", "swap__positions_spread_all",
    "m_money_positions_long_all", "m_money_positions_short_all", "m_money_positions_spread",
    "other_rept_positions_long", "other_rept_positions_short", "other_rept_positions_spread",
    "tot_rept_positions_long_all", "tot_rept_positions_short", "nonrept_positions_long_all",
    "nonrept_positions_short_all")
D_CHANGES = (
    "change_in_open_interest_all", "change_in_prod_merc_long", "change_in_prod_merc_short",
    "change_in_swap_long_all", "change_in_swap_short_all", "change_in_swap_spread_all",
    "change_in_m_money_long_all", "change_in_m_money_short_all", "change_in_m_money_spread",
    "change_in_other_rept_long", "change_in_other_rept_short", "change_in_other_rept_spread",
    "change_in_tot_rept_long_all", "change_in_tot_rept_short", "change_in_nonrept_long_all",
    "change_in_nonrept_short_all")
D_PERCENTS = (
    "pct_of_open_interest_all", "pct_of_oi_prod_merc_long", "pct_of_oi_prod_merc_short",
    "pct_of_oi_swap_long_all", "pct_of_oi_swap_short_all", "pct_of_oi_swap_spread_all",
    "pct_of_oi_m_money_long_all", "pct_of_oi_m_money_short_all", "pct_of_oi_m_money_spread",
    "pct_of_oi_other_rept_long", "pct_of_oi_other_rept_short", "pct_of_oi_other_rept_spread",
    "pct_of_oi_tot_rept_long_all", "pct_of_oi_tot_rept_short", "pct_of_oi_nonrept_long_all",
    "pct_of_oi_nonrept_short_all")
D_TRADERS = (
    "traders_tot_all", "traders_prod_merc_long_all", "traders_prod_merc_short_all",
    "traders_swap_long_all", "traders_swap_short_all", "traders_swap_spread_all",
    "traders_m_money_long_all", "traders_m_money_short_all", "traders_m_money_spread_all",
    "traders_other_rept_long_all", "traders_other_rept_short", "traders_other_rept_spread",
    "traders_tot_rept_long_all", "traders_tot_rept_short_all")

# Legacy slots; positions, changes and percents come in three crop-year groups (all, old,
# other) with the CFTC's own spellings (``postions``, ``spead``, ``_1``/``_2`` suffixes).
L_SLOTS = ("oi", "nc_l", "nc_s", "nc_sp", "c_l", "c_s", "tr_l", "tr_s", "nr_l", "nr_s")
L_POSITIONS = (
    ("open_interest_all", "noncomm_positions_long_all", "noncomm_positions_short_all",
     "noncomm_postions_spread_all", "comm_positions_long_all", "comm_positions_short_all",
     "tot_rept_positions_long_all", "tot_rept_positions_short", "nonrept_positions_long_all",
     "nonrept_positions_short_all"),
    ("open_interest_old", "noncomm_positions_long_old", "noncomm_positions_short_old",
     "noncomm_positions_spread", "comm_positions_long_old", "comm_positions_short_old",
     "tot_rept_positions_long_old", "tot_rept_positions_short_1", "nonrept_positions_long_old",
     "nonrept_positions_short_old"),
    ("open_interest_other", "noncomm_positions_long_other", "noncomm_positions_short_other",
     "noncomm_positions_spread_1", "comm_positions_long_other", "comm_positions_short_other",
     "tot_rept_positions_long_other", "tot_rept_positions_short_2",
     "nonrept_positions_long_other", "nonrept_positions_short_other"),
)
L_CHANGES = (
    "change_in_open_interest_all", "change_in_noncomm_long_all", "change_in_noncomm_short_all",
    "change_in_noncomm_spead_all", "change_in_comm_long_all", "change_in_comm_short_all",
    "change_in_tot_rept_long_all", "change_in_tot_rept_short", "change_in_nonrept_long_all",
    "change_in_nonrept_short_all")
L_PERCENTS = (
    ("pct_of_open_interest_all", "pct_of_oi_noncomm_long_all", "pct_of_oi_noncomm_short_all",
     "pct_of_oi_noncomm_spread", "pct_of_oi_comm_long_all", "pct_of_oi_comm_short_all",
     "pct_of_oi_tot_rept_long_all", "pct_of_oi_tot_rept_short", "pct_of_oi_nonrept_long_all",
     "pct_of_oi_nonrept_short_all"),
    ("pct_of_open_interest_old", "pct_of_oi_noncomm_long_old", "pct_of_oi_noncomm_short_old",
     "pct_of_oi_noncomm_spread_1", "pct_of_oi_comm_long_old", "pct_of_oi_comm_short_old",
     "pct_of_oi_tot_rept_long_old", "pct_of_oi_tot_rept_short_1",
     "pct_of_oi_nonrept_long_old", "pct_of_oi_nonrept_short_old"),
    ("pct_of_open_interest_other", "pct_of_oi_noncomm_long_other",
     "pct_of_oi_noncomm_short_other", "pct_of_oi_noncomm_spread_2",
     "pct_of_oi_comm_long_other", "pct_of_oi_comm_short_other",
     "pct_of_oi_tot_rept_long_other", "pct_of_oi_tot_rept_short_2",
     "pct_of_oi_nonrept_long_other", "pct_of_oi_nonrept_short_other"),
)
L_TRADERS = (
    ("traders_tot_all", "traders_noncomm_long_all", "traders_noncomm_short_all",
     "traders_noncomm_spread_all", "traders_comm_long_all", "traders_comm_short_all",
     "traders_tot_rept_long_all", "traders_tot_rept_short_all"),
    ("traders_tot_old", "traders_noncomm_long_old", "traders_noncomm_short_old",
     "traders_noncomm_spead_old", "traders_comm_long_old", "traders_comm_short_old",
     "traders_tot_rept_long_old", "traders_tot_rept_short_old"),
    ("traders_tot_other", "traders_noncomm_long_other", "traders_noncomm_short_other",
     "traders_noncomm_spread_other", "traders_comm_long_other", "traders_comm_short_other",
     "traders_tot_rept_long_other", "traders_tot_rept_short_other"),
)
L_CONCENTRATION = (
    ("conc_gross_le_4_tdr_long", "conc_gross_le_4_tdr_short", "conc_gross_le_8_tdr_long",
     "conc_gross_le_8_tdr_short", "conc_net_le_4_tdr_long_all", "conc_net_le_4_tdr_short_all",
     "conc_net_le_8_tdr_long_all", "conc_net_le_8_tdr_short_all"),
    ("conc_gross_le_4_tdr_long_1", "conc_gross_le_4_tdr_short_1", "conc_gross_le_8_tdr_long_1",
     "conc_gross_le_8_tdr_short_1", "conc_net_le_4_tdr_long_old", "conc_net_le_4_tdr_short_old",
     "conc_net_le_8_tdr_long_old", "conc_net_le_8_tdr_short_old"),
    ("conc_gross_le_4_tdr_long_2", "conc_gross_le_4_tdr_short_2", "conc_gross_le_8_tdr_long_2",
     "conc_gross_le_8_tdr_short_2", "conc_net_le_4_tdr_long_other",
     "conc_net_le_4_tdr_short_other", "conc_net_le_8_tdr_long_other",
     "conc_net_le_8_tdr_short_other"),
)


# -- numbers ---------------------------------------------------------------------------------
def _wave(code: str, tag: str, week: int, period: float) -> float:
    """A smooth per-code wave in [-1, 1] (phase from the code's hash)."""
    phase = unit("cftc-phase", code, tag) * 2 * math.pi
    return math.sin(2 * math.pi * week / period + phase)


def _weight(code: str, tag: str, week: int, low: float, high: float) -> float:
    """A positive share between ``low`` and ``high`` that drifts over the months."""
    base = low + (high - low) * unit("cftc-share", code, tag)
    return base * (1 + 0.35 * _wave(code, tag, week, 40 + 30 * unit("cftc-period", code, tag)))


def _split(total: int, weights: list[float]) -> list[int]:
    """``total`` split by ``weights`` into integers that add up to it exactly (largest
    remainder)."""
    scale = sum(weights)
    raw = [total * w / scale for w in weights]
    parts = [math.floor(r) for r in raw]
    by_remainder = sorted(range(len(raw)), key=lambda i: raw[i] - parts[i], reverse=True)
    for i in by_remainder[:total - sum(parts)]:
        parts[i] += 1
    return parts


def _open_interest(code: str, week: int) -> int:
    """Open interest: a per-code level (5k..2M contracts, log-uniform) times slow waves and
    a small weekly wobble."""
    level = math.exp(math.log(5e3) + unit("cftc-oi", code) * (math.log(2e6) - math.log(5e3)))
    factor = (1 + 0.25 * _wave(code, "oi-slow", week, 156) + 0.08 * _wave(code, "oi-q", week, 13)
              + 0.03 * (unit("cftc-wobble", code, week) - 0.5))
    return max(200, round(level * factor))


def _week(day: date) -> int:
    return (day - _EPOCH).days // 7


# ~1.1 KiB an entry; a request builds every report of its market (~2,000 weeks), so
# 16,384 hold the hot markets in ~18 MiB (65,536 held up to ~70 MiB).
@lru_cache(maxsize=16384)
def disaggregated_positions(code: str, day: date) -> dict[str, int]:
    """The 16 disaggregated position numbers of one report (slot names of ``D_SLOTS``)."""
    week = _week(day)
    oi = _open_interest(code, week)
    spreads = [round(oi * _weight(code, tag, week, lo, hi)) for tag, lo, hi in
               (("sd_sp", 0.01, 0.07), ("mm_sp", 0.02, 0.12), ("or_sp", 0.01, 0.06))]
    directional = oi - sum(spreads)
    cats = (("pm", 0.10, 0.35), ("sd", 0.05, 0.30), ("mm", 0.10, 0.30), ("or", 0.05, 0.20),
            ("nr", 0.04, 0.15))
    longs = _split(directional, [_weight(code, c + "_l", week, lo, hi) for c, lo, hi in cats])
    shorts = _split(directional, [_weight(code, c + "_s", week, lo, hi) for c, lo, hi in cats])
    pm_l, sd_l, mm_l, or_l, nr_l = longs
    pm_s, sd_s, mm_s, or_s, nr_s = shorts
    sd_sp, mm_sp, or_sp = spreads
    return {"oi": oi, "pm_l": pm_l, "pm_s": pm_s, "sd_l": sd_l, "sd_s": sd_s, "sd_sp": sd_sp,
            "mm_l": mm_l, "mm_s": mm_s, "mm_sp": mm_sp, "or_l": or_l, "or_s": or_s,
            "or_sp": or_sp, "tr_l": oi - nr_l, "tr_s": oi - nr_s, "nr_l": nr_l, "nr_s": nr_s}


# ~1.8 KiB an entry: 16,384 are ~29 MiB (65,536 were up to ~115 MiB).
@lru_cache(maxsize=16384)
def legacy_positions(code: str, day: date, commodity: bool) -> dict[str, int]:
    """The 10 legacy position numbers (``L_SLOTS``): regrouped from the disaggregated row
    for a commodity, drawn on their own for a financial future."""
    if commodity:
        d = disaggregated_positions(code, day)
        out = {"oi": d["oi"], "nc_l": d["mm_l"] + d["or_l"], "nc_s": d["mm_s"] + d["or_s"],
               "nc_sp": d["mm_sp"] + d["or_sp"], "c_l": d["pm_l"] + d["sd_l"] + d["sd_sp"],
               "c_s": d["pm_s"] + d["sd_s"] + d["sd_sp"], "nr_l": d["nr_l"], "nr_s": d["nr_s"]}
    else:
        week = _week(day)
        oi = _open_interest(code, week)
        spread = round(oi * _weight(code, "nc_sp", week, 0.01, 0.15))
        cats = (("nc", 0.15, 0.45), ("c", 0.25, 0.60), ("nr", 0.05, 0.25))
        nc_l, c_l, nr_l = _split(oi - spread, [_weight(code, c + "_l", week, lo, hi)
                                                for c, lo, hi in cats])
        nc_s, c_s, nr_s = _split(oi - spread, [_weight(code, c + "_s", week, lo, hi)
                                                for c, lo, hi in cats])
        out = {"oi": oi, "nc_l": nc_l, "nc_s": nc_s, "nc_sp": spread, "c_l": c_l, "c_s": c_s,
               "nr_l": nr_l, "nr_s": nr_s}
    out["tr_l"], out["tr_s"] = out["oi"] - out["nr_l"], out["oi"] - out["nr_s"]
    return {slot: out[slot] for slot in L_SLOTS}


# -- rows ------------------------------------------------------------------------------------
def _pct(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f}" if whole else "0.0"


def _traders(code: str, day: date, n: int, oi: int) -> list[int]:
    """Trader counts: a total that grows with open interest, and per-category counts."""
    total = 8 + round(oi ** 0.35 * (0.8 + 0.4 * unit("cftc-traders", code, day)))
    return [total] + [max(1, round(total * (0.05 + 0.4 * unit("cftc-traders", code, day, i))))
                      for i in range(1, n)]


def _identity(found: Market, day: date) -> dict[str, str]:
    market_code, region = EXCHANGES[found.exchange]
    week = day.isocalendar().week
    return {
        "id": f"{day:%y%m%d}{found.code}F",
        "market_and_exchange_names": found.market_and_exchange_names,
        "report_date_as_yyyy_mm_dd": f"{day.isoformat()}T00:00:00.000",
        "yyyy_report_week_ww": f"{day.year} Report Week {week}",
        "contract_market_name": found.contract_market_name,
        "cftc_contract_market_code": found.code,
        "cftc_market_code": f"{market_code:<4}",
        "cftc_region_code": region,
        "cftc_commodity_code": f"{found.code[:3]} ",
        "commodity_name": found.subgroup if found.commodity else found.contract_market_name,
    }


def _tail(found: Market) -> dict[str, str]:
    return {"contract_units": found.units, "commodity": found.contract_market_name,
            "commodity_subgroup_name": found.subgroup, "commodity_group_name": found.group,
            "futonly_or_combined": "FutOnly"}


def disaggregated_row(found: Market, day: date) -> dict[str, str]:
    """One row of the disaggregated futures-only dataset (72hh-3qpy)."""
    now = disaggregated_positions(found.code, day)
    before = disaggregated_positions(found.code, day - timedelta(weeks=1))
    row = _identity(found, day)
    row.update({name: str(now[slot]) for name, slot in zip(D_POSITIONS, D_SLOTS, strict=True)})
    row.update({name: str(now[slot] - before[slot])
                for name, slot in zip(D_CHANGES, D_SLOTS, strict=True)})
    row.update({name: _pct(now[slot], now["oi"])
                for name, slot in zip(D_PERCENTS, D_SLOTS, strict=True)})
    counts = _traders(found.code, day, len(D_TRADERS), now["oi"])
    row.update({name: str(n) for name, n in zip(D_TRADERS, counts, strict=True)})
    row.update(_tail(found))
    return row


def legacy_row(found: Market, day: date) -> dict[str, str]:
    """One row of the legacy futures-only dataset (6dca-aqww), with the recorded row's
    columns: the ``old`` crop year equals ``all`` and ``other`` is zero (as for any
    contract without crop years)."""
    now = legacy_positions(found.code, day, found.commodity)
    before = legacy_positions(found.code, day - timedelta(weeks=1), found.commodity)
    zero = dict.fromkeys(L_SLOTS, 0)
    row = _identity(found, day)
    for names, values in zip(L_POSITIONS, (now, now, zero), strict=True):
        row.update({name: str(values[slot]) for name, slot in zip(names, L_SLOTS, strict=True)})
    row.update({name: str(now[slot] - before[slot])
                for name, slot in zip(L_CHANGES, L_SLOTS, strict=True)})
    for names, values in zip(L_PERCENTS, (now, now, zero), strict=True):
        row.update({name: _pct(values[slot], values["oi"])
                    for name, slot in zip(names, L_SLOTS, strict=True)})
    counts = _traders(found.code, day, 8, now["oi"])
    for trader_names, trader_counts in zip(L_TRADERS, (counts, counts, [0] * 8), strict=True):
        row.update({name: str(n) for name, n in zip(trader_names, trader_counts, strict=True)})
    shares = sorted(round(10 + 60 * unit("cftc-conc", found.code, day, i), 1)
                     for i in range(8))
    gross = [shares[i] for i in (2, 3, 6, 7)]
    net = [shares[i] for i in (0, 1, 4, 5)]
    concentration = gross + net
    for share_names, share_values in zip(L_CONCENTRATION,
                                         (concentration, concentration, [0.0] * 8), strict=True):
        row.update({name: f"{v:.1f}" for name, v in zip(share_names, share_values, strict=True)})
    row.update(_tail(found))
    return row


def row_for(found: Market, dataset: str, day: date) -> dict[str, str]:
    return disaggregated_row(found, day) if dataset == DISAGGREGATED_ID else legacy_row(found, day)
