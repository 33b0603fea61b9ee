"""FRED's release calendar (``/fred/releases/dates``): the parser, the request, paging, the
key's refusal; and the major-release filter both calendar sources share.

No answer of this endpoint was recorded (shared/upstream/INDEX.md lists none): the bodies
are hand-made in the documented JSON shape (``{realtime_start, realtime_end, order_by,
sort_order, count, offset, limit, release_dates: [{release_id, release_name, date}]}``).
"""

from __future__ import annotations

import json
import re
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

from marketdata.errors import CredentialsRejected, UpstreamBadResponse
from marketdata.providers.fred import (
    RELEASE_DATES_URL,
    parse_release_dates,
    release_dates,
)
from marketdata.records.releases import ReleaseDate, drop_phantom_runs, major_releases
from tests.marketdata.providers import test_fred

# The FRED tests' own fixtures (a key set and no backoff, autouse; a responses mock) and key.
KEY, _fast, mock = test_fred.KEY, test_fred._fast, test_fred.mock


def body(rows: list[tuple[int, str, str]], count: int | None = None, offset: int = 0) -> dict:
    return {"realtime_start": "2026-12-01", "realtime_end": "2027-01-31",
            "order_by": "release_date", "sort_order": "asc",
            "count": len(rows) if count is None else count, "offset": offset, "limit": 1000,
            "release_dates": [{"release_id": rid, "release_name": name, "date": day}
                              for rid, name, day in rows]}


def _add(mock, payload, status: int = 200) -> None:
    mock.add(responses.GET, re.compile(re.escape(RELEASE_DATES_URL) + r"(\?.*)?$"),
             body=json.dumps(payload), status=status, content_type="application/json")


def test_parser_on_the_documented_shape():
    rows, count = parse_release_dates(body([
        (10, "Consumer Price Index", "2026-12-10"), (50, "Employment Situation", "2027-01-08"),
        (53, " Gross Domestic Product ", "2026-12-23")]))
    assert rows == [ReleaseDate(10, "Consumer Price Index", "2026-12-10"),
                    ReleaseDate(50, "Employment Situation", "2027-01-08"),
                    ReleaseDate(53, "Gross Domestic Product", "2026-12-23")]
    assert count == 3


def test_parser_leaves_out_malformed_rows_and_refuses_other_bodies():
    payload = {"release_dates": [
        {"release_id": "10", "release_name": "CPI", "date": "2026-12-10"},
        {"release_id": True, "release_name": "CPI", "date": "2026-12-10"},
        {"release_id": 10, "release_name": None, "date": "2026-12-10"},
        {"release_id": 10, "release_name": "CPI", "date": "12/10/2026"}, "junk",
        {"release_id": 46, "release_name": "Producer Price Index", "date": "2026-12-11"}]}
    assert parse_release_dates(payload) == (
        [ReleaseDate(46, "Producer Price Index", "2026-12-11")], 6)
    for other in ({"releases": []}, [], {"release_dates": {}}, None):
        with pytest.raises(UpstreamBadResponse):
            parse_release_dates(other)


def test_request_parameters_and_paging(mock):
    first = [(18, "H.15 Selected Interest Rates", "2026-12-01")] * 1000
    _add(mock, body(first, count=1001))
    _add(mock, body([(10, "Consumer Price Index", "2026-12-10")], count=1001, offset=1000))
    rows = release_dates("2026-12-01", "2027-01-31")
    assert len(rows) == 1001 and rows[-1] == ReleaseDate(10, "Consumer Price Index",
                                                         "2026-12-10")
    queries = [parse_qs(urlsplit(c.request.url).query) for c in mock.calls]
    assert [q["offset"] for q in queries] == [["0"], ["1000"]]
    assert queries[0] | {"offset": None} == {
        "realtime_start": ["2026-12-01"], "realtime_end": ["2027-01-31"],
        "include_release_dates_with_no_data": ["true"], "order_by": ["release_date"],
        "sort_order": ["asc"], "limit": ["1000"], "file_type": ["json"], "api_key": [KEY],
        "offset": None}
    # Cached: a second ask makes no call.
    assert release_dates("2026-12-01", "2027-01-31") == rows and len(mock.calls) == 2


def test_a_refused_key_is_credentials_rejected(mock):
    _add(mock, {"error_code": 400, "error_message": (
        "Bad Request.  The value for variable api_key is not registered.  Read "
        "https://fred.stlouisfed.org/docs/api/api_key.html for more information.")}, 400)
    with pytest.raises(CredentialsRejected):
        release_dates("2026-12-02", "2027-01-31")


def test_phantom_runs_and_minor_releases_are_dropped():
    rows = [ReleaseDate(101, "FOMC Press Release", f"2026-12-{d:02}") for d in (1, 2, 3)]
    rows += [ReleaseDate(101, "FOMC Press Release", "2026-12-09"),
             ReleaseDate(10, "Consumer Price Index", "2026-12-10"),
             ReleaseDate(46, "Producer Price Index", "2026-12-11"),
             ReleaseDate(46, "Producer Price Index", "2026-12-12"),  # two days: kept
             ReleaseDate(18, "H.15 Selected Interest Rates", "2026-12-10")]
    assert [(r.release_id, r.date) for r in major_releases(rows)] == [
        (101, "2026-12-09"), (10, "2026-12-10"), (46, "2026-12-11"), (46, "2026-12-12")]
    assert drop_phantom_runs(rows[:3]) == []
