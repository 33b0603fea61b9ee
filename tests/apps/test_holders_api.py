"""GET /v1/holders/{symbol}?holder_type= and the reference's sub-routes
(/v1/holders/{symbol}/{type}, with the reference's bodies): 200 bodies from the recordings,
every 404 and 422 of the spec with its exact body, upstream failures, and path safety."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.apps.payloads import FAILURES, QUOTE_SUMMARY_NOT_FOUND, register_failure
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.conftest import calls_to

QS = "yahoo/v10-quoteSummary"
MEMBERS = ("major_breakdown", "institutional_holders", "mutualfund_holders",
           "insider_transactions", "insider_purchases", "insider_roster")
ENUM_MESSAGE = ("Input should be 'major', 'institutional', 'mutualfund', "
                "'insider_transactions', 'insider_purchases' or 'insider_roster'")
# type -> (HoldersData member, module, AAPL recording, reference sub-route, reference key)
TYPES = {
    "major": ("major_breakdown", "majorHoldersBreakdown", "major", "breakdown"),
    "institutional": ("institutional_holders", "institutionOwnership", "institutional",
                      "holders"),
    "mutualfund": ("mutualfund_holders", "fundOwnership", "mutualfund", "holders"),
    "insider_transactions": ("insider_transactions", "insiderTransactions",
                             "insider-transactions", "transactions"),
    "insider_purchases": ("insider_purchases", "netSharePurchaseActivity", "insider-purchases",
                          "summary"),
    "insider_roster": ("insider_roster", "insiderHolders", "insider-roster", "roster"),
}


def aapl(module: str) -> str:
    return f"{QS}/{module}/AAPL.json"


def body_with(holder_type: str, value, symbol: str = "AAPL") -> dict:
    body = {"symbol": symbol, "holder_type": holder_type}
    body.update({m: None for m in MEMBERS})
    body[TYPES[holder_type][0]] = value
    return body


def summary_calls(yahoo) -> list:
    return calls_to(yahoo.mock, "/v10/finance/quoteSummary/")


# -- 200 ---------------------------------------------------------------------------------------
MAJOR = {"breakdown_data": {"institutionsPercentHeld": 0.62706, "insidersPercentHeld": 0.02286,
                            "institutionsFloatPercentHeld": 0.64172995,
                            "institutionsCount": 6956}}
PURCHASES = {"period": "6m", "purchases_shares": 1013156, "purchases_transactions": 14,
             "sales_shares": 770705, "sales_transactions": 9, "net_shares": 242451,
             "net_transactions": 23, "total_insider_shares": 343404576,
             "net_percent_insider_shares": 0.001, "buy_percent_insider_shares": 0.003,
             "sell_percent_insider_shares": 0.002}


def test_major(api, yahoo, recording):
    yahoo.summary("AAPL", recording(aapl("majorHoldersBreakdown")))
    response = api.get("/v1/holders/AAPL?holder_type=major")
    assert response.status_code == 200, response.content
    assert response.json() == body_with("major", MAJOR)


def test_institutional(api, yahoo, recording):
    yahoo.summary("AAPL", recording(aapl("institutionOwnership")))
    response = api.get("/v1/holders/aapl?holder_type=institutional")
    assert response.status_code == 200
    body = response.json()
    holders = body["institutional_holders"]
    assert body == body_with("institutional", holders)
    assert len(holders) == 10
    assert holders[0] == {"holder": "Vanguard Group Inc", "shares": 1395785512,
                          "date_reported": "2024-12-31T00:00:00Z", "percent_out": 0.0929,
                          "value": 342735136731}
    assert holders[-1]["holder"] == "JP Morgan Chase & Company"


def test_mutualfund(api, yahoo, recording):
    yahoo.summary("AAPL", recording(aapl("fundOwnership")))
    response = api.get("/v1/holders/AAPL?holder_type=mutualfund")
    assert response.status_code == 200
    holders = response.json()["mutualfund_holders"]
    assert holders[0] == {"holder": "Vanguard Total Stock Market Index Fund",
                          "shares": 457849145, "date_reported": "2024-09-30T00:00:00Z",
                          "percent_out": 0.0305, "value": 112424858951}
    assert holders[2]["date_reported"] == "2024-11-30T00:00:00Z"


def test_insider_transactions(api, yahoo, recording):
    yahoo.summary("AAPL", recording(aapl("insiderTransactions")))
    response = api.get("/v1/holders/AAPL?holder_type=insider_transactions")
    assert response.status_code == 200
    rows = response.json()["insider_transactions"]
    assert len(rows) == 85
    assert rows[:2] == [
        {"start_date": "2025-02-03T00:00:00Z", "insider": "LEVINSON ARTHUR D",
         "position": "Director", "transaction": "Sale at price 226.35 per share.",
         "shares": 1516, "value": 343147, "ownership": "D"},
        {"start_date": "2025-01-31T00:00:00Z", "insider": "GORSKY ALEX", "position": "Director",
         "transaction": "", "shares": 1516, "value": None, "ownership": "D"},
    ]


def test_insider_purchases(api, yahoo, recording):
    yahoo.summary("AAPL", recording(aapl("netSharePurchaseActivity")))
    response = api.get("/v1/holders/AAPL?holder_type=insider_purchases")
    assert response.status_code == 200
    assert response.json() == body_with("insider_purchases", PURCHASES)


def test_insider_purchases_missing_fields_are_null(api, yahoo, recording):
    yahoo.summary("SPOT", recording(f"{QS}/netSharePurchaseActivity/SPOT.json"))
    response = api.get("/v1/holders/SPOT?holder_type=insider_purchases")
    assert response.status_code == 200
    assert response.json()["insider_purchases"] == {
        "period": "6m", "purchases_shares": 0, "purchases_transactions": 0,
        "sales_shares": None, "sales_transactions": 0, "net_shares": 0, "net_transactions": 0,
        "total_insider_shares": 49915380, "net_percent_insider_shares": None,
        "buy_percent_insider_shares": None, "sell_percent_insider_shares": None}


def test_insider_roster(api, yahoo, recording):
    yahoo.summary("AAPL", recording(aapl("insiderHolders")))
    response = api.get("/v1/holders/AAPL?holder_type=insider_roster")
    assert response.status_code == 200
    roster = response.json()["insider_roster"]
    assert len(roster) == 10
    assert roster[0] == {"name": "ADAMS KATHERINE L", "position": "General Counsel",
                         "most_recent_transaction": "Stock Gift",
                         "latest_transaction_date": "2024-11-05T00:00:00Z",
                         "shares_owned_directly": 179043, "shares_owned_indirectly": None,
                         "position_direct_date": "2024-11-05T00:00:00Z"}
    indirect = [m for m in roster if m["shares_owned_indirectly"] is not None]
    assert indirect == [{"name": "WILLIAMS JEFFREY E", "position": "Chief Operating Officer",
                         "most_recent_transaction": "Sale",
                         "latest_transaction_date": "2024-12-16T00:00:00Z",
                         "shares_owned_directly": None, "shares_owned_indirectly": 389944,
                         "position_direct_date": None}]


def test_missing_date_stays_null(api, yahoo):
    yahoo.summary("AAPL", {"quoteSummary": {"result": [{"institutionOwnership": {
        "maxAge": 1, "ownershipList": [{"maxAge": 1, "organization": "X Capital",
                                        "position": 100, "reportDate": {}}]}}], "error": None}})
    response = api.get("/v1/holders/AAPL?holder_type=institutional")
    assert response.status_code == 200
    assert response.json()["institutional_holders"] == [
        {"holder": "X Capital", "shares": 100, "date_reported": None, "percent_out": None,
         "value": None}]


@pytest.mark.parametrize("holder_type", list(TYPES))
def test_each_type_asks_for_its_module(api, yahoo, recording, holder_type):
    member, module, _, _ = TYPES[holder_type]
    yahoo.summary("AAPL", recording(aapl(module)))
    response = api.get(f"/v1/holders/AAPL?holder_type={holder_type}")
    assert response.status_code == 200
    body = response.json()
    assert list(body) == ["symbol", "holder_type", *MEMBERS]
    assert [m for m in MEMBERS if body[m] is not None] == [member]
    (call,) = summary_calls(yahoo)
    url = urlsplit(call.request.url)
    assert url.path == "/v10/finance/quoteSummary/AAPL"
    query = parse_qs(url.query)
    assert query["modules"] == [module] and query["formatted"] == ["false"]


# -- the reference's sub-routes and bodies ----------------------------------------------------
@pytest.mark.parametrize("holder_type", list(TYPES))
def test_alias_gives_the_reference_body(api, yahoo, recording, holder_type):
    member, module, name, key = TYPES[holder_type]
    yahoo.summary("AAPL", recording(aapl(module)))
    alias = api.get(f"/v1/holders/AAPL/{name}")
    assert alias.status_code == 200, alias.content
    full = api.get(f"/v1/holders/AAPL?holder_type={holder_type}").json()
    assert alias.json() == {"symbol": "AAPL", key: full[member]}


def test_alias_major_and_purchases_exact(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/_all-modules/AAPL.json"))
    assert api.get("/v1/holders/AAPL/major").json() == {"symbol": "AAPL", "breakdown": MAJOR}
    assert api.get("/v1/holders/AAPL/insider-purchases").json() == {"symbol": "AAPL",
                                                                    "summary": PURCHASES}


@pytest.mark.parametrize("name", ["insider_transactions", "insider_purchases",
                                  "insider_roster"])
def test_alias_accepts_underscores(api, yahoo, recording, name):
    yahoo.summary("AAPL", recording(f"{QS}/_all-modules/AAPL.json"))
    response = api.get(f"/v1/holders/AAPL/{name}")
    assert response.status_code == 200
    assert set(response.json()) == {"symbol", TYPES[name][3]}


@pytest.mark.parametrize("name", ["foo", "Major", "insider roster", "mutual-fund"])
def test_alias_unknown_type_is_422(api, yahoo, name):
    response = api.get(f"/v1/holders/AAPL/{name}")
    assert response.status_code == 422
    assert response.json() == {"errors": {"holder_type": [ENUM_MESSAGE]}}
    assert summary_calls(yahoo) == []


def test_alias_404(api, yahoo, recording):
    yahoo.summary("SPOT", recording(f"{QS}/insiderTransactions/SPOT.json"), status=404)
    response = api.get("/v1/holders/SPOT/insider-transactions")
    assert response.status_code == 404
    assert response.json() == {"detail": "No insider transactions data found for SPOT"}


# -- 404 ---------------------------------------------------------------------------------------
def test_unknown_symbol_404(api, yahoo):
    yahoo.summary("ZZZZ", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v1/holders/ZZZZ?holder_type=major")
    assert response.status_code == 404
    assert response.json() == {"detail": "No major holders data found for ZZZZ"}


def test_no_module_data_404_recording(api, yahoo, recording):
    yahoo.summary("SPOT", recording(f"{QS}/insiderTransactions/SPOT.json"), status=404)
    response = api.get("/v1/holders/SPOT?holder_type=insider_transactions")
    assert response.status_code == 404
    assert response.json() == {"detail": "No insider transactions data found for SPOT"}


def test_empty_roster_404(api, yahoo, recording):
    yahoo.summary("SPOT", recording(f"{QS}/insiderHolders/SPOT.json"))
    response = api.get("/v1/holders/SPOT?holder_type=insider_roster")
    assert response.status_code == 404
    assert response.json() == {"detail": "No insider roster data found for SPOT"}


@pytest.mark.parametrize(("holder_type", "label"), [("institutional", "institutional holders"),
                                                    ("mutualfund", "mutual fund holders")])
def test_empty_ownership_lists_404(api, yahoo, recording, holder_type, label):
    yahoo.summary("THYAO.IS", recording(f"{QS}/_all-modules/THYAO.IS.json"))
    response = api.get(f"/v1/holders/THYAO.IS?holder_type={holder_type}")
    assert response.status_code == 404
    assert response.json() == {"detail": f"No {label} data found for THYAO.IS"}


@pytest.mark.parametrize("holder_type", list(TYPES))
def test_funds_and_crypto_404(api, yahoo, recording, holder_type):
    """BTC-USD's all-modules answer has none of the holders modules."""
    yahoo.summary("BTC-USD", recording(f"{QS}/_all-modules/BTC-USD.json"))
    response = api.get(f"/v1/holders/BTC-USD?holder_type={holder_type}")
    assert response.status_code == 404
    assert response.json()["detail"].endswith("data found for BTC-USD")


def test_breakdown_without_numbers_404(api, yahoo):
    yahoo.summary("AAPL", {"quoteSummary": {"result": [{"majorHoldersBreakdown": {
        "maxAge": 1}}], "error": None}})
    response = api.get("/v1/holders/AAPL?holder_type=major")
    assert response.status_code == 404
    assert response.json() == {"detail": "No major holders data found for AAPL"}


def test_malformed_symbol_404_without_upstream_call(api, yahoo):
    response = api.get("/v1/holders/" + "A" * 500 + "?holder_type=major")
    assert response.status_code == 404
    assert response.json()["detail"].startswith("Symbol not found: 'AAAA")
    assert len(yahoo.mock.calls) == 0


# -- 422 ---------------------------------------------------------------------------------------
def test_invalid_type_422(api, yahoo):
    response = api.get("/v1/holders/AAPL?holder_type=foo")
    assert response.status_code == 422
    assert response.json() == {"errors": {"holder_type": [ENUM_MESSAGE]}}
    assert len(yahoo.mock.calls) == 0


def test_missing_type_422(api, yahoo):
    response = api.get("/v1/holders/AAPL")
    assert response.status_code == 422
    assert response.json() == {"errors": {"holder_type": ["Field required"]}}
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("value", ["", "insider-roster", "MAJOR"])
def test_other_invalid_types_422(api, yahoo, value):
    response = api.get(f"/v1/holders/AAPL?holder_type={value}")
    assert response.status_code == 422
    assert response.json() == {"errors": {"holder_type": [ENUM_MESSAGE]}}


# -- upstream failures ---------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/v1/holders/AAPL?holder_type=institutional",
                                  "/v1/holders/AAPL/institutional"])
@pytest.mark.parametrize("kind", list(FAILURES))
def test_upstream_failures(api, yahoo, kind, path):
    register_failure(yahoo.mock, "quotes", kind)  # the AAPL quoteSummary URL
    response = api.get(path)
    status, code = FAILURES[kind]
    assert response.status_code == status
    body = response.json()
    assert set(body) == {"detail", "provider", "code"}
    assert body["provider"] == "yahoo" and body["code"] == code


# -- path safety --------------------------------------------------------------------------------
def _assert_refused(response, yahoo) -> None:
    assert response.status_code in (404, 422), response.content
    assert response["Content-Type"].startswith("application/json")
    body = response.json()
    assert "detail" in body or "errors" in body
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_query_form(api, yahoo, raw):
    _assert_refused(api.get(f"/v1/holders/{raw}?holder_type=major"), yahoo)


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_alias_form(api, yahoo, raw):
    _assert_refused(api.get(f"/v1/holders/{raw}/insider-roster"), yahoo)


@pytest.mark.parametrize(("path", "status"), [
    ("/v1/holders/A%2FB", 422), ("/v1/holders/A%2FB?holder_type=major", 422),
    ("/v1/holders/..%2F..%2Fv7%2Ffinance%2Fquote?holder_type=major", 404),
    ("/v1/holders/AAPL%2F..%2Fmajor/major", 404),
])
def test_encoded_slashes(api, yahoo, path, status):
    response = api.get(path)
    assert response.status_code == status, response.content
    _assert_refused(response, yahoo)


def test_encoded_slash_reaching_the_alias_route_is_404(api, yahoo):
    """/v1/holders/AAPL%2Fmajor decodes to the alias route; with the raw target (gunicorn's
    RAW_URI, or REQUEST_URI) the view sees the slash was part of the symbol."""
    for meta in ({"RAW_URI": "/v1/holders/AAPL%2Fmajor"},
                 {"REQUEST_URI": "/v1/holders/AAPL%2fmajor?holder_type=x"}):
        response = api.get("/v1/holders/AAPL/major", **meta)
        assert response.status_code == 404
        assert response.json() == {"detail": "Symbol not found: 'AAPL/major'"}
    assert len(yahoo.mock.calls) == 0


def test_encoded_slash_is_not_served_from_the_response_cache(api, yahoo, recording):
    """The response cache runs before the view: a stored /v1/holders/AAPL/major must not
    answer the raw target /v1/holders/AAPL%2Fmajor that decodes to the same path."""
    yahoo.summary("AAPL", recording(f"{QS}/_all-modules/AAPL.json"))
    assert api.get("/v1/holders/AAPL/major").status_code == 200
    assert api.get("/v1/holders/AAPL/major")["X-Cache"] == "HIT"
    response = api.get("/v1/holders/AAPL/major", RAW_URI="/v1/holders/AAPL%2Fmajor")
    assert response.status_code == 404
    assert response.json() == {"detail": "Symbol not found: 'AAPL/major'"}
