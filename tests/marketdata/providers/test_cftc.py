"""The CFTC Commitments of Traders provider (Socrata SODA): symbol lookup, the SoQL it sends,
parsing (strings -> int, null never 0, oldest first), error mapping and caching.

The one real recording (``cftc/socrata-cot/jun7-fc8e_…``, see MANIFEST.json) is a row of
dataset ``jun7-fc8e``: the **legacy** report, futures-and-options combined variant
(``futonly_or_combined: Combined``). It has the same columns as the legacy futures-only
dataset (``6dca-aqww``) this service reads, so the legacy parser must reproduce it exactly.
No disaggregated recording exists: ``DISAGGREGATED_ROWS`` are hand-made in the real shape
(Socrata string numbers, floating-timestamp dates, the real column names including the
double underscore of ``swap__positions_*``), with numbers that keep the report's identities.
"""

from __future__ import annotations

import dataclasses
import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
import responses

from marketdata.cache import cache_key
from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers import cftc
from marketdata.providers.cftc import (
    CONTRACTS,
    DISAGGREGATED,
    LEGACY,
    LEGACY_NULL_MEMBERS,
    POSITION_MEMBERS,
    CftcProvider,
    commitments,
    lookup,
    parse_commitments,
    report_date,
    socrata_int,
    soda_params,
)
from marketdata.providers.registry import get_provider
from marketdata.records.macro import CommitmentsObservation
from marketdata.records.members import as_json, members_of
from tests.conftest import UPSTREAM_DIR

RECORDING = "cftc/socrata-cot/jun7-fc8e_239747_2024-08-19_2024-08-21.json"
DISAGGREGATED_URL = "https://publicreporting.cftc.gov/resource/72hh-3qpy.json"
LEGACY_URL = "https://publicreporting.cftc.gov/resource/6dca-aqww.json"


def disaggregated_row(day: str, oi: int, **overrides: str | None) -> dict[str, str | None]:
    """A disaggregated futures-only row in Socrata's shape (values hand-made; the longs
    and the spreads add up to open interest, and so do the shorts)."""
    row = {
        "id": f"{day[2:4]}{day[5:7]}{day[8:10]}088691F",
        "market_and_exchange_names": "GOLD - COMMODITY EXCHANGE INC.",
        "report_date_as_yyyy_mm_dd": f"{day}T00:00:00.000",
        "contract_market_name": "GOLD", "cftc_contract_market_code": "088691",
        "cftc_market_code": "CMX ", "futonly_or_combined": "FutOnly",
        "open_interest_all": str(oi),
        "prod_merc_positions_long": "20000", "prod_merc_positions_short": "40000",
        "swap_positions_long_all": "15000", "swap__positions_short_all": "240000",
        "swap__positions_spread_all": "25000",
        "m_money_positions_long_all": "130000", "m_money_positions_short_all": "11000",
        "m_money_positions_spread": "36000",
        "other_rept_positions_long": str(oi - 20000 - 15000 - 130000 - 49000 - 73000),
        "other_rept_positions_short": str(oi - 40000 - 240000 - 11000 - 16000 - 73000),
        "other_rept_positions_spread": "12000",
        "tot_rept_positions_long_all": str(oi - 49000),
        "tot_rept_positions_short": str(oi - 16000),
        "nonrept_positions_long_all": "49000", "nonrept_positions_short_all": "16000",
        "change_in_open_interest_all": "-6344",
    }
    row.update(overrides)
    return {k: v for k, v in row.items() if v is not None}


# Newest first, as the service asks for them.
DISAGGREGATED_ROWS = [disaggregated_row("2026-09-29", 406456),
                      disaggregated_row("2026-09-22", 412800),
                      disaggregated_row("2026-09-15", 400000)]


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch):
    fast = dataclasses.replace(cftc.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001)
    monkeypatch.setattr(CftcProvider, "config", fast)


@pytest.fixture
def socrata():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def serve(mock: responses.RequestsMock, url: str, body, status: int = 200):
    return mock.add(responses.GET, re.compile(re.escape(url) + r"(\?.*)?$"),
                    body=json.dumps(body), status=status,
                    content_type="application/json;charset=utf-8")


def query_of(call) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(call.request.url).query).items()}


# -- the recording ----------------------------------------------------------------------------
def test_recording_is_a_legacy_row_with_the_columns_we_read(recording):
    [row] = recording(RECORDING)  # skips when ../shared/upstream is absent
    manifest = json.loads((UPSTREAM_DIR / "MANIFEST.json").read_text())
    records = manifest if isinstance(manifest, list) else manifest.get("files", [])
    url = next(r["url"] for r in records if r["path"] == RECORDING)
    assert "/resource/jun7-fc8e.json" in url  # legacy, futures-and-options combined
    assert row["futonly_or_combined"] == "Combined"
    assert set(cftc.COLUMNS[LEGACY.name].values()) <= set(row)
    assert "noncomm_positions_long_all" in row and "m_money_positions_long_all" not in row


def test_legacy_parser_reproduces_the_recording_exactly(recording):
    result = parse_commitments(recording(RECORDING), LEGACY)
    assert result.report == "legacy"
    assert result.contract_market_code == "239747"
    assert result.market_and_exchange_name == (
        "MICRO E-MINI RUSSELL 2000 INDX - CHICAGO MERCANTILE EXCHANGE")
    assert as_json(result.observations) == [{
        "reportDate": "2024-08-20", "openInterest": 19404,
        "managedMoneyLong": None, "managedMoneyShort": None, "managedMoneySpread": None,
        "nonreportableLong": 11313, "nonreportableShort": 8624,
        "otherReportableLong": None, "otherReportableShort": None,
        "otherReportableSpread": None, "producerMerchantLong": None,
        "producerMerchantShort": None, "swapDealerLong": None, "swapDealerShort": None,
        "swapDealerSpread": None, "totalReportableLong": 8091, "totalReportableShort": 10780,
    }]
    assert list(as_json(result.observations[0])) == list(cftc.OBSERVATION_MEMBERS)


def test_recording_keeps_the_legacy_identities(recording):
    """A cross-check that the columns mean what the mapping says: reportable + non-
    reportable = open interest, on both sides."""
    [row] = recording(RECORDING)
    [obs] = as_json(parse_commitments([row], LEGACY).observations)
    assert obs["totalReportableLong"] + obs["nonreportableLong"] == obs["openInterest"]
    assert obs["totalReportableShort"] + obs["nonreportableShort"] == obs["openInterest"]
    assert int(row["noncomm_positions_long_all"]) + int(row["noncomm_postions_spread_all"]) \
        + int(row["comm_positions_long_all"]) == obs["totalReportableLong"]


# -- disaggregated parsing ---------------------------------------------------------------------
def test_disaggregated_rows_parse_oldest_first_with_every_member():
    result = parse_commitments(DISAGGREGATED_ROWS, DISAGGREGATED)
    observations = as_json(result.observations)
    assert [o["reportDate"] for o in observations] == ["2026-09-15", "2026-09-22", "2026-09-29"]
    newest = observations[-1]
    assert newest == {
        "reportDate": "2026-09-29", "openInterest": 406456,
        "managedMoneyLong": 130000, "managedMoneyShort": 11000, "managedMoneySpread": 36000,
        "nonreportableLong": 49000, "nonreportableShort": 16000,
        "otherReportableLong": 119456, "otherReportableShort": 26456,
        "otherReportableSpread": 12000, "producerMerchantLong": 20000,
        "producerMerchantShort": 40000, "swapDealerLong": 15000, "swapDealerShort": 240000,
        "swapDealerSpread": 25000, "totalReportableLong": 357456,
        "totalReportableShort": 390456,
    }
    longs = sum(newest[m] for m in ("producerMerchantLong", "swapDealerLong",
                                    "managedMoneyLong", "otherReportableLong",
                                    "nonreportableLong"))
    spreads = sum(newest[m] for m in ("swapDealerSpread", "managedMoneySpread",
                                      "otherReportableSpread"))
    assert longs + spreads == newest["openInterest"]
    assert result.contract_market_code == "088691"
    assert result.market_and_exchange_name == "GOLD - COMMODITY EXCHANGE INC."


def test_missing_or_null_values_are_null_never_zero():
    rows = [disaggregated_row("2026-09-29", 406456, swap__positions_spread_all=None,
                              m_money_positions_spread=""),
            {**disaggregated_row("2026-09-22", 412800), "prod_merc_positions_long": None}]
    older, newer = parse_commitments(rows, DISAGGREGATED).observations
    assert newer.swap_dealer_spread is None and newer.managed_money_spread is None
    assert older.producer_merchant_long is None
    assert newer.open_interest == 406456


def test_header_comes_from_the_newest_row_whatever_the_upstream_order():
    renamed = disaggregated_row("2026-09-29", 1000,
                                market_and_exchange_names="  GOLD (RENAMED) - COMEX ")
    rows = [disaggregated_row("2026-09-22", 900), renamed, disaggregated_row("2026-09-15", 800)]
    result = parse_commitments(rows, DISAGGREGATED)
    assert result.market_and_exchange_name == "GOLD (RENAMED) - COMEX"
    assert [o.open_interest for o in result.observations] == [800, 900, 1000]


def test_rows_without_a_date_are_left_out_and_a_repeated_date_keeps_the_first():
    rows = [disaggregated_row("2026-09-29", 1000), disaggregated_row("2026-09-29", 5),
            {**disaggregated_row("2026-09-22", 900), "report_date_as_yyyy_mm_dd": "soon"},
            {"open_interest_all": "7"}, "not a row", None]
    result = parse_commitments(rows, DISAGGREGATED)
    assert [(o.report_date, o.open_interest) for o in result.observations] == [
        ("2026-09-29", 1000)]


def test_an_empty_array_is_an_empty_result():
    result = parse_commitments([], LEGACY)
    assert result.observations == [] and result.contract_market_code is None


@pytest.mark.parametrize("payload", [{"rows": []}, "text", None, 3])
def test_a_body_that_is_not_an_array_is_a_bad_response(payload):
    with pytest.raises(UpstreamBadResponse) as caught:
        parse_commitments(payload, DISAGGREGATED)
    assert caught.value.provider == "cftc" and caught.value.status_code == 502


@pytest.mark.parametrize(("raw", "expected"), [
    ("19404", 19404), ("0", 0), ("-270", -270), (" 12 ", 12), ("12.0", 12), (7, 7),
    ("12.5", None), ("", None), (None, None), ("abc", None), ("NaN", None),
    ("Infinity", None), (True, None), ([], None),
])
def test_socrata_numbers(raw, expected):
    assert socrata_int(raw) == expected


@pytest.mark.parametrize(("raw", "expected"), [
    ("2024-08-20T00:00:00.000", "2024-08-20"), ("2024-08-20", "2024-08-20"),
    ("2024-02-30T00:00:00.000", None), ("20240820", None), ("", None), (None, None),
    (20240820, None),
])
def test_report_dates(raw, expected):
    assert report_date(raw) == expected


# -- symbols and the SoQL --------------------------------------------------------------------
REFERENCE_ROOTS = {"GC=F": "088691", "SI=F": "084691", "PL=F": "076651", "HG=F": "085692",
                   "CL=F": "067651", "ZC=F": "002602", "ZW=F": "001602", "ZS=F": "005602"}
FINANCIAL_ROOTS = {"ES=F": "13874A", "NQ=F": "209742", "YM=F": "124603", "RTY=F": "239742",
                   "ZN=F": "043602", "ZB=F": "020601", "6E=F": "099741", "6J=F": "097741",
                   "M2K=F": "239747"}


def test_the_curated_table():
    for root, code in REFERENCE_ROOTS.items():
        assert CONTRACTS[root].code == code and CONTRACTS[root].report is DISAGGREGATED
    # The reference maps NG=F to 03565B (the financially settled Henry Hub look-alike);
    # the NYMEX natural gas future is 023651.
    assert CONTRACTS["NG=F"].code == "023651"
    for root, code in FINANCIAL_ROOTS.items():
        assert CONTRACTS[root].code == code and CONTRACTS[root].report is LEGACY
    codes = [c.code for c in CONTRACTS.values()]
    assert len(codes) == len(set(codes))
    assert all(cftc.CODE_PATTERN.fullmatch(code) for code in codes)
    assert all(root.endswith("=F") and root == root.upper() for root in CONTRACTS)


def test_legacy_null_members():
    assert set(LEGACY_NULL_MEMBERS) == {
        "managedMoneyLong", "managedMoneyShort", "managedMoneySpread", "otherReportableLong",
        "otherReportableShort", "otherReportableSpread", "producerMerchantLong",
        "producerMerchantShort", "swapDealerLong", "swapDealerShort", "swapDealerSpread"}
    assert DISAGGREGATED.null_members == ()
    assert set(POSITION_MEMBERS) == set(cftc.COLUMNS[DISAGGREGATED.name])
    for report in (DISAGGREGATED, LEGACY):  # the record's members are the columns read
        assert set(report.members) == set(cftc.COLUMNS[report.name])
    # The record says which members the legacy report leaves null (the OpenAPI document).
    assert {m.name for m in members_of(CommitmentsObservation)
            if "legacy report" in (m.description or "")} == set(LEGACY_NULL_MEMBERS)


@pytest.mark.parametrize(("symbol", "code", "reports"), [
    ("GC=F", "088691", ("disaggregated", "legacy")),
    ("ES=F", "13874A", ("legacy", "disaggregated")),
    ("13874A", "13874A", ("legacy", "disaggregated")),  # a curated code: its own report
    ("088691", "088691", ("disaggregated", "legacy")),
    ("123456", "123456", ("disaggregated", "legacy")),  # any code: disaggregated first
    ("1170E1", "1170E1", ("disaggregated", "legacy")),
    ("023A55", "023A55", ("disaggregated", "legacy")),
])
def test_lookup(symbol, code, reports):
    found = lookup(symbol)
    assert (found.symbol, found.code) == (symbol, code)
    assert tuple(r.name for r in found.reports) == reports


@pytest.mark.parametrize("symbol", ["FOO=F", "GC", "AAPL", "08869", "0886911", "A88691",
                                    "08869'", "088691'", "^GSPC", "EURUSD=X", ""])
def test_lookup_refuses_what_is_neither_a_code_nor_a_root(symbol):
    with pytest.raises(NotFound):
        lookup(symbol)


def test_soda_params():
    params = soda_params("088691", DISAGGREGATED)
    assert params["$where"] == "cftc_contract_market_code='088691'"
    assert params["$order"] == "report_date_as_yyyy_mm_dd DESC"
    assert params["$limit"] == "260"
    columns = params["$select"].split(",")
    assert columns[:3] == ["report_date_as_yyyy_mm_dd", "cftc_contract_market_code",
                           "market_and_exchange_names"]
    assert "swap__positions_short_all" in columns and "swap__positions_spread_all" in columns
    assert "swap_positions_short_all" not in columns
    assert set(cftc.COLUMNS[DISAGGREGATED.name].values()) <= set(columns)
    legacy = soda_params("13874A", LEGACY)["$select"].split(",")
    assert set(legacy) == {"report_date_as_yyyy_mm_dd", "cftc_contract_market_code",
                           "market_and_exchange_names", *cftc.COLUMNS[LEGACY.name].values()}


@pytest.mark.parametrize("code", ["08869'", "0' OR '1'='1", "088691 ", "088691;", "x"])
def test_no_quote_or_operator_ever_reaches_the_soql(code):
    with pytest.raises(NotFound):
        soda_params(code, LEGACY)


# -- through the client ----------------------------------------------------------------------
def test_fetch_sends_the_soql_and_parses(socrata):
    serve(socrata, DISAGGREGATED_URL, DISAGGREGATED_ROWS)
    result = commitments(lookup("GC=F"))
    assert result.report == "disaggregated" and len(result.observations) == 3
    [call] = socrata.calls
    assert call.request.url.startswith(DISAGGREGATED_URL + "?")
    assert query_of(call) == soda_params("088691", DISAGGREGATED)
    # Keyless: no app token, no credentials of any kind.
    assert "app_token" not in call.request.url
    assert not {"X-App-Token", "Authorization"} & set(call.request.headers)


def test_legacy_fallback_when_the_disaggregated_report_has_no_rows(socrata, recording):
    serve(socrata, DISAGGREGATED_URL, [])
    serve(socrata, LEGACY_URL, recording(RECORDING))
    result = commitments(lookup("654321"))
    assert result.report == "legacy"
    assert [c.request.url.split("?")[0] for c in socrata.calls] == [DISAGGREGATED_URL,
                                                                   LEGACY_URL]
    assert result.observations[0].open_interest == 19404


def test_no_rows_in_either_report_is_not_found(socrata):
    serve(socrata, DISAGGREGATED_URL, [])
    serve(socrata, LEGACY_URL, [])
    with pytest.raises(NotFound) as caught:
        commitments(lookup("654321"))
    assert caught.value.detail == "No weekly positioning data found for '654321'"
    with pytest.raises(NotFound) as caught:
        commitments(lookup("ES=F"))
    assert "(CFTC contract market code 13874A)" in caught.value.detail


def test_answers_are_cached_six_hours_and_empty_ones_too(socrata):
    serve(socrata, DISAGGREGATED_URL, [])
    serve(socrata, LEGACY_URL, DISAGGREGATED_ROWS[:1])
    for _ in range(3):
        commitments(lookup("654321"))
    assert len(socrata.calls) == 2
    assert cftc.COT_TTL.ttl() == 21600 and not cftc.COT_TTL.market_aware
    from django.core.cache import cache

    assert cache.get(cache_key("cftc", "disaggregated", {"code": "654321", "weeks": 260}))


@pytest.mark.parametrize("status", [400, 403, 404, 410])
def test_socrata_4xx_is_a_bad_response_without_its_body(socrata, status):
    serve(socrata, DISAGGREGATED_URL, {"code": "query.soql.no-such-column", "error": True,
                                       "message": "No such column: secret_column"}, status)
    with pytest.raises(UpstreamBadResponse) as caught:
        commitments(lookup("GC=F"))
    error = caught.value
    assert error.provider == "cftc" and error.status_code == 502
    assert error.upstream_status == status
    assert "secret_column" not in error.detail and "?" not in error.detail


def test_a_body_that_is_not_json_is_a_bad_response(socrata):
    socrata.add(responses.GET, re.compile(re.escape(DISAGGREGATED_URL) + r".*"),
                body="<html>maintenance</html>", content_type="text/html")
    with pytest.raises(UpstreamBadResponse):
        commitments(lookup("GC=F"))


def test_connection_errors_are_unavailable(socrata):
    socrata.add(responses.GET, re.compile(re.escape(DISAGGREGATED_URL) + r".*"),
                body=requests.exceptions.ConnectionError("refused"))
    from marketdata.errors import UpstreamUnavailable

    with pytest.raises(UpstreamUnavailable) as caught:
        commitments(lookup("GC=F"))
    assert caught.value.provider == "cftc"


def test_registered_provider():
    provider = get_provider("cftc")
    assert isinstance(provider, CftcProvider)
    assert provider.config.hosts == ("publicreporting.cftc.gov",)
    assert cftc.report_url(DISAGGREGATED) == DISAGGREGATED_URL
    assert cftc.report_url(LEGACY) == LEGACY_URL
