"""GET /v2/short/{symbol}/volume and /v2/short/{symbol}/interest: the answers, `fields`,
paging, `order`, CSV; every error status (400 for a bad window or venue before any upstream
call, 404 for a malformed or unlisted symbol, 502/503/504/429 naming FINRA), the partial
answer with its notices; and the in-process sandbox.

No recording of FINRA exists: the files are hand-made in the published layout (header,
lines, trailer), the Query API's records with its dataset's field names.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
from datetime import UTC, date, datetime, timedelta

import pytest
import requests
import responses
from django.urls import resolve

from apps.short.views import V2ShortInterestView, V2ShortVolumeView
from marketdata.providers import finra
from marketdata.providers.finra import FinraProvider
from marketdata.records import short as records
from marketdata.records.members import member_names
from marketdata.records.short import ShortInterestRow, ShortVolumeRow
from tests.apps.payloads import FAILURES
from tests.apps.test_malformed_symbols_api import IDS, VALUES
from tests.apps.test_v2_disclosures_api import assert_api_error
from tests.marketdata.providers.test_finra import record

HEADER = "Date|Symbol|ShortVolume|ShortExemptVolume|TotalVolume|Market"
DAILY = "https://cdn.finra.org/equity/regsho/daily/"
INTEREST = "https://api.finra.org/data/group/otcMarket/name/consolidatedShortInterest"
AT = datetime(2025, 1, 3, 22, 0, tzinfo=UTC)  # Friday, 17:00 in New York
ROW_MEMBERS = member_names(ShortVolumeRow)
SETTLEMENT_MEMBERS = member_names(ShortInterestRow)


def day_file(day: date) -> str:
    """A consolidated file of ``day``: AAPL's numbers grow by a day's ordinal."""
    n = day.toordinal() % 100
    stamp = f"{day:%Y%m%d}"
    lines = [f"{stamp}|AAPL|{1000 + n}|{n}|{4000 + n}|B,Q,N", f"{stamp}|BRK.B|300|0|900|Q,N",
             f"{stamp}|MSFT|2000.5|0|5000.25|Q"]
    return "\n".join([HEADER, *lines, "3"]) + "\n"


@pytest.fixture(autouse=True)
def _setup(monkeypatch):
    monkeypatch.setattr(records, "now", lambda: AT)
    fast = dataclasses.replace(finra.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001)
    monkeypatch.setattr(FinraProvider, "config", fast)


def serve_every_file(mock, prefix: str = r"[A-Z]{4}") -> None:
    """Every file of every day published (``day_file``'s lines, whatever the venue)."""

    def answer(request):
        stamp = re.search(r"shvol(\d{8})\.txt", request.url).group(1)
        day = date(int(stamp[:4]), int(stamp[4:6]), int(stamp[6:]))
        return 200, {"Content-Type": "text/plain"}, day_file(day)

    mock.add_callback(responses.GET, re.compile(re.escape(DAILY) + prefix + r"shvol\d{8}\.txt"),
                      callback=answer)


@pytest.fixture
def files(yahoo):
    """Every consolidated file published."""
    serve_every_file(yahoo.mock, "CNMS")
    return yahoo


def file_calls(mock) -> list[str]:
    return sorted(re.search(r"shvol(\d{8})", c.request.url).group(1) for c in mock.calls
                  if "shvol" in c.request.url)


def test_both_paths_resolve():
    assert resolve("/v2/short/AAPL/volume").func.view_class is V2ShortVolumeView
    assert resolve("/v2/short/AAPL/interest").func.view_class is V2ShortInterestView


# -- volume ------------------------------------------------------------------------------------
def test_the_default_window_is_the_latest_20_trading_days(api, files):
    response = api.get("/v2/short/aapl/volume")
    assert response.status_code == 200, response.content
    body = response.json()
    # 20 sessions back from Friday 2025-01-03: no weekend, Christmas or New Year's Day.
    assert (body["symbol"], body["venue"], body["start"], body["end"]) == \
        ("AAPL", "consolidated", "2024-12-05", "2025-01-03")
    assert len(body["rows"]) == 20 and body["notices"] == []
    assert len(file_calls(files.mock)) == 20
    assert "20241225" not in file_calls(files.mock) and "20250101" not in file_calls(files.mock)
    n = date(2025, 1, 3).toordinal() % 100
    assert body["rows"][0] == {"date": "2025-01-03", "venue": "consolidated",
                               "shortVolume": 1000 + n, "shortExemptVolume": n,
                               "totalVolume": 4000 + n,
                               "ratio": round((1000 + n) / (4000 + n), 4), "market": "B,Q,N"}
    assert list(body["rows"][0]) == list(ROW_MEMBERS)
    assert [row["date"] for row in body["rows"]] == sorted(
        (row["date"] for row in body["rows"]), reverse=True)


def test_a_window_fractional_shares_and_a_class_share(api, files):
    body = api.get("/v2/short/MSFT/volume?start=2024-12-30&end=2025-01-02").json()
    assert [row["date"] for row in body["rows"]] == ["2025-01-02", "2024-12-31", "2024-12-30"]
    assert body["rows"][0]["shortVolume"] == 2000.5 and body["rows"][0]["ratio"] == 0.4001
    brk = api.get("/v2/short/BRK-B/volume?start=2025-01-02&end=2025-01-03").json()
    assert brk["symbol"] == "BRK-B" and [r["totalVolume"] for r in brk["rows"]] == [900, 900]


def test_an_end_after_today_is_today(api, files):
    body = api.get("/v2/short/AAPL/volume?start=2025-01-02&end=2025-02-01").json()
    assert body["end"] == "2025-01-03" and len(body["rows"]) == 2


def test_fields_paging_order_and_csv(api, files):
    query = "start=2024-12-23&end=2025-01-03"
    page = api.get(f"/v2/short/AAPL/volume?{query}&limit=3&fields=ratio&order=asc").json()
    assert page["rows"]["nodes"] == [
        {"date": d, "ratio": page["rows"]["nodes"][i]["ratio"]}
        for i, d in enumerate(["2024-12-23", "2024-12-24", "2024-12-26"])]
    assert page["rows"]["pageInfo"]["hasNextPage"] and page["notices"] == []
    rest = api.get(f"/v2/short/AAPL/volume?{query}&order=asc&cursor="
                   f"{page['rows']['pageInfo']['endCursor']}").json()
    assert rest["rows"]["nodes"][0]["date"] == "2024-12-27"
    text = api.get(f"/v2/short/AAPL/volume?{query}&format=csv").content.decode()
    table = list(csv.reader(io.StringIO(text)))
    assert table[0] == list(ROW_MEMBERS) and len(table) == 9 and table[1][0] == "2025-01-03"


def test_a_file_not_out_yet_and_a_failed_file_are_noticed(api, yahoo):
    def answer(request):
        stamp = re.search(r"shvol(\d{8})\.txt", request.url).group(1)
        if stamp == "20250103":
            return 403, {"Content-Type": "application/xml"}, "<Error>AccessDenied</Error>"
        if stamp == "20241231":
            return 500, {"Content-Type": "text/html"}, "<html>error</html>"
        day = date(int(stamp[:4]), int(stamp[4:6]), int(stamp[6:]))
        return 200, {"Content-Type": "text/plain"}, day_file(day)

    yahoo.mock.add_callback(responses.GET, re.compile(re.escape(DAILY) + r".*"),
                            callback=answer)
    response = api.get("/v2/short/AAPL/volume?start=2024-12-30&end=2025-01-03")
    assert response.status_code == 200
    body = response.json()
    assert [row["date"] for row in body["rows"]] == ["2025-01-02", "2024-12-30"]
    assert body["notices"][0] == "2024-12-31 consolidated: left out, the file could not be " \
                                 "read (FINRA answered HTTP 500)"
    assert body["notices"][1] == "2025-01-03 consolidated: not published by FINRA (yet)"


def test_venue_all_one_row_per_facility(api, yahoo):
    day = date(2025, 1, 2)
    for prefix, code in (("FNSQ", "Q"), ("FNQC", "B"), ("FNYX", "N"), ("FNRA", "D"),
                         ("FORF", "O")):
        lines = [] if code in "DO" else [f"20250102|AAPL|10|0|{ord(code)}|{code}"]
        yahoo.get(f"{DAILY}{prefix}shvol20250102.txt", "\n".join([HEADER, *lines, "0"]),
                  content_type="text/plain")
    body = api.get("/v2/short/AAPL/volume?venue=all&start=2025-01-02&end=2025-01-02").json()
    assert [(r["venue"], r["totalVolume"]) for r in body["rows"]] == [
        ("nasdaq-carteret", ord("Q")), ("nasdaq-chicago", ord("B")), ("nyse", ord("N"))]
    assert not [c for c in yahoo.mock.calls if "CNMS" in c.request.url]
    assert day.isoformat() == body["start"] == body["end"]


@pytest.mark.parametrize(("query", "param"), [
    ("start=2025-01-03&end=2025-01-02", "end"),
    ("start=2024-09-01&end=2025-01-03", "end"),  # 124 days
    ("venue=all&start=2024-11-01&end=2025-01-03", "end"),  # over 30 days with all
    ("venue=nasdaq", "venue"), ("venue=", "venue"),
    ("start=2025-13-01", "start"), ("end=yesterday", "end"),
    ("start=2025-02-01", "start"),  # after today
    ("limit=-1", "limit"), ("order=newest", "order"),
])
def test_a_bad_query_is_400_before_any_upstream_call(api, yahoo, query, param):
    body = assert_api_error(api.get(f"/v2/short/AAPL/volume?{query}"), 400)
    assert body["error"].split(":")[0] == param
    assert not [c for c in yahoo.mock.calls if "finra" in c.request.url]


def test_the_window_cap_is_inclusive(api, files):
    assert api.get("/v2/short/AAPL/volume?start=2024-10-05&end=2025-01-03").status_code == 200
    assert api.get("/v2/short/AAPL/volume?venue=all&start=2024-12-03&end=2025-01-03"
                   ).status_code == 400


def test_the_default_window_of_every_venue_stays_within_its_cap(api, yahoo, monkeypatch):
    """Twenty sessions back from 2025-01-21 reach into 2024-12-19/20 (the year-end and
    January holidays), over 30 days: with venue=all the default start is end - 30 days."""
    monkeypatch.setattr(records, "now", lambda: datetime(2025, 1, 21, 22, 0, tzinfo=UTC))
    serve_every_file(yahoo.mock)
    body = api.get("/v2/short/AAPL/volume?venue=all").json()
    assert (body["start"], body["end"]) == ("2024-12-22", "2025-01-21")
    assert api.get("/v2/short/AAPL/volume").json()["start"] < "2024-12-22"


@pytest.mark.parametrize("raw", VALUES, ids=IDS)
def test_a_malformed_symbol_is_404_without_upstream_call(api, yahoo, raw):
    assert_api_error(api.get(f"/v2/short/{raw}/volume"), 404)
    assert_api_error(api.get(f"/v2/short/{raw}/interest"), 404)
    assert not [c for c in yahoo.mock.calls if "finra" in c.request.url]


def test_a_symbol_the_files_do_not_list_is_404(api, files):
    body = assert_api_error(api.get("/v2/short/ZZZZ/volume?start=2025-01-02"), 404)
    assert "do not list 'ZZZZ'" in body["error"]


def fail_files(mock, kind: str) -> None:
    pattern = re.compile(re.escape(DAILY) + r".*")
    if kind == "yahoo_500":
        mock.add(responses.GET, pattern, status=500, body="<html>error</html>")
    elif kind == "yahoo_429":
        mock.add(responses.GET, pattern, status=429, body="Too Many Requests")
    elif kind == "connection_error":
        mock.add(responses.GET, pattern, body=requests.exceptions.ConnectionError("refused"))
    else:
        mock.add(responses.GET, pattern, body=requests.exceptions.ReadTimeout("timed out"))


@pytest.mark.parametrize("kind", list(FAILURES))
def test_every_file_failing_names_finra(api, yahoo, kind):
    fail_files(yahoo.mock, kind)
    status, _ = FAILURES[kind]
    body = assert_api_error(api.get("/v2/short/AAPL/volume?start=2025-01-02"), status)
    assert body["provider"] == "finra"


# -- interest ----------------------------------------------------------------------------------
RECORDS = [record("2024-12-13", 120_000_000, 100_000_000),
           record("2024-12-31", 100_000_000, 120_000_000),
           record("2024-11-29", 100_000_000, 80_000_000)]


def serve_interest(yahoo, body, status: int = 200) -> None:
    yahoo.mock.add(responses.POST, INTEREST, status=status, content_type="application/json",
                   body=json.dumps(body))


def test_short_interest_newest_first(api, yahoo):
    serve_interest(yahoo, RECORDS)
    response = api.get("/v2/short/AAPL/interest")
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["symbol"], body["name"], body["start"], body["end"]) == \
        ("AAPL", "Apple Inc. Common Stock", "2024-01-04", "2025-01-03")
    assert body["settlements"][0] == {
        "settlementDate": "2024-12-31", "sharesShort": 100_000_000,
        "previousSharesShort": 120_000_000, "change": -20_000_000, "changePercent": -16.67,
        "averageDailyVolume": 50_000_000, "daysToCover": 2.0, "stockSplit": False,
        "revised": False, "market": "NNM"}
    assert [s["settlementDate"] for s in body["settlements"]] == [
        "2024-12-31", "2024-12-13", "2024-11-29"]
    (call,) = yahoo.mock.calls
    sent = json.loads(call.request.body)
    assert sent["dateRangeFilters"][0]["startDate"] == "2024-01-04"
    assert sent["compareFilters"][0]["fieldValue"] == "AAPL"


def test_interest_fields_paging_and_csv(api, yahoo):
    serve_interest(yahoo, RECORDS)
    page = api.get("/v2/short/AAPL/interest?limit=2&order=asc&fields=daysToCover").json()
    assert page["settlements"]["nodes"] == [
        {"settlementDate": "2024-11-29", "daysToCover": 2.0},
        {"settlementDate": "2024-12-13", "daysToCover": 2.4}]
    text = api.get("/v2/short/AAPL/interest?format=csv").content.decode()
    table = list(csv.reader(io.StringIO(text)))
    assert table[0] == list(SETTLEMENT_MEMBERS) and len(table) == 4


@pytest.mark.parametrize(("query", "param"), [
    ("start=2025-01-03&end=2024-01-01", "end"), ("start=2015-01-01&end=2025-01-01", "end"),
    ("start=2025-02-01", "start"), ("end=2025-1-1", "end"), ("cursor=!!", "cursor")])
def test_a_bad_interest_query_is_400_before_any_upstream_call(api, yahoo, query, param):
    body = assert_api_error(api.get(f"/v2/short/AAPL/interest?{query}"), 400)
    assert body["error"].split(":")[0] == param
    assert not yahoo.mock.calls or all("finra" not in c.request.url for c in yahoo.mock.calls)


def test_no_settlement_is_404(api, yahoo):
    serve_interest(yahoo, [])
    body = assert_api_error(api.get("/v2/short/ZZZZ/interest"), 404)
    assert "no short interest for 'ZZZZ'" in body["error"]


@pytest.mark.parametrize(("kind", "status"), [
    (403, 502), (500, 502), (429, 429),
    (requests.exceptions.ConnectionError("refused"), 503),
    (requests.exceptions.ReadTimeout("timed out"), 504)])
def test_interest_failures_name_finra(api, yahoo, kind, status):
    if isinstance(kind, int):
        yahoo.mock.add(responses.POST, INTEREST, status=kind, body="{}")
    else:
        yahoo.mock.add(responses.POST, INTEREST, body=kind)
    body = assert_api_error(api.get("/v2/short/AAPL/interest"), status)
    assert body["provider"] == "finra"


# -- the sandbox ---------------------------------------------------------------------------------
SANDBOX_AT = datetime(2025, 1, 3, 23, 30, tzinfo=UTC)  # 18:30 in New York: files are out


@pytest.fixture
def sandboxed(sandbox_upstream, monkeypatch):
    sandbox_upstream.set_clock(lambda: SANDBOX_AT)
    monkeypatch.setattr(records, "now", lambda: SANDBOX_AT)
    yield sandbox_upstream
    sandbox_upstream.set_clock(None)


def test_sandbox_volume_of_an_equity_an_etf_and_a_class_share(api, sandboxed):
    for symbol in ("AAPL", "SPY", "BRK-B"):
        body = api.get(f"/v2/short/{symbol}/volume").json()
        assert len(body["rows"]) == 20 and body["notices"] == []
        for row in body["rows"]:
            assert 0 < row["shortVolume"] <= row["totalVolume"] and 0 < row["ratio"] < 1
    every = api.get("/v2/short/AAPL/volume?venue=all&start=2025-01-02&end=2025-01-03").json()
    assert {row["venue"] for row in every["rows"]} >= {"nasdaq-carteret", "nyse",
                                                      "nasdaq-chicago"}
    consolidated = {r["date"]: r["totalVolume"] for r in api.get(
        "/v2/short/AAPL/volume?start=2025-01-02&end=2025-01-03").json()["rows"]}
    for day in ("2025-01-02", "2025-01-03"):
        parts = [r["totalVolume"] for r in every["rows"] if r["date"] == day
                 and r["venue"] != "orf"]
        assert sum(parts) == consolidated[day]


def test_sandbox_otc_only_in_the_orf_and_unknown_symbols(api, sandboxed):
    assert api.get("/v2/short/TCEHY/volume?venue=orf").json()["rows"]
    assert_api_error(api.get("/v2/short/TCEHY/volume"), 404)
    assert_api_error(api.get("/v2/short/ZZZZ/volume"), 404)


def test_sandbox_short_interest(api, sandboxed):
    body = api.get("/v2/short/BRK-B/interest").json()
    assert body["symbol"] == "BRK-B" and len(body["settlements"]) == 23
    newest, older = body["settlements"][0], body["settlements"][1]
    assert newest["settlementDate"] == "2024-12-13"
    assert newest["previousSharesShort"] == older["sharesShort"]
    assert_api_error(api.get("/v2/short/ZZZZ/interest"), 404)


def test_sandbox_today_before_publication(api, sandboxed, monkeypatch):
    early = SANDBOX_AT - timedelta(hours=1)  # 17:30 in New York: closed, not published
    sandboxed.set_clock(lambda: early)
    monkeypatch.setattr(records, "now", lambda: early)
    body = api.get("/v2/short/AAPL/volume").json()
    assert body["rows"][0]["date"] == "2025-01-02"
    assert body["notices"] == ["2025-01-03 consolidated: not published by FINRA (yet)"]
