"""FINRA: the daily short sale volume files (the pipe-delimited parser on hand-made files in
the published layout, the compact cache entry, the URLs, the status map, the fetcher over a
window of trading days with its notices) and the Query API's consolidated short interest
(the POST it sends, the records it reads, its statuses).

No recording of either upstream exists (not reachable from here): the files are written
here in the layout FINRA documents (header ``Date|Symbol|ShortVolume|ShortExemptVolume|
TotalVolume|Market``, one line per security, a trailer with the record count; the layout
before 2011-02-28 without ShortExemptVolume), the Query API's records with the field names
of its dataset's metadata.
"""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import UTC, date, datetime

import pytest
import requests
import responses

from marketdata.errors import NotFound, UpstreamBadResponse, UpstreamUnavailable
from marketdata.providers import finra
from marketdata.providers.finra import (
    FinraProvider,
    file_url,
    find_row,
    interest_query,
    pack_rows,
    parse_daily_file,
    short_interest,
    short_volume,
    spellings,
)
from marketdata.providers.registry import get_provider
from marketdata.records.short import VENUES, ShortInterestRow, ShortVolumeRow

HEADER = "Date|Symbol|ShortVolume|ShortExemptVolume|TotalVolume|Market"
DAILY = "https://cdn.finra.org/equity/regsho/daily/"
# Friday 2025-01-03, 17:00 in New York: the day's session has closed.
AT = datetime(2025, 1, 3, 22, 0, tzinfo=UTC)
START, END = date(2024, 12, 23), date(2025, 1, 3)
# The sessions of the window: no weekend, no Christmas Day, no New Year's Day.
SESSIONS = [date(2024, 12, 23), date(2024, 12, 24), date(2024, 12, 26), date(2024, 12, 27),
            date(2024, 12, 30), date(2024, 12, 31), date(2025, 1, 2), date(2025, 1, 3)]


def daily_text(day: date, lines: list[str], market: str = "B,Q,N") -> str:
    """A file of ``day``: ``SYMBOL|short|exempt|total`` lines in the published layout."""
    stamp = f"{day:%Y%m%d}"
    rows = [f"{stamp}|{line}|{market}" for line in lines]
    return "\n".join([HEADER, *rows, str(len(rows))]) + "\n"


def volumes_of(day: date) -> list[str]:
    n = day.toordinal() % 7
    return [f"AAPL|{1000 + n}|{n}|{4000 + n}", f"BRK.B|{300 + n}|0|{900 + n}",
            f"MSFT|{2000 + n}|{2 * n}|{5000 + n}"]


@pytest.fixture(autouse=True)
def _fast_retries(monkeypatch):
    fast = dataclasses.replace(finra.PROVIDER, backoff_seconds=0.001, backoff_max_seconds=0.001)
    monkeypatch.setattr(FinraProvider, "config", fast)


@pytest.fixture
def cdn():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def serve_day(mock, day: date, body: str | None = None, status: int = 200,
              prefix: str = "CNMS") -> None:
    url = f"{DAILY}{prefix}shvol{day:%Y%m%d}.txt"
    if status != 200:
        mock.add(responses.GET, url, status=status, content_type="application/xml",
                 body="<Error><Code>AccessDenied</Code></Error>")
        return
    mock.add(responses.GET, url, body=body if body is not None
             else daily_text(day, volumes_of(day)), content_type="text/plain")


def requested_days(mock) -> list[str]:
    return sorted(re.search(r"shvol(\d{8})", c.request.url).group(1) for c in mock.calls
                  if "shvol" in c.request.url)


# -- the parser -------------------------------------------------------------------------------
ODD = """Date|Symbol|ShortVolume|ShortExemptVolume|TotalVolume|Market
20250102|AAPL|4103361.638|41|9840127.512|B,Q,N
20250102|BRK.B|310|0|905|Q,N
20250102|ABR-D|12|||N
20250102|BF.B|7|0|7|Q

20250102|NOTOTAL|5|0||Q
20250102||9|0|10|Q
20250102|NEG|-5|0|10|Q
20250102|TEXT|abc|0|10|Q
20250103|OTHERDAY|1|0|2|Q
20250102|SHORT|1
20250102|AAPL|1|0|2|Q
20250102|zvzzt|1|0|2|Q
10
"""


def test_the_published_layout_in_one_pass():
    """Header and trailer skipped; fractional shares kept; dots in symbols kept; a line
    without a total, a symbol, numbers, enough cells or the file's date skipped; a symbol
    listed twice keeps its first line; symbols upper-cased."""
    assert parse_daily_file(ODD, date(2025, 1, 2)) == {
        "AAPL": (4103361.638, 41, 9840127.512, "B,Q,N"),
        "BRK.B": (310, 0, 905, "Q,N"),
        "BF.B": (7, 0, 7, "Q"),
        "ZVZZT": (1, 0, 2, "Q"),
    }
    rows = parse_daily_file(ODD, date(2025, 1, 2))
    assert isinstance(rows["BRK.B"][0], int) and isinstance(rows["AAPL"][0], float)


def test_a_blank_exempt_volume_is_null_not_zero():
    text = f"{HEADER}\n20250102|XYZ|12||40|N\n1\n"
    assert parse_daily_file(text, date(2025, 1, 2)) == {"XYZ": (12, None, 40, "N")}


def test_the_layout_before_2011_has_no_exempt_column():
    text = ("Date|Symbol|ShortVolume|TotalVolume|Market\n"
            "20100104|AAPL|3000|9000|Q\n20100104|GE|100|400|Q\n2\n")
    assert parse_daily_file(text, date(2010, 1, 4)) == {"AAPL": (3000, None, 9000, "Q"),
                                                        "GE": (100, None, 400, "Q")}


def test_columns_are_read_by_the_headers_names():
    text = "Date|Symbol|TotalVolume|ShortVolume|Short Exempt Volume|Market\n" \
           "20250102|AAPL|900|300|3|Q\n"
    assert parse_daily_file(text, date(2025, 1, 2)) == {"AAPL": (300, 3, 900, "Q")}


def test_a_file_without_a_header_is_read_in_the_current_layout():
    assert parse_daily_file("20250102|AAPL|1|0|2|Q\n", date(2025, 1, 2)) == \
        {"AAPL": (1, 0, 2, "Q")}


def test_an_empty_day_is_a_header_and_a_zero_trailer():
    assert parse_daily_file(f"{HEADER}\n0\n", date(2025, 1, 2)) == {}


@pytest.mark.parametrize("text", ["<html>maintenance</html>\n", "a|b|c\n1|2|3\n",
                                  "Date|Symbol|Volume\n20250102|AAPL|5\n"])
def test_an_unknown_layout_is_a_bad_answer(text):
    with pytest.raises(UpstreamBadResponse) as caught:
        parse_daily_file(text, date(2025, 1, 2))
    assert caught.value.provider == "finra"


# -- the cache entry ------------------------------------------------------------------------------
def test_a_packed_file_finds_a_symbols_line_and_nothing_else():
    rows = parse_daily_file(ODD, date(2025, 1, 2))
    packed = pack_rows(rows)
    assert isinstance(packed, bytes)
    assert find_row(packed, ("AAPL",)) == (4103361.638, 41, 9840127.512, "B,Q,N")
    assert find_row(packed, ("BRK-B", "BRK.B")) == (310, 0, 905, "Q,N")
    assert find_row(packed, ("BRK",)) is None  # a prefix of BRK.B is no match
    assert find_row(packed, ("B",)) is None
    assert find_row(packed, ("NOPE",)) is None
    assert find_row(pack_rows({"X": (1, None, 2, None)}), ("X",)) == (1, None, 2, None)


def test_a_packed_file_is_smaller_than_the_file():
    lines = [f"S{i:05d}|{i * 37 % 100000}|{i % 9}|{i * 91 % 1000000}" for i in range(5000)]
    text = daily_text(date(2025, 1, 2), lines)
    packed = pack_rows(parse_daily_file(text, date(2025, 1, 2)))
    assert len(packed) < len(text) / 2
    assert find_row(packed, ("S04999",)) == (4999 * 37 % 100000, 4999 % 9,
                                             4999 * 91 % 1000000, "B,Q,N")


def test_class_shares_are_looked_up_with_either_separator():
    assert spellings("BRK-B") == ("BRK-B", "BRK.B")
    assert spellings("BRK.B") == ("BRK.B", "BRK-B")
    assert spellings("AAPL") == ("AAPL",)


# -- requests and statuses -------------------------------------------------------------------
def test_the_file_urls():
    day = date(2025, 1, 2)
    assert {name: file_url(venue, day) for name, venue in VENUES.items()} == {
        "consolidated": f"{DAILY}CNMSshvol20250102.txt",
        "nasdaq-carteret": f"{DAILY}FNSQshvol20250102.txt",
        "nasdaq-chicago": f"{DAILY}FNQCshvol20250102.txt",
        "nyse": f"{DAILY}FNYXshvol20250102.txt",
        "adf": f"{DAILY}FNRAshvol20250102.txt",
        "orf": f"{DAILY}FORFshvol20250102.txt",
    }


def test_registered_provider():
    provider = get_provider("finra")
    assert isinstance(provider, FinraProvider)
    assert provider.config.hosts == ("cdn.finra.org", "api.finra.org")


@pytest.mark.parametrize("status", [403, 404])
def test_a_missing_file_is_not_published(cdn, status):
    serve_day(cdn, date(2025, 1, 3), status=status)
    with pytest.raises(NotFound) as caught:
        get_provider("finra").daily_file(VENUES["consolidated"], date(2025, 1, 3))
    assert "2025-01-03" in caught.value.detail


@pytest.mark.parametrize("status", [400, 410, 451])
def test_another_4xx_is_a_bad_answer(cdn, status):
    serve_day(cdn, date(2025, 1, 3), status=status)
    with pytest.raises(UpstreamBadResponse) as caught:
        get_provider("finra").daily_file(VENUES["consolidated"], date(2025, 1, 3))
    assert caught.value.provider == "finra" and caught.value.upstream_status == status


def test_a_file_over_the_byte_budget_is_refused(cdn, monkeypatch):
    monkeypatch.setattr(finra, "MAX_FILE_BYTES", 100)
    serve_day(cdn, date(2025, 1, 3))
    with pytest.raises(UpstreamBadResponse, match="too large"):
        get_provider("finra").daily_file(VENUES["consolidated"], date(2025, 1, 3))


# -- the short volume fetcher ---------------------------------------------------------------------
def serve_window(mock, prefix: str = "CNMS", skip: tuple[date, ...] = ()) -> None:
    for day in SESSIONS:
        if day not in skip:
            serve_day(mock, day, prefix=prefix)


def test_each_session_once_newest_first_weekends_and_holidays_never_asked(cdn):
    serve_window(cdn)
    answer = short_volume("AAPL", "consolidated", START, END, AT)
    assert requested_days(cdn) == [f"{d:%Y%m%d}" for d in SESSIONS]
    assert [row.date for row in answer.rows] == [d.isoformat() for d in reversed(SESSIONS)]
    assert answer.notices == [] and answer.start == "2024-12-23" and answer.end == "2025-01-03"
    n = date(2025, 1, 3).toordinal() % 7
    assert answer.rows[0] == ShortVolumeRow(
        date="2025-01-03", venue="consolidated", short_volume=1000 + n, short_exempt_volume=n,
        total_volume=4000 + n, ratio=round((1000 + n) / (4000 + n), 4), market="B,Q,N")


def test_files_are_read_once_for_every_symbol(cdn):
    serve_window(cdn)
    short_volume("AAPL", "consolidated", START, END, AT)
    msft = short_volume("MSFT", "consolidated", START, END, AT)
    assert len(cdn.calls) == len(SESSIONS) and len(msft.rows) == len(SESSIONS)
    assert short_volume("BRK-B", "consolidated", START, END, AT).rows[0].total_volume > 900
    assert len(cdn.calls) == len(SESSIONS)


def test_a_file_not_published_yet_is_left_out_with_a_notice(cdn):
    serve_window(cdn, skip=(date(2025, 1, 3),))
    serve_day(cdn, date(2025, 1, 3), status=403)
    answer = short_volume("AAPL", "consolidated", START, END, AT)
    assert len(answer.rows) == len(SESSIONS) - 1 and answer.rows[0].date == "2025-01-02"
    assert answer.notices == ["2025-01-03 consolidated: not published by FINRA (yet)"]


def test_todays_file_is_not_asked_for_before_the_close(cdn):
    serve_window(cdn)
    morning = datetime(2025, 1, 3, 15, 0, tzinfo=UTC)  # 10:00 in New York
    answer = short_volume("AAPL", "consolidated", START, END, morning)
    assert "20250103" not in requested_days(cdn)
    assert answer.rows[0].date == "2025-01-02"
    assert answer.notices == ["2025-01-03: the session has not closed; FINRA posts the "
                              "day's files by 18:00 ET"]


def test_a_failing_file_leaves_its_day_out_and_the_rest_is_served(cdn):
    serve_window(cdn, skip=(date(2024, 12, 30),))
    cdn.add(responses.GET, f"{DAILY}CNMSshvol20241230.txt", status=500, body="error")
    answer = short_volume("AAPL", "consolidated", START, END, AT)
    assert "2024-12-30" not in [row.date for row in answer.rows]
    assert len(answer.rows) == len(SESSIONS) - 1
    (notice,) = answer.notices
    assert notice.startswith("2024-12-30 consolidated: left out, the file could not be read")
    assert "FINRA" in notice


def test_every_file_failing_is_finras_failure(cdn):
    cdn.add(responses.GET, re.compile(re.escape(DAILY) + ".*"),
            body=requests.exceptions.ConnectionError("refused"))
    with pytest.raises(UpstreamUnavailable) as caught:
        short_volume("AAPL", "consolidated", START, END, AT)
    assert caught.value.provider == "finra"


def test_a_symbol_no_file_lists_is_not_found(cdn):
    serve_window(cdn)
    with pytest.raises(NotFound, match="do not list 'ZZZZ'"):
        short_volume("ZZZZ", "consolidated", START, END, AT)


def test_a_symbol_missing_with_some_files_failing_is_the_failure(cdn):
    serve_window(cdn, skip=(date(2024, 12, 30),))
    cdn.add(responses.GET, f"{DAILY}CNMSshvol20241230.txt", status=503, body="busy")
    with pytest.raises(UpstreamBadResponse):
        short_volume("ZZZZ", "consolidated", START, END, AT)


def test_nothing_published_is_an_empty_answer_with_notices(cdn):
    for day in SESSIONS:
        serve_day(cdn, day, status=403)
    answer = short_volume("AAPL", "consolidated", START, END, AT)
    assert answer.rows == [] and len(answer.notices) == len(SESSIONS)


def test_a_window_without_a_session_asks_nothing(cdn):
    answer = short_volume("AAPL", "consolidated", date(2024, 12, 28), date(2024, 12, 29), AT)
    assert answer.rows == [] and answer.notices == [] and not cdn.calls


def test_all_venues_reads_every_facility_file_and_not_the_consolidated_one(cdn):
    facilities = {"FNSQ": "Q", "FNQC": "B", "FNYX": "N", "FNRA": "D", "FORF": "O"}
    day = date(2025, 1, 2)
    for prefix, code in facilities.items():
        lines = [] if prefix == "FNRA" else [f"AAPL|{len(prefix) * 10 + ord(code)}|0|1000"]
        serve_day(cdn, day, daily_text(day, lines, market=code), prefix=prefix)
    answer = short_volume("AAPL", "all", day, day, AT)
    assert [(row.venue, row.market) for row in answer.rows] == [
        ("nasdaq-carteret", "Q"), ("nasdaq-chicago", "B"), ("nyse", "N"), ("orf", "O")]
    assert not [c for c in cdn.calls if "CNMS" in c.request.url]
    assert len(cdn.calls) == 5


def test_days_before_a_venues_first_file_are_not_asked(cdn):
    cdn.add(responses.GET, re.compile(re.escape(DAILY) + "CNMS.*"),
            body=daily_text(date(2018, 8, 1), ["AAPL|1|0|2"]))
    answer = short_volume("AAPL", "consolidated", date(2018, 7, 26), date(2018, 8, 3), AT)
    assert requested_days(cdn) == ["20180801", "20180802", "20180803"]
    assert answer.notices[0] == ("FINRA's consolidated files start on 2018-08-01: the days "
                                 "before are not served")


# -- short interest ----------------------------------------------------------------------------
INTEREST = "https://api.finra.org/data/group/otcMarket/name/consolidatedShortInterest"


def record(day: str, current: int, previous: int, symbol: str = "AAPL", **extra) -> dict:
    """A consolidatedShortInterest record with the dataset's field names."""
    return {"accountingYearMonthNumber": int(day.replace("-", "")), "symbolCode": symbol,
            "issueName": "Apple Inc. Common Stock", "issuerServicesGroupExchangeCode": "A",
            "marketClassCode": "NNM", "currentShortPositionQuantity": current,
            "previousShortPositionQuantity": previous, "stockSplitFlag": None,
            "averageDailyVolumeQuantity": 50_000_000,
            "daysToCoverQuantity": round(current / 50_000_000, 2), "revisionFlag": None,
            "changePercent": round((current - previous) / previous * 100, 2),
            "changePreviousNumber": current - previous, "settlementDate": day, **extra}


RECORDS = [record("2024-11-29", 110_000_000, 100_000_000, revisionFlag="R"),
           record("2024-12-31", 90_000_000, 120_000_000),
           record("2024-12-13", 120_000_000, 110_000_000, stockSplitFlag="S")]


@pytest.fixture
def api_finra():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield mock


def serve_interest(mock, *bodies, status: int = 200) -> None:
    for body in bodies:
        mock.add(responses.POST, INTEREST, status=status, body=body if isinstance(body, str)
                 else json.dumps(body), content_type="application/json")


def test_the_query_it_posts(api_finra):
    serve_interest(api_finra, RECORDS)
    short_interest("AAPL", date(2024, 1, 1), date(2025, 1, 3))
    (call,) = api_finra.calls
    assert call.request.method == "POST"
    assert call.request.headers["Accept"] == "application/json"
    assert call.request.headers["Content-Type"] == "application/json"
    assert json.loads(call.request.body) == {
        "fields": list(finra.INTEREST_FIELDS),
        "compareFilters": [{"compareType": "EQUAL", "fieldName": "symbolCode",
                            "fieldValue": "AAPL"}],
        "dateRangeFilters": [{"fieldName": "settlementDate", "startDate": "2024-01-01",
                              "endDate": "2025-01-03"}],
        "limit": 1000, "offset": 0}
    assert interest_query("X", date(2024, 1, 1), date(2024, 2, 1), 2000)["offset"] == 2000


def test_settlements_newest_first_in_the_records_terms(api_finra):
    serve_interest(api_finra, RECORDS)
    answer = short_interest("AAPL", date(2024, 1, 1), date(2025, 1, 3))
    assert answer.name == "Apple Inc. Common Stock" and answer.symbol == "AAPL"
    assert [row.settlement_date for row in answer.settlements] == [
        "2024-12-31", "2024-12-13", "2024-11-29"]
    assert answer.settlements[0] == ShortInterestRow(
        settlement_date="2024-12-31", shares_short=90_000_000,
        previous_shares_short=120_000_000, change=-30_000_000, change_percent=-25.0,
        average_daily_volume=50_000_000, days_to_cover=1.8, stock_split=False,
        revised=False, market="NNM")
    assert answer.settlements[1].stock_split and answer.settlements[2].revised


def test_numbers_as_text_and_other_symbols_rows(api_finra):
    texts = [dict(record("2024-12-31", 1, 1), currentShortPositionQuantity="1,234",
                  daysToCoverQuantity="999.99", changePercent="-3.5"),
             record("2024-12-31", 5, 5, symbol="AAPLX")]
    serve_interest(api_finra, texts)
    (row,) = short_interest("AAPL", date(2024, 1, 1), date(2025, 1, 3)).settlements
    assert row.shares_short == 1234 and row.days_to_cover == 999.99
    assert row.change_percent == -3.5


@pytest.mark.parametrize("empty", ["[]", ""])
def test_no_record_is_not_found(api_finra, empty):
    api_finra.add(responses.POST, INTEREST, body=empty, status=200 if empty else 204)
    with pytest.raises(NotFound, match="no short interest for 'AAPL'"):
        short_interest("AAPL", date(2024, 1, 1), date(2025, 1, 3))


def test_a_class_share_is_asked_with_the_other_separator_when_none_is_found(api_finra):
    serve_interest(api_finra, [], [record("2024-12-31", 9, 8, symbol="BRK.B")])
    answer = short_interest("BRK-B", date(2024, 1, 1), date(2025, 1, 3))
    assert answer.symbol == "BRK-B" and len(answer.settlements) == 1
    values = [json.loads(c.request.body)["compareFilters"][0]["fieldValue"]
              for c in api_finra.calls]
    assert values == ["BRK-B", "BRK.B"]


def test_a_full_page_asks_for_the_next(api_finra, monkeypatch):
    monkeypatch.setattr(finra, "INTEREST_PAGE", 2)
    serve_interest(api_finra, RECORDS[:2], RECORDS[2:])
    answer = short_interest("AAPL", date(2024, 1, 1), date(2025, 1, 3))
    assert len(answer.settlements) == 3
    assert [json.loads(c.request.body)["offset"] for c in api_finra.calls] == [0, 2]


def test_answers_are_cached(api_finra):
    serve_interest(api_finra, RECORDS)
    for _ in range(3):
        short_interest("AAPL", date(2024, 1, 1), date(2025, 1, 3))
    assert len(api_finra.calls) == 1


@pytest.mark.parametrize(("status", "words"), [(401, "refused keyless access"),
                                               (403, "refused keyless access"),
                                               (400, "HTTP 400"), (404, "HTTP 404")])
def test_a_refusal_is_a_bad_answer_naming_finra(api_finra, status, words):
    serve_interest(api_finra, {"message": "secret detail"}, status=status)
    with pytest.raises(UpstreamBadResponse) as caught:
        short_interest("AAPL", date(2024, 1, 1), date(2025, 1, 3))
    assert caught.value.provider == "finra" and words in caught.value.detail
    assert "secret" not in caught.value.detail


@pytest.mark.parametrize("body", ["<html>maintenance</html>", '{"records": []}'])
def test_a_body_that_is_no_list_of_records_is_a_bad_answer(api_finra, body):
    serve_interest(api_finra, body)
    with pytest.raises(UpstreamBadResponse):
        short_interest("AAPL", date(2024, 1, 1), date(2025, 1, 3))
