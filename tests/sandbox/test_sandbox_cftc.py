"""The simulated CFTC Public Reporting (Socrata) datasets: routing, Socrata's payload shape
(string numbers, floating-timestamp dates, the recorded legacy columns), the identities real
COT rows keep, which codes exist (the documented unknown rule), report weeks from the clock,
determinism, the SoQL subset and Socrata's errors; and the service's parser on its answers."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime, timedelta
from itertools import pairwise
from typing import Any

import pytest

from marketdata.providers.cftc import (
    COLUMNS,
    CONTRACTS,
    DISAGGREGATED,
    LEGACY,
    parse_commitments,
    soda_params,
)
from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.cftc import markets
from marketdata.sandbox.instruments import stable_hash
from tests.conftest import load_recording

HOST = "publicreporting.cftc.gov"
DIS, LEG = "/resource/72hh-3qpy.json", "/resource/6dca-aqww.json"
# Friday 2024-08-23, after the 15:30 New York release (19:30 UTC in summer).
CLOCK = datetime(2024, 8, 23, 20, 0, tzinfo=UTC)
RECORDING = "cftc/socrata-cot/jun7-fc8e_239747_2024-08-19_2024-08-21.json"


def make(clock: datetime = CLOCK) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock)


def get(sandbox: UpstreamSandbox, path: str, host: str = HOST, **query: str):
    response = sandbox.handle("GET", host, path, {k: [v] for k, v in query.items()}, {})
    return response.status, json.loads(response.body), response.headers


def rows(sandbox: UpstreamSandbox, path: str, **query: str) -> list[dict[str, Any]]:
    status, body, _ = get(sandbox, path, **query)
    assert status == 200, body
    return body


def pinned(code: str, **extra: str) -> dict[str, str]:
    """The service's kind of query: one code, newest first."""
    return {"$where": f"cftc_contract_market_code='{code}'",
            "$order": "report_date_as_yyyy_mm_dd DESC", **extra}


def code_of_kind(commodity: bool) -> str:
    """A non-curated, known code that the hash rule makes a commodity (or a financial)."""
    curated = {c.code for c in CONTRACTS.values()}
    for n in range(100000, 199999):
        code = str(n)
        if code not in curated and (stable_hash("cftc-report", code) % 2 == 0) == commodity:
            return code
    raise AssertionError("no code found")


# -- shape --------------------------------------------------------------------------------------
def test_the_service_request_gets_the_newest_weeks_as_strings():
    sandbox = make()
    body = rows(sandbox, DIS, **soda_params("088691", DISAGGREGATED))
    assert len(body) == 260
    assert body[0]["report_date_as_yyyy_mm_dd"] == "2024-08-20T00:00:00.000"
    assert list(body[0]) == soda_params("088691", DISAGGREGATED)["$select"].split(",")
    assert all(isinstance(v, str) for row in body for v in row.values())
    days = [date.fromisoformat(r["report_date_as_yyyy_mm_dd"][:10]) for r in body]
    assert all(d.weekday() == 1 for d in days)
    assert all(a - b == timedelta(weeks=1) for a, b in pairwise(days))
    [entry] = sandbox.requests_matching("/resource/", provider="cftc")
    assert entry["status"] == 200


def test_legacy_rows_have_the_recorded_columns_in_order():
    [recorded] = load_recording(RECORDING)
    [row] = rows(make(), LEG, **pinned("239747", **{"$limit": "1"}))
    assert list(row) == list(recorded)
    assert row["market_and_exchange_names"] == recorded["market_and_exchange_names"]
    assert row["futonly_or_combined"] == "FutOnly" and row["id"] == "240820239747F"
    assert row["cftc_market_code"] == "CME " and row["cftc_commodity_code"] == "239 "
    assert row["yyyy_report_week_ww"] == "2024 Report Week 34"


def test_disaggregated_rows_carry_every_column_the_service_reads():
    [row] = rows(make(), DIS, **pinned("067651", **{"$limit": "1"}))
    assert set(COLUMNS[DISAGGREGATED.name].values()) <= set(row)
    assert "swap__positions_short_all" in row and "swap_positions_short_all" not in row
    assert row["market_and_exchange_names"] == "WTI-PHYSICAL - NEW YORK MERCANTILE EXCHANGE"


def _ints(row: dict[str, str], *names: str) -> list[int]:
    return [int(row[n]) for n in names]


def test_rows_keep_the_cot_identities_and_both_reports_agree():
    sandbox = make()
    disaggregated = rows(sandbox, DIS, **pinned("002602", **{"$limit": "60"}))
    legacy = {r["report_date_as_yyyy_mm_dd"]: r
              for r in rows(sandbox, LEG, **pinned("002602", **{"$limit": "60"}))}
    for row in disaggregated:
        oi = int(row["open_interest_all"])
        spreads = sum(_ints(row, "swap__positions_spread_all", "m_money_positions_spread",
                            "other_rept_positions_spread"))
        longs = sum(_ints(row, "prod_merc_positions_long", "swap_positions_long_all",
                          "m_money_positions_long_all", "other_rept_positions_long",
                          "nonrept_positions_long_all"))
        shorts = sum(_ints(row, "prod_merc_positions_short", "swap__positions_short_all",
                           "m_money_positions_short_all", "other_rept_positions_short",
                           "nonrept_positions_short_all"))
        assert longs + spreads == oi == shorts + spreads
        assert int(row["tot_rept_positions_long_all"]) == oi - int(
            row["nonrept_positions_long_all"])
        assert min(int(v) for k, v in row.items() if "_positions_" in k) >= 0
        twin = legacy[row["report_date_as_yyyy_mm_dd"]]
        for column in ("open_interest_all", "nonrept_positions_long_all",
                       "nonrept_positions_short_all", "tot_rept_positions_long_all",
                       "tot_rept_positions_short"):
            assert twin[column] == row[column]
        assert sum(_ints(twin, "noncomm_positions_long_all", "noncomm_postions_spread_all",
                         "comm_positions_long_all", "nonrept_positions_long_all")) == oi


def test_financial_legacy_rows_keep_the_identities():
    for row in rows(make(), LEG, **pinned("13874A", **{"$limit": "60"})):
        oi = int(row["open_interest_all"])
        spread = int(row["noncomm_postions_spread_all"])
        assert sum(_ints(row, "noncomm_positions_long_all", "comm_positions_long_all",
                         "nonrept_positions_long_all")) + spread == oi
        assert sum(_ints(row, "noncomm_positions_short_all", "comm_positions_short_all",
                         "nonrept_positions_short_all")) + spread == oi
        assert row["open_interest_old"] == row["open_interest_all"]
        assert row["open_interest_other"] == "0"


# -- which codes exist ------------------------------------------------------------------------
def test_curated_codes_are_in_the_report_the_table_says():
    sandbox = make()
    for contract in CONTRACTS.values():
        query = pinned(contract.code, **{"$limit": "1", "$select": "cftc_contract_market_code"})
        in_disaggregated = bool(rows(sandbox, DIS, **query))
        assert in_disaggregated is (contract.report is DISAGGREGATED), contract.root
        assert rows(sandbox, LEG, **query), contract.root  # every contract is in legacy


def test_the_unknown_rule_for_other_codes():
    sandbox = make()
    query = {"$limit": "1"}
    assert rows(sandbox, DIS, **pinned("999999", **query)) == []
    assert rows(sandbox, LEG, **pinned("912345", **query)) == []
    commodity, financial = code_of_kind(True), code_of_kind(False)
    assert rows(sandbox, DIS, **pinned(commodity, **query))
    assert rows(sandbox, DIS, **pinned(financial, **query)) == []
    [row] = rows(sandbox, LEG, **pinned(financial, **query))
    assert row["market_and_exchange_names"] == (
        f"SANDBOX FINANCIAL {financial} - SANDBOX FUTURES EXCHANGE")
    for malformed in ("GC=F", "08869", "abcdef"):
        assert rows(sandbox, LEG, **pinned(malformed, **query)) == []


def test_young_contracts_have_fewer_weeks():
    body = rows(make(), LEG, **soda_params("124608", LEGACY))  # micro Dow, from 2022-07-26
    assert body[-1]["report_date_as_yyyy_mm_dd"] == "2022-07-26T00:00:00.000"
    assert len(body) == 109


# -- weeks from the clock, determinism --------------------------------------------------------
@pytest.mark.parametrize(("clock", "newest"), [
    (datetime(2024, 8, 23, 19, 29, tzinfo=UTC), "2024-08-13"),  # before Friday's release
    (datetime(2024, 8, 23, 19, 31, tzinfo=UTC), "2024-08-20"),
    (datetime(2024, 8, 20, 23, 0, tzinfo=UTC), "2024-08-13"),  # the Tuesday itself
    (datetime(2024, 12, 27, 20, 31, tzinfo=UTC), "2024-12-24"),  # winter: 20:30 UTC
    (datetime(2024, 12, 27, 20, 29, tzinfo=UTC), "2024-12-17"),
])
def test_the_newest_report_follows_the_friday_release(clock, newest):
    [row] = rows(make(clock), DIS, **pinned("088691", **{"$limit": "1", "$order":
                                                         "report_date_as_yyyy_mm_dd DESC"}))
    assert row["report_date_as_yyyy_mm_dd"][:10] == newest


def test_a_week_is_the_same_whatever_asks_for_it():
    old = rows(make(), DIS, **pinned("088691", **{"$where":
               "cftc_contract_market_code='088691' AND report_date_as_yyyy_mm_dd='2015-03-03'"}))
    later = make(datetime(2030, 1, 1, tzinfo=UTC))
    again = rows(later, DIS, **pinned("088691", **{"$where":
                 "report_date_as_yyyy_mm_dd = '2015-03-03T00:00:00.000' AND "
                 "cftc_contract_market_code IN ('088691', '084691')"}))
    assert len(old) == 1 and len(again) == 2
    assert [r for r in again if r["cftc_contract_market_code"] == "088691"] == old


# -- the SoQL subset ----------------------------------------------------------------------------
def test_select_order_limit_offset():
    sandbox = make()
    base = {"$select": "report_date_as_yyyy_mm_dd,open_interest_all",
            "$where": "cftc_contract_market_code='043602'"}
    newest = rows(sandbox, LEG, **base, **{"$order": "report_date_as_yyyy_mm_dd DESC",
                                          "$limit": "5"})
    assert [list(r) for r in newest] == [["report_date_as_yyyy_mm_dd", "open_interest_all"]] * 5
    oldest = rows(sandbox, LEG, **base, **{"$order": "report_date_as_yyyy_mm_dd ASC",
                                          "$limit": "2"})
    assert oldest[0]["report_date_as_yyyy_mm_dd"] == "1986-01-14T00:00:00.000"
    skipped = rows(sandbox, LEG, **base, **{"$order": "report_date_as_yyyy_mm_dd DESC",
                                           "$limit": "2", "$offset": "3"})
    assert skipped == newest[3:5]
    by_size = rows(sandbox, LEG, **base, **{"$order": "open_interest_all DESC", "$limit": "50"})
    sizes = [int(r["open_interest_all"]) for r in by_size]
    assert sizes == sorted(sizes, reverse=True)  # numbers sort as numbers
    assert len(rows(sandbox, LEG, **base)) == 1000  # SODA's default limit


def test_where_comparisons_and_simple_filters():
    sandbox = make()
    recent = rows(sandbox, DIS, **{
        "$where": "cftc_contract_market_code='088691' AND report_date_as_yyyy_mm_dd >= "
                  "'2024-08-01' AND open_interest_all > 0",
        "$select": "report_date_as_yyyy_mm_dd"})
    assert [r["report_date_as_yyyy_mm_dd"][:10] for r in recent] == [
        "2024-08-06", "2024-08-13", "2024-08-20"]
    simple = rows(sandbox, LEG, cftc_contract_market_code="099741",
                  report_date_as_yyyy_mm_dd="2024-08-20T00:00:00.000")
    assert len(simple) == 1 and simple[0]["contract_market_name"] == "EURO FX"
    quoted = rows(sandbox, LEG, **{"$where": "contract_market_name='DJIA x $5' AND "
                                   "cftc_contract_market_code IN ('124603','13874A')",
                                   "$limit": "3"})
    assert {r["cftc_contract_market_code"] for r in quoted} == {"124603"}
    escaped = rows(sandbox, LEG, **{"$where": "cftc_contract_market_code='O''REILLY'"})
    assert escaped == []


def test_without_a_code_the_dataset_is_the_curated_contracts():
    body = rows(make(), DIS, **{"$where": "report_date_as_yyyy_mm_dd='2024-08-20'",
                                "$select": "cftc_contract_market_code"})
    assert {r["cftc_contract_market_code"] for r in body} == {
        c.code for c in CONTRACTS.values() if c.report is DISAGGREGATED}


@pytest.mark.parametrize(("query", "code"), [
    ({"$select": "nope"}, "query.soql.no-such-column"),
    ({"$where": "nope='1'"}, "query.soql.no-such-column"),
    ({"$order": "nope DESC"}, "query.soql.no-such-column"),
    ({"$where": "cftc_contract_market_code='1' OR 1=1"}, "query.compiler.malformed"),
    ({"$where": "cftc_contract_market_code="}, "query.compiler.malformed"),
    ({"$where": "cftc_contract_market_code='1"}, "query.compiler.malformed"),
    ({"$where": "upper(cftc_contract_market_code)='1'"}, "query.compiler.malformed"),
    ({"$where": "cftc_contract_market_code IN ('1'"}, "query.compiler.malformed"),
    ({"$order": "report_date_as_yyyy_mm_dd SIDEWAYS"}, "query.compiler.malformed"),
    ({"$limit": "-1"}, "query.soql.invalid-parameter"),
    ({"$limit": "50001"}, "query.soql.invalid-parameter"),
    ({"$offset": "x"}, "query.soql.invalid-parameter"),
    ({"$group": "commodity"}, "query.soql.invalid-parameter"),
])
def test_refused_queries_answer_socratas_400(query, code):
    status, body, _ = get(make(), LEG, **query)
    assert status == 400
    assert body["code"] == code and body["error"] is True and body["message"]


def test_app_token_is_accepted_and_types_are_announced():
    status, body, headers = get(make(), LEG, **pinned("13874A", **{
        "$$app_token": "anything", "$limit": "1",
        "$select": "report_date_as_yyyy_mm_dd,open_interest_all,contract_market_name"}))
    assert status == 200 and len(body) == 1
    assert json.loads(headers["X-SODA2-Types"]) == ["floating_timestamp", "number", "text"]


def test_unknown_dataset_and_path_are_404():
    status, body, _ = get(make(), "/resource/abcd-1234.json")
    assert status == 404 and body["error"] is True and "abcd-1234" in body["message"]
    status, body, _ = get(make(), "/api/views/72hh-3qpy")
    assert status == 404 and body == {"code": "not_found", "error": True,
                                      "message": "Not found", "data": {}}


def test_host_routing_and_faults():
    sandbox = make()
    response = sandbox.handle("GET", "127.0.0.1", DIS, {"$limit": ["1"]},
                              {"X-Upstream-Host": HOST})
    assert response.status == 200
    [entry] = sandbox.requests_matching("/resource/")
    assert entry["provider"] == "cftc" and entry["upstream_host"] == HOST
    sandbox.configure(fail_rate=1.0)
    status, body, _ = get(sandbox, DIS)
    assert status == 503 and body["code"] == "service_unavailable"


# -- the service's parser on the sandbox ----------------------------------------------------
def test_the_service_parser_reads_the_sandbox_answer():
    sandbox = make()
    result = parse_commitments(rows(sandbox, LEG, **soda_params("13874A", LEGACY)), LEGACY)
    assert result.market_and_exchange_name == "E-MINI S&P 500 - CHICAGO MERCANTILE EXCHANGE"
    assert result.observations[-1].report_date == "2024-08-20"
    assert len(result.observations) == 260
    assert all((o.open_interest or 0) > 0 for o in result.observations)
    assert markets.newest_report(CLOCK) == date(2024, 8, 20)
