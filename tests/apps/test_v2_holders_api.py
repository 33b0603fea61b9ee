"""GET /v2/holders/{symbol}/{type}: every type on every recorded module (values exactly as
Yahoo sent them, {raw, fmt} reduced to raw), `fields`, paging of the list types (and no
effect on the others), every error status, the one type table shared with v1, the OpenAPI
operation and the sandbox."""

from __future__ import annotations

import pytest

from apps.core import v2
from apps.holders import services
from apps.holders.views import V2HoldersView
from tests.apps.payloads import FAILURES, QUERY2, QUOTE_SUMMARY_NOT_FOUND, fail_url
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.apps.test_v2_analysis_api import (
    QS,
    assert_api_error,
    assert_served,
    follow_pages,
    no_formatted_values,
    openapi,
    recorded_module,
    recordings_in,
    serve,
    summary_calls,
    symbol_of,
    v2_shape,
)

MODULES = {"major": "majorHoldersBreakdown", "institutional": "institutionOwnership",
           "mutualfund": "fundOwnership", "insider-transactions": "insiderTransactions",
           "insider-purchases": "netSharePurchaseActivity", "insider-roster": "insiderHolders"}
LISTS = {"institutional": "ownershipList", "mutualfund": "ownershipList",
         "insider-transactions": "transactions", "insider-roster": "holders"}

# (type, file, 404 message or None)
RECORDINGS = [
    ("major", "AAPL.json", None),
    ("major", "OCDO.L.json", None),
    ("major", "SPOT.json", None),
    ("institutional", "AAPL.json", None),
    ("institutional", "AAPL-module-only-finance-query-2026.json", None),
    ("institutional", "OCDO.L.json", None),
    ("institutional", "SPOT.json", None),
    ("mutualfund", "AAPL.json", None),
    ("mutualfund", "OCDO.L.json", None),
    ("mutualfund", "SPOT.json", None),
    ("insider-transactions", "AAPL.json", None),
    ("insider-transactions", "OCDO.L.json", None),
    ("insider-transactions", "SPOT.json",
     "No insider transactions data found for SPOT"),  # Yahoo's 404 for the module
    ("insider-purchases", "AAPL.json", None),
    ("insider-purchases", "OCDO.L.json", None),
    ("insider-purchases", "SPOT.json", None),
    ("insider-roster", "AAPL.json", None),
    ("insider-roster", "OCDO.L.json", None),
    ("insider-roster", "SPOT.json", "No insider roster data found for SPOT"),  # holders: []
]


def test_every_recording_is_covered():
    assert recordings_in(set(MODULES.values())) == {(MODULES[t], f) for t, f, _ in RECORDINGS}


@pytest.mark.parametrize(("holder_type", "file", "missing"), RECORDINGS,
                         ids=[f"{t}-{f}" for t, f, _ in RECORDINGS])
def test_every_type_on_every_recording(api, yahoo, recording, holder_type, file, missing):
    module = MODULES[holder_type]
    body, payload = recorded_module(recording, module, file)
    symbol = symbol_of(file)
    serve(yahoo, symbol, payload)
    response = api.get(f"/v2/holders/{symbol}/{holder_type}")
    if missing:
        assert_api_error(response, 404, missing)
        return
    assert response.status_code == 200, response.content
    assert_served(response.json(), body, v2_shape(services.V2_TYPES[holder_type]))
    query = summary_calls(yahoo)[0].request.url
    assert f"modules={module}" in query and "formatted=false" in query


def test_major_exact_values(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/majorHoldersBreakdown/AAPL.json"))
    assert api.get("/v2/holders/aapl/major").json() == {
        "maxAge": 1, "insidersPercentHeld": 0.02286, "institutionsPercentHeld": 0.62706,
        "institutionsFloatPercentHeld": 0.64172995, "institutionsCount": 6956}


def test_institutional_exact_values(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/institutionOwnership/AAPL.json"))
    body = api.get("/v2/holders/AAPL/institutional").json()
    assert body["maxAge"] == 1 and len(body["ownershipList"]) == 10
    assert body["ownershipList"][0] == {
        "maxAge": 1, "reportDate": 1735603200, "organization": "Vanguard Group Inc",
        "pctHeld": 0.0929, "position": 1395785512, "value": 342735136731, "pctChange": 0.0365}


def test_insider_transactions_strings_as_sent(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/insiderTransactions/AAPL.json"))
    first = api.get("/v2/holders/AAPL/insider-transactions").json()["transactions"][0]
    assert first == {"maxAge": 1, "shares": 1516, "value": 343147, "filerUrl": "",
                     "transactionText": "Sale at price 226.35 per share.",
                     "filerName": "LEVINSON ARTHUR D", "filerRelation": "Director",
                     "moneyText": "", "startDate": 1738540800, "ownership": "D"}


def test_insider_purchases_members_yahoo_leaves_out(api, yahoo, recording):
    """OCDO.L has no sell shares or percentages: present and null, like every member Yahoo
    leaves out."""
    yahoo.summary("OCDO.L", recording(f"{QS}/netSharePurchaseActivity/OCDO.L.json"))
    body = api.get("/v2/holders/OCDO.L/insider-purchases").json()
    assert body == {"maxAge": 1, "period": "6m", "buyInfoCount": 0, "buyInfoShares": 0,
                    "buyPercentInsiderShares": None, "sellInfoCount": 0,
                    "sellInfoShares": None, "sellPercentInsiderShares": None,
                    "netInfoCount": 0, "netInfoShares": 0, "netPercentInsiderShares": None,
                    "totalInsiderShares": 240601008}
    asked = api.get("/v2/holders/OCDO.L/insider-purchases?fields=sellInfoShares,period")
    assert asked.json() == {"period": "6m", "sellInfoShares": None}


def test_a_member_yahoo_leaves_out_of_a_row_is_null(api, yahoo, recording):
    """Yahoo sends an insider transaction's `value` only for priced trades: the others
    carry it as null, in the row's member order."""
    payload = recording(f"{QS}/insiderTransactions/AAPL.json")
    sent = payload["quoteSummary"]["result"][0]["insiderTransactions"]["transactions"]
    yahoo.summary("AAPL", payload)
    rows = api.get("/v2/holders/AAPL/insider-transactions").json()["transactions"]
    unpriced = [i for i, row in enumerate(sent) if "value" not in row]
    assert unpriced and all(rows[i]["value"] is None for i in unpriced)
    assert all(list(row) == list(rows[0]) for row in rows)


# -- fields ------------------------------------------------------------------------------------
def test_fields_select_top_level_members(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/insiderHolders/AAPL.json"))
    base = "/v2/holders/AAPL/insider-roster"
    assert api.get(f"{base}?fields=maxAge,nonsense").json() == {"maxAge": 1}
    assert set(api.get(f"{base}?fields=holders").json()) == {"holders"}
    assert set(api.get(f"{base}?fields=nonsense").json()) == {"holders", "maxAge"}
    # ownershipList is not a member of insider-roster: ignored.
    assert set(api.get(f"{base}?fields=ownershipList").json()) == {"holders", "maxAge"}


def test_fields_keep_requested_members_present(api, yahoo):
    yahoo.summary("AAPL", {"quoteSummary": {"result": [{"majorHoldersBreakdown": {
        "maxAge": 1, "institutionsCount": 5}}], "error": None}})
    body = api.get("/v2/holders/AAPL/major?fields=institutionsCount,insidersPercentHeld")
    assert body.json() == {"institutionsCount": 5, "insidersPercentHeld": None}


# -- paging ------------------------------------------------------------------------------------
@pytest.mark.parametrize(("holder_type", "symbol", "limit"), [
    ("institutional", "AAPL", 3), ("mutualfund", "SPOT", 4),
    ("insider-transactions", "OCDO.L", 7), ("insider-roster", "AAPL", 10),
])
def test_paging_visits_every_item_once(api, yahoo, recording, holder_type, symbol, limit):
    yahoo.summary(symbol, recording(f"{QS}/{MODULES[holder_type]}/{symbol}.json"))
    path = f"/v2/holders/{symbol}/{holder_type}"
    member = LISTS[holder_type]
    whole = api.get(path).json()
    assert isinstance(whole[member], list) and whole[member]
    assert follow_pages(api, path, member, limit) == whole[member]
    paged = api.get(f"{path}?limit={limit}").json()
    assert {k: v for k, v in paged.items() if k != member} == \
        {k: v for k, v in whole.items() if k != member}, "other members unchanged"
    assert len(summary_calls(yahoo)) == 1


@pytest.mark.parametrize("holder_type", ["major", "insider-purchases"])
def test_paging_has_no_effect_on_plain_types(api, yahoo, recording, holder_type):
    yahoo.summary("AAPL", recording(f"{QS}/{MODULES[holder_type]}/AAPL.json"))
    path = f"/v2/holders/AAPL/{holder_type}"
    whole = api.get(path).json()
    assert api.get(f"{path}?limit=1&cursor=MA").json() == whole
    assert api.get(f"{path}?limit=0").json() == whole


# -- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", ["insider_roster", "mutual-fund", "Major", "breakdown", "x"])
def test_unknown_type_is_400_before_any_upstream_call(api, yahoo, bad):
    response = api.get(f"/v2/holders/AAPL/{bad}")
    assert_api_error(response, 400, "type: Input should be 'major', 'institutional', "
                     "'mutualfund', 'insider-transactions', 'insider-purchases' or "
                     "'insider-roster'")
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("query", ["limit=-1", "limit=1.5", "limit=1001", "cursor=%%",
                                   "cursor=MB", "cursor=" + "M" * 30])
def test_bad_limit_or_cursor_is_400_before_any_upstream_call(api, yahoo, query):
    response = api.get(f"/v2/holders/AAPL/major?{query}")
    body = assert_api_error(response, 400)
    assert body["error"].split(":")[0] in ("limit", "cursor")
    assert len(yahoo.mock.calls) == 0


def test_unknown_symbol_is_404(api, yahoo):
    yahoo.summary("ZZZZ", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v2/holders/ZZZZ/mutualfund")
    assert_api_error(response, 404, "No mutual fund holders data found for ZZZZ")


@pytest.mark.parametrize(("holder_type", "module_body"), [
    ("major", {"maxAge": 1}),
    ("major", {"maxAge": 1, "insidersPercentHeld": {}, "institutionsCount": None}),
    ("institutional", {"maxAge": 1, "ownershipList": []}),
    ("insider-purchases", {"maxAge": 1, "period": "6m"}),
    ("insider-transactions", None),
])
def test_empty_module_is_404(api, yahoo, holder_type, module_body):
    module = MODULES[holder_type]
    result = {} if module_body is None else {module: module_body}
    yahoo.summary("AAPL", {"quoteSummary": {"result": [result], "error": None}})
    response = api.get(f"/v2/holders/AAPL/{holder_type}")
    kind = services.V2_TYPES[holder_type]
    assert_api_error(response, 404, f"No {kind.label} data found for AAPL")


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_malformed_symbol_is_404_without_upstream_call(api, yahoo, raw):
    response = api.get(f"/v2/holders/{raw}/insider-roster")
    assert_api_error(response, 404)
    assert response["Content-Type"].startswith("application/json")
    assert len(yahoo.mock.calls) == 0


def test_encoded_slash_in_symbol_is_404(api, yahoo):
    for path in ("/v2/holders/AAPL%2Fmajor", "/v2/holders/AAPL%2F..%2Fmajor/major"):
        assert_api_error(api.get(path, REQUEST_URI=path), 404)
    assert len(yahoo.mock.calls) == 0


@pytest.mark.parametrize("kind", list(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, f"{QUERY2}/v10/finance/quoteSummary/AAPL", kind)
    response = api.get("/v2/holders/AAPL/institutional?limit=2")
    status, _ = FAILURES[kind]
    body = assert_api_error(response, status)
    assert body["provider"] == "yahoo"


# -- the one type table ------------------------------------------------------------------------
def test_v2_enum_is_the_tables_v2_names():
    assert v2.HOLDER_TYPES == tuple(services.V2_TYPES)
    assert V2HoldersView.path_choices == {"type": v2.HOLDER_TYPES}
    for name, kind in services.V2_TYPES.items():
        assert kind.route == name and kind.module == MODULES[name]
        assert kind.v2_list == LISTS.get(name)
        assert kind.v2_list is None or kind.v2_list in kind.v2_members


def test_v1_choices_aliases_and_members_derive_from_the_table():
    assert services.HOLDER_TYPES == ("major", "institutional", "mutualfund",
                                     "insider_transactions", "insider_purchases",
                                     "insider_roster")
    assert services.ALIASES == {"insider-transactions": "insider_transactions",
                                "insider-purchases": "insider_purchases",
                                "insider-roster": "insider_roster"}
    assert services.MEMBERS == {
        "major": "major_breakdown", "institutional": "institutional_holders",
        "mutualfund": "mutualfund_holders", "insider_transactions": "insider_transactions",
        "insider_purchases": "insider_purchases", "insider_roster": "insider_roster"}
    # the reference's bodies: {symbol, <key>: the HoldersData member}
    from marketdata.records.members import member_names

    assert {name: member_names(kind.reference) for name, kind in services.TYPES.items()} == {
        "major": ("symbol", "breakdown"), "institutional": ("symbol", "holders"),
        "mutualfund": ("symbol", "holders"), "insider_transactions": ("symbol", "transactions"),
        "insider_purchases": ("symbol", "summary"), "insider_roster": ("symbol", "roster")}
    assert member_names(services.HoldersData) == ("symbol", "holder_type",
                                                  *services.MEMBERS.values())


def test_v1_and_v2_agree_on_the_same_cached_module(api, yahoo, recording):
    yahoo.summary("AAPL", recording(f"{QS}/fundOwnership/AAPL.json"))
    old = api.get("/v1/holders/AAPL/mutualfund").json()["holders"]
    new = api.get("/v2/holders/AAPL/mutualfund").json()["ownershipList"]
    assert [h["holder"] for h in old] == [h["organization"] for h in new]
    assert [h["shares"] for h in old] == [h["position"] for h in new]
    assert len(summary_calls(yahoo)) == 1, "one cache entry per (symbol, module)"


def test_docstring_documents_every_type():
    text = V2HoldersView.__doc__ or ""
    for name, kind in services.V2_TYPES.items():
        assert f"`{name}` -> {kind.module}" in text
        if kind.v2_list:
            assert f"Paged: `{kind.v2_list}`" in text
    assert text.count("`cursor`/`limit` have no effect") == 2


def test_openapi_operation():
    op = openapi()["paths"]["/v2/holders/{symbol}/{type}"]["get"]
    assert op["operationId"] == "get_holders_v2" and op["tags"] == ["Holders (v2)"]
    params = {p["name"]: p for p in op["parameters"]}
    assert sorted(params["type"]["schema"]["enum"]) == sorted(v2.HOLDER_TYPES)
    assert {"symbol", "fields", "cursor", "limit"} <= params.keys()
    body = op["responses"]["200"]["content"]["application/json"]["schema"]
    assert body["type"] == "object" and body["additionalProperties"] is True
    assert {"ownershipList", "transactions", "holders", "institutionsCount",
            "totalInsiderShares"} <= body["properties"].keys()
    assert {"400", "404", "429", "500"} <= op["responses"].keys()


# -- sandbox ------------------------------------------------------------------------------------
@pytest.mark.parametrize("holder_type", v2.HOLDER_TYPES)
def test_sandbox_serves_every_type(api, sandbox_upstream, holder_type):
    kind = services.V2_TYPES[holder_type]
    response = api.get(f"/v2/holders/AAPL/{holder_type}")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body and set(body) <= set(kind.v2_members) | {"maxAge"}
    assert no_formatted_values(body)
    if kind.v2_list is None:
        assert api.get(f"/v2/holders/AAPL/{holder_type}?limit=1").json() == body
        return
    rows = body[kind.v2_list]
    assert isinstance(rows, list) and rows and all(isinstance(r, dict) for r in rows)
    paged = api.get(f"/v2/holders/AAPL/{holder_type}?limit=1").json()[kind.v2_list]
    assert paged["nodes"] == rows[:1]


def test_sandbox_unknown_symbol_is_404(api, sandbox_upstream):
    assert_api_error(api.get("/v2/holders/ZZZZZZZZ/major"), 404)
