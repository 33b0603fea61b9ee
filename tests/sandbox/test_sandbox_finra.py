"""The simulated FINRA: the daily short sale volume files (layout, publication by the clock,
the CDN's 403 for a file that does not exist, the consolidated file as the sum of the
facilities', volumes from the price simulator) and the Query API's consolidated short
interest (filters, fields, paging, JSON or CSV, settlements by the clock); each through the
service's real parsers."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from itertools import pairwise

import pytest

from marketdata.providers import finra
from marketdata.providers.finra import interest_query, parse_daily_file
from marketdata.sandbox import UpstreamSandbox
from marketdata.sandbox.finra import files, interest
from marketdata.sandbox.instruments import get_instrument
from marketdata.sandbox.prices import get_series

CDN, API = "cdn.finra.org", "api.finra.org"
INTEREST_PATH = "/data/group/otcMarket/name/consolidatedShortInterest"
# Friday 2025-01-03, 18:30 in New York: that day's files are out.
CLOCK = datetime(2025, 1, 3, 23, 30, tzinfo=UTC)
DAY = date(2025, 1, 2)


def make(clock: datetime = CLOCK) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock)


def daily(sandbox: UpstreamSandbox, prefix: str, day: date):
    return sandbox.handle("GET", CDN, f"/equity/regsho/daily/{prefix}shvol{day:%Y%m%d}.txt",
                          {}, {})


def post(sandbox: UpstreamSandbox, body: dict, accept: str = "application/json"):
    return sandbox.handle("POST", API, INTEREST_PATH, {},
                          {"Accept": accept, "Content-Type": "application/json"},
                          json.dumps(body).encode())


def test_a_file_in_the_published_layout():
    response = daily(make(), "CNMS", DAY)
    assert response.status == 200
    lines = response.body.decode().splitlines()
    assert lines[0] == "Date|Symbol|ShortVolume|ShortExemptVolume|TotalVolume|Market"
    assert lines[-1] == str(len(lines) - 2)  # the trailer counts the records
    assert all(line.startswith("20250102|") for line in lines[1:-1])
    symbols = [line.split("|")[1] for line in lines[1:-1]]
    assert symbols == sorted(symbols) and "BRK.B" in symbols and "BRK-B" not in symbols


def test_the_consolidated_file_is_the_sum_of_the_facilities():
    sandbox = make()
    parsed = {prefix: parse_daily_file(daily(sandbox, prefix, DAY).body.decode(), DAY)
              for prefix in files.PREFIXES}
    assert set(parsed["FORF"]) == set(files.OTC)
    assert not set(files.OTC) & set(parsed["CNMS"])
    for symbol, (short, exempt, total, market) in parsed["CNMS"].items():
        parts = {code: parsed[prefix][symbol] for prefix, code in files.FACILITIES.items()
                 if prefix != "FORF" and symbol in parsed[prefix]}
        assert market == ",".join(c for c in files.CONSOLIDATED_ORDER if c in parts)
        assert total == sum(p[2] for p in parts.values())
        assert short == sum(p[0] for p in parts.values())
        assert exempt == sum(p[1] for p in parts.values())
        assert 0 <= exempt <= short <= total
        assert parts["Q"][2] > parts["N"][2] > parts["B"][2] > 0
    for prefix, code in files.FACILITIES.items():
        assert {row[3] for row in parsed[prefix].values()} <= {code}


def test_volumes_are_a_share_of_the_price_simulators():
    rows = parse_daily_file(daily(make(), "CNMS", DAY).body.decode(), DAY)
    for symbol in ("AAPL", "SPY", "BRK-B"):
        series = get_series(get_instrument(symbol))
        i = list(series.days.astype(date)).index(DAY)
        short, _, total, _ = rows[symbol.replace("-", ".")]
        assert 0.29 * series.v[i] <= total <= 0.50 * series.v[i]
        assert 0.34 <= short / total <= 0.66


@pytest.mark.parametrize(("prefix", "day", "clock"), [
    ("CNMS", date(2025, 1, 1), CLOCK),  # New Year's Day: no session
    ("CNMS", date(2025, 1, 4), CLOCK),  # a Saturday
    ("CNMS", date(2025, 1, 6), CLOCK),  # the future
    ("CNMS", date(2025, 1, 3), datetime(2025, 1, 3, 22, 0, tzinfo=UTC)),  # 17:00 ET
    ("ABCD", DAY, CLOCK),  # no such file
])
def test_no_file_is_the_cdns_403(prefix, day, clock):
    response = daily(make(clock), prefix, day)
    assert response.status == 403 and b"AccessDenied" in response.body


def test_files_do_not_change():
    assert daily(make(), "FNSQ", DAY).body == daily(make(datetime(2026, 1, 1, tzinfo=UTC)),
                                                    "FNSQ", DAY).body


# -- short interest ----------------------------------------------------------------------------
def test_the_services_query_through_its_parser():
    response = post(make(), interest_query("BRK.B", date(2024, 10, 1), date(2025, 1, 3)))
    assert response.status == 200
    records = json.loads(response.body)
    assert {r["symbolCode"] for r in records} == {"BRK.B"}
    assert set(records[0]) == set(finra.INTEREST_FIELDS)
    rows = [finra.interest_row(r) for r in records]
    days = [row.settlement_date for row in rows]
    # Mid-month and month-end settlements; 2024-12-31's is out on the seventh session after.
    assert days == ["2024-10-15", "2024-10-31", "2024-11-15", "2024-11-29", "2024-12-13"]
    for older, newer in pairwise(rows):
        assert newer.previous_shares_short == older.shares_short
        assert newer.change == newer.shares_short - older.shares_short
    for row in rows:
        assert row.average_daily_volume > 0 and 0.5 <= row.days_to_cover <= 5.01
        assert row.days_to_cover == round(row.shares_short / row.average_daily_volume, 2)
        assert row.market == "NYSE"


def test_filters_fields_and_paging():
    sandbox = make()
    body = {"fields": ["symbolCode", "settlementDate"], "limit": 3, "offset": 2,
            "dateRangeFilters": [{"fieldName": "settlementDate", "startDate": "2024-12-01",
                                  "endDate": "2024-12-31"}]}
    page = json.loads(post(sandbox, body).body)
    assert len(page) == 3 and all(set(r) == {"symbolCode", "settlementDate"} for r in page)
    assert {r["settlementDate"] for r in page} == {"2024-12-13"}
    assert json.loads(post(sandbox, {**body, "compareFilters": [
        {"compareType": "EQUAL", "fieldName": "symbolCode", "fieldValue": "ZZZZ"}]}).body) == []


def test_without_accept_json_the_api_answers_csv():
    response = post(make(), interest_query("AAPL", date(2024, 12, 1), date(2024, 12, 31)),
                    accept="*/*")
    lines = response.body.decode().splitlines()
    assert lines[0].split(",") == list(finra.INTEREST_FIELDS) and len(lines) == 2


@pytest.mark.parametrize("body", [b"{", b"[]", json.dumps({"limit": 0}).encode(),
                                  json.dumps({"fields": ["secret"]}).encode()])
def test_a_body_it_cannot_read_is_a_400(body):
    response = make().handle("POST", API, INTEREST_PATH, {}, {"Accept": "application/json"},
                             body)
    assert response.status == 400 and json.loads(response.body)["statusCode"] == 400


def test_settlement_dates_follow_the_schedule():
    dates = [d for d in interest.settlements() if date(2024, 1, 1) <= d <= date(2024, 12, 31)]
    assert len(dates) == 24
    assert date(2024, 3, 15) in dates and date(2024, 6, 14) in dates  # the 15th a Saturday
    assert date(2024, 11, 29) in dates  # the month's last session
