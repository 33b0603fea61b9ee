"""Holders parsers on every recording of their quoteSummary modules (values, not only keys),
both number shapes ({raw, fmt} and bare), missing dates kept missing, and the fetch path."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata.errors import NotFound
from marketdata.providers.yahoo import holders as yh
from marketdata.providers.yahoo.quote_summary import parse_quote_summary
from tests.conftest import calls_to

from .helpers import recordings, wrap_numbers
from .test_yahoo_analysis import bare, module_body

QS = "yahoo/v10-quoteSummary"


def utc(*args: int) -> datetime:
    return datetime(*args, tzinfo=UTC)


# -- majorHoldersBreakdown ---------------------------------------------------------------------
@pytest.mark.parametrize(("name", "expected"), [
    ("AAPL.json", {"institutionsPercentHeld": 0.62706, "insidersPercentHeld": 0.02286,
                   "institutionsFloatPercentHeld": 0.64172995, "institutionsCount": 6956}),
    ("OCDO.L.json", {"institutionsPercentHeld": 0.55537, "insidersPercentHeld": 0.29381,
                     "institutionsFloatPercentHeld": 0.78643, "institutionsCount": 134}),
    ("SPOT.json", {"institutionsPercentHeld": 0.67875, "insidersPercentHeld": 0.24486999,
                   "institutionsFloatPercentHeld": 0.89885, "institutionsCount": 1444}),
])
def test_major_holders_recordings(recording, name, expected):
    body = module_body(recording(f"{QS}/majorHoldersBreakdown/{name}"), "majorHoldersBreakdown")
    parsed = yh.parse_major_holders_breakdown(body)
    assert parsed == expected
    assert list(parsed) == list(yh.BREAKDOWN_METRICS)
    assert isinstance(parsed["institutionsCount"], int)
    assert yh.parse_major_holders_breakdown(wrap_numbers(body)) == parsed


def test_major_holders_missing_and_extra_metrics():
    parsed = yh.parse_major_holders_breakdown(
        {"maxAge": 1, "insidersPercentHeld": {}, "institutionsCount": {"raw": 12, "fmt": "12"},
         "retailPercentHeld": 0.1, "note": "text"})
    assert parsed == {"institutionsPercentHeld": None, "insidersPercentHeld": None,
                      "institutionsFloatPercentHeld": None, "institutionsCount": 12,
                      "retailPercentHeld": 0.1}


def test_major_holders_thyao_all_modules(recording):
    modules = parse_quote_summary(recording(f"{QS}/_all-modules/THYAO.IS.json"))
    parsed = yh.parse_major_holders_breakdown(modules["majorHoldersBreakdown"])
    assert parsed["insidersPercentHeld"] == 0.49122003
    assert parsed["institutionsCount"] == 171


# -- institutionOwnership / fundOwnership --------------------------------------------------------
OWNERSHIP = {
    # file -> (rows, first holder)
    "institutionOwnership/AAPL.json": (10, yh.Holder(
        "Vanguard Group Inc", 1395785512, utc(2024, 12, 31), 0.0929, 342735136731)),
    "institutionOwnership/OCDO.L.json": (1, yh.Holder(
        "Gagnon Securities, LLC", 47160, utc(2024, 9, 30), 0.0001, 14572440)),
    "institutionOwnership/SPOT.json": (10, yh.Holder(
        "Baillie Gifford and Company", 13157694, utc(2024, 12, 31), 0.0661, 7991720245)),
    # finance-query's module body: bare numbers (INDEX.md)
    "institutionOwnership/AAPL-module-only-finance-query-2026.json": (10, yh.Holder(
        "Blackrock Inc.", 1144695425, utc(2026, 3, 31), 0.0779, 333255184669)),
    "fundOwnership/AAPL.json": (10, yh.Holder(
        "Vanguard Total Stock Market Index Fund", 457849145, utc(2024, 9, 30), 0.0305,
        112424858951)),
    "fundOwnership/OCDO.L.json": (10, yh.Holder(
        "Capital World Growth and Income Fund", 52787085, utc(2024, 12, 31), 0.0633,
        16311209265)),
    "fundOwnership/SPOT.json": (10, yh.Holder(
        "Vanguard International Growth Fund", 4488161, utc(2024, 11, 30), 0.0225,
        2726019250)),
}


def test_every_ownership_recording_is_listed():
    files = recordings(f"{QS}/institutionOwnership") + recordings(f"{QS}/fundOwnership")
    assert sorted(f.removeprefix(f"{QS}/") for f in files) == sorted(OWNERSHIP) or not files


@pytest.mark.parametrize("path", sorted(OWNERSHIP))
def test_ownership_recordings(recording, path):
    module = path.split("/")[0]
    body = module_body(recording(f"{QS}/{path}"), module)
    rows = yh.parse_ownership_list(body)
    count, first = OWNERSHIP[path]
    assert len(rows) == count
    assert rows[0] == first
    assert all(isinstance(r.shares, int) and isinstance(r.value, int) for r in rows)
    assert all(r.date_reported is not None for r in rows)
    assert yh.parse_ownership_list(bare(body)) == rows
    assert yh.parse_ownership_list(wrap_numbers(bare(body))) == rows


def test_ownership_aapl_last_row(recording):
    rows = yh.parse_ownership_list(
        module_body(recording(f"{QS}/institutionOwnership/AAPL.json"), "institutionOwnership"))
    assert rows[-1].holder == "JP Morgan Chase & Company"
    assert rows[-1].shares == 183008151
    assert rows[-1].percent_out == 0.012200001


def test_ownership_empty_list(recording):
    modules = parse_quote_summary(recording(f"{QS}/_all-modules/THYAO.IS.json"))
    assert yh.parse_ownership_list(modules["institutionOwnership"]) == []
    assert yh.parse_ownership_list(modules["fundOwnership"]) == []


def test_ownership_missing_date_stays_missing():
    rows = yh.parse_ownership_list({"ownershipList": [
        {"organization": "X", "reportDate": {}, "position": {"raw": 5}}]})
    assert rows == [yh.Holder("X", 5, None, None, None)]


# -- insiderTransactions -----------------------------------------------------------------------
def test_insider_transactions_aapl(recording):
    body = module_body(recording(f"{QS}/insiderTransactions/AAPL.json"), "insiderTransactions")
    rows = yh.parse_insider_transactions(body)
    assert len(rows) == 85
    assert rows[0] == yh.InsiderTransaction(utc(2025, 2, 3), "LEVINSON ARTHUR D", "Director",
                                            "Sale at price 226.35 per share.", 1516, 343147,
                                            "D")
    # a grant: no text, no value
    assert rows[1] == yh.InsiderTransaction(utc(2025, 1, 31), "GORSKY ALEX", "Director", "",
                                            1516, None, "D")
    assert sum(r.ownership == "I" for r in rows) == 6
    assert sum(r.value is not None for r in rows) == 45
    assert yh.parse_insider_transactions(bare(body)) == rows


def test_insider_transactions_ocdo(recording):
    rows = yh.parse_insider_transactions(
        module_body(recording(f"{QS}/insiderTransactions/OCDO.L.json"), "insiderTransactions"))
    assert len(rows) == 150
    assert rows[0] == yh.InsiderTransaction(utc(2025, 2, 17), "Steiner (Timothy Deighton)", "",
                                            "Bought at price 3.89 per share.", 49, 190, "D")


def test_insider_transactions_404_recording(recording):
    with pytest.raises(NotFound) as info:
        parse_quote_summary(recording(f"{QS}/insiderTransactions/SPOT.json"))
    assert "summaryTypes=insiderTransactions" in info.value.detail


# -- netSharePurchaseActivity -------------------------------------------------------------------
def test_net_share_purchase_aapl(recording):
    body = module_body(recording(f"{QS}/netSharePurchaseActivity/AAPL.json"),
                       "netSharePurchaseActivity")
    parsed = yh.parse_net_share_purchase_activity(body)
    assert parsed == yh.InsiderPurchases(
        period="6m", purchases_shares=1013156, purchases_transactions=14, sales_shares=770705,
        sales_transactions=9, net_shares=242451, net_transactions=23,
        total_insider_shares=343404576, net_percent_insider_shares=0.001,
        buy_percent_insider_shares=0.003, sell_percent_insider_shares=0.002)
    assert parsed.has_data
    assert yh.parse_net_share_purchase_activity(wrap_numbers(body)) == parsed


@pytest.mark.parametrize(("name", "total"), [("OCDO.L.json", 240601008),
                                              ("SPOT.json", 49915380)])
def test_net_share_purchase_without_activity(recording, name, total):
    """Yahoo leaves the sell and percentage keys out when there was no activity."""
    parsed = yh.parse_net_share_purchase_activity(
        module_body(recording(f"{QS}/netSharePurchaseActivity/{name}"),
                    "netSharePurchaseActivity"))
    assert parsed == yh.InsiderPurchases("6m", 0, 0, None, 0, 0, 0, total, None, None, None)
    assert parsed.has_data


def test_net_share_purchase_empty():
    assert not yh.parse_net_share_purchase_activity({"maxAge": 1, "period": "6m"}).has_data
    assert not yh.parse_net_share_purchase_activity(None).has_data


# -- insiderHolders -----------------------------------------------------------------------------
def test_insider_holders_aapl(recording):
    body = module_body(recording(f"{QS}/insiderHolders/AAPL.json"), "insiderHolders")
    rows = yh.parse_insider_holders(body)
    assert len(rows) == 10
    assert rows[0] == yh.InsiderRosterMember(
        "ADAMS KATHERINE L", "General Counsel", "Stock Gift", utc(2024, 11, 5), 179043, None,
        utc(2024, 11, 5))
    indirect = [r for r in rows if r.shares_owned_indirectly is not None]
    assert indirect == [yh.InsiderRosterMember(
        "WILLIAMS JEFFREY E", "Chief Operating Officer", "Sale", utc(2024, 12, 16), None,
        389944, None)]
    assert yh.parse_insider_holders(bare(body)) == rows


def test_insider_holders_ocdo(recording):
    rows = yh.parse_insider_holders(
        module_body(recording(f"{QS}/insiderHolders/OCDO.L.json"), "insiderHolders"))
    assert rows[1] == yh.InsiderRosterMember("Baillie Gifford & Co", "", "Decrease",
                                             utc(2024, 8, 19), 91298655, None, utc(2024, 8, 19))


def test_insider_holders_empty(recording):
    body = module_body(recording(f"{QS}/insiderHolders/SPOT.json"), "insiderHolders")
    assert yh.parse_insider_holders(body) == []


# -- fetch ---------------------------------------------------------------------------------------
class TestFetch:
    def test_one_module_per_call(self, yahoo, recording):
        yahoo.summary("AAPL", recording(f"{QS}/institutionOwnership/AAPL.json"))
        rows = yh.holders_data("AAPL", yh.INSTITUTION_OWNERSHIP).record
        assert rows[0].holder == "Vanguard Group Inc"
        assert yh.holders_data("AAPL", yh.INSTITUTION_OWNERSHIP).record == rows  # cached
        calls = calls_to(yahoo.mock, "/v10/finance/quoteSummary/")
        assert len(calls) == 1
        query = parse_qs(urlsplit(calls[0].request.url).query)
        assert query["modules"] == ["institutionOwnership"]
        assert query["formatted"] == ["false"]

    def test_module_404_is_not_found(self, yahoo, recording):
        yahoo.summary("SPOT", recording(f"{QS}/insiderTransactions/SPOT.json"), status=404)
        with pytest.raises(NotFound):
            yh.holders_data("SPOT", yh.INSIDER_TRANSACTIONS)

    @pytest.mark.parametrize("module", ["majorHoldersBreakdown", "fundOwnership",
                                        "netSharePurchaseActivity", "insiderHolders"])
    def test_each_fetch_asks_for_its_module(self, yahoo, recording, module):
        yahoo.summary("AAPL", recording(f"{QS}/_all-modules/AAPL.json"))
        assert yh.holders_data("AAPL", module).record
        (call,) = calls_to(yahoo.mock, "/v10/finance/quoteSummary/AAPL")
        assert parse_qs(urlsplit(call.request.url).query)["modules"] == [module]
