"""The 73-index map (identifiers, order, symbols, regions, names), the selection rules and
the quoteSummary parsing for one index."""

from __future__ import annotations

import pytest

from marketdata.providers.yahoo.indices import (
    BY_ID,
    INDEX_IDS,
    INDEX_MODULES,
    INDICES,
    REGIONS,
    IndexSnapshot,
    parse_index,
    select_indices,
)

# The spec's list, in its order (shared/spec/v1-interface.md, "Indices").
SPEC_IDS = (
    "snp, djia, nasdaq, nyse-composite, nyse-amex, rut, vix, tsx-composite, ibovespa, "
    "ipc-mexico, ipsa, merval, ivbx, ibrx-50, ftse-100, dax, cac-40, euro-stoxx-50, "
    "euronext-100, bel-20, moex, aex, ibex-35, ftse-mib, smi, psi, atx, omxs30, omxc25, wig20, "
    "budapest-se, moex-russia, rtsi, hang-seng, sti, sensex, idx-composite, ftse-bursa, kospi, "
    "twse, nikkei-225, shanghai, szse-component, set, nifty-50, nifty-200, psei-composite, "
    "china-a50, dj-shanghai, india-vix, egx-30, jse-40, ftse-jse, afr-40, raf-40, sa-40, "
    "alt-15, ta-125, ta-35, tadawul-all-share, tamayuz, bist-100, asx-200, all-ordinaries, "
    "nzx-50, usd, msci-europe, gbp, euro, yen, australian, msci-world, cboe-uk-100"
).split(", ")


def test_seventy_three_identifiers_in_the_spec_order():
    assert len(INDICES) == 73
    assert list(INDEX_IDS) == SPEC_IDS
    assert len({i.symbol for i in INDICES}) == 73


@pytest.mark.parametrize(("index", "symbol"), [
    ("snp", "^GSPC"), ("djia", "^DJI"), ("nasdaq", "^IXIC"), ("tsx-composite", "^GSPTSE"),
    ("dax", "^GDAXI"), ("moex", "MOEX.ME"), ("ftse-mib", "FTSEMIB.MI"),
    ("budapest-se", "^BUX.BD"), ("shanghai", "000001.SS"), ("set", "^SET.BK"),
    ("jse-40", "^JN0U.JO"), ("bist-100", "XU100.IS"), ("usd", "DX-Y.NYB"),
    ("msci-europe", "^125904-USD-STRD"), ("msci-world", "^990100-USD-STRD"),
    ("cboe-uk-100", "^BUK100P"),
])
def test_symbols(index, symbol):
    assert BY_ID[index].symbol == symbol


def test_regions():
    counts = {r: sum(1 for i in INDICES if i.region == r) for r in REGIONS}
    assert counts == {"US": 7, "NA": 1, "SA": 6, "EU": 19, "AS": 17, "AF": 7, "ME": 5,
                      "OCE": 3, "global": 8}
    assert BY_ID["snp"].region == "US"
    assert BY_ID["moex-russia"].region == "EU"
    assert BY_ID["bist-100"].region == "ME"
    assert BY_ID["msci-world"].region == "global"


def test_display_name_overrides():
    names = {i.id: i.name for i in INDICES if i.name}
    assert names == {
        "dax": "DAX Performance Index", "euro-stoxx-50": "EURO STOXX 50",
        "nzx-50": "S&P/NZX 50 Index", "set": "Thailand SET Index",
        "jse-40": "FTSE JSE Top 40- USD Net TRI", "sa-40": "South Africa Top 40",
    }


# -- selection ------------------------------------------------------------------------------
def _ids(selected):
    return [i.id for i in selected]


def test_no_selection_is_all_in_order():
    assert _ids(select_indices()) == SPEC_IDS


def test_selection_keeps_contract_order_whatever_the_request_order():
    assert _ids(select_indices(["nzx-50", "dax", "snp"])) == ["snp", "dax", "nzx-50"]


def test_union_of_indices_and_region():
    assert _ids(select_indices(["snp", "dax"], "OCE")) == [
        "snp", "dax", "asx-200", "all-ordinaries", "nzx-50"]
    # an index already in the region appears once
    assert _ids(select_indices(["asx-200"], "OCE")) == ["asx-200", "all-ordinaries", "nzx-50"]


def test_north_america_includes_the_us():
    assert _ids(select_indices(region="NA")) == [
        "snp", "djia", "nasdaq", "nyse-composite", "nyse-amex", "rut", "vix", "tsx-composite"]
    assert _ids(select_indices(region="US")) == SPEC_IDS[:7]


def test_global_region():
    assert _ids(select_indices(region="global")) == SPEC_IDS[-8:]


# -- parsing ----------------------------------------------------------------------------------
def test_modules_requested():
    assert INDEX_MODULES == ("price", "quoteUnadjustedPerformanceOverview")


def test_parse_price_module_recording(recording):
    """A real price module (formatted=false); index bodies have the same shape."""
    modules = recording("yahoo/v10-quoteSummary/price/EURUSD_X.json")["quoteSummary"][
        "result"][0]
    snap = parse_index("EURUSD=X", modules)
    assert snap == IndexSnapshot(symbol="EURUSD=X", long_name="EUR/USD", short_name="EUR/USD",
                                 price=1.0477787, change=0.0015347004,
                                 change_fraction=0.0014668838, price_hint=4, returns={})


def test_parse_formatted_values_and_returns():
    modules = {
        "price": {"symbol": "^GSPC", "shortName": "S&P 500", "longName": None,
                  "priceHint": {"raw": 2, "fmt": "2"},
                  "regularMarketPrice": {"raw": 6506.48, "fmt": "6,506.48"},
                  "regularMarketChange": {"raw": -100.010254, "fmt": "-100.01"},
                  "regularMarketChangePercent": {"raw": -0.015138183, "fmt": "-1.51%"}},
        "quoteUnadjustedPerformanceOverview": {"maxAge": 1, "performanceOverview": {
            "asOfDate": {"raw": 1774040720, "fmt": "2026-03-20"},
            "fiveDaysReturn": {"raw": 0.0123, "fmt": "1.23%"},
            "ytdReturnPct": {"raw": -0.05, "fmt": "-5.00%"},
            "oneYearTotalReturn": 0.1,
            "tenYearTotalReturn": {},
            "maxReturn": None}},
    }
    snap = parse_index("^GSPC", modules)
    assert snap.long_name is None and snap.short_name == "S&P 500"
    assert (snap.price, snap.change, snap.change_fraction, snap.price_hint) == (
        6506.48, -100.010254, -0.015138183, 2)
    assert snap.returns == {"fiveDaysReturn": 0.0123, "ytdReturn": -0.05, "yearReturn": 0.1}


def test_parse_missing_modules():
    snap = parse_index("^XYZ", {})
    assert snap.symbol == "^XYZ"
    assert snap.price is None and snap.returns == {} and snap.price_hint == 2
