"""The sandbox's calendar service (POST /v1/finance/visualization): Yahoo's table shape,
the window and ticker filters, paging, determinism, its 400s, and agreement with the
per-symbol answers it simulates (the chart's splits, calendarEvents' earnings dates)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from typing import Any

import pytest

from marketdata.providers.yahoo.calendars import INCLUDE_FIELDS, visualization_query
from marketdata.sandbox import SandboxResponse, UpstreamSandbox
from marketdata.sandbox.instruments import get_instrument
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.yahoo.market import market_view
from tests.sandbox.test_sandbox_screener import crumb_for

NOW = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)


def make() -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: NOW)


def post(sb: UpstreamSandbox, body: Any) -> SandboxResponse:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    return sb.handle("POST", "query1.finance.yahoo.com", "/v1/finance/visualization",
                     {"crumb": [crumb_for(sb)], "lang": ["en-US"], "region": ["US"]},
                     {"Content-Type": "application/json"}, raw)


def rows(response: SandboxResponse) -> list[dict[str, Any]]:
    assert response.status == 200, response.body
    (document,) = json.loads(response.body)["finance"]["result"][0]["documents"]
    ids = [c["id"] for c in document["columns"]]
    return [dict(zip(ids, row, strict=True)) for row in document["rows"]]


def test_splits_in_the_table_shape_and_in_date_order():
    sb = make()
    body = visualization_query("splits", "2020-08-25", "2020-09-05")
    response = post(sb, body)
    (document,) = json.loads(response.body)["finance"]["result"][0]["documents"]
    assert [c["id"] for c in document["columns"]] == list(INCLUDE_FIELDS["splits"])
    found = rows(response)
    assert {(r["ticker"], r["startdatetime"], r["share_worth"], r["old_share_worth"])
            for r in found} >= {("AAPL", "2020-08-31T00:00:00.000Z", 4, 1),
                                ("TSLA", "2020-08-31T00:00:00.000Z", 5, 1)}
    assert [r["startdatetime"] for r in found] == sorted(r["startdatetime"] for r in found)
    assert post(sb, body).body == response.body  # deterministic


def test_ticker_filter_and_paging():
    sb = make()
    only = rows(post(sb, visualization_query("splits", "2020-08-25", "2020-09-05",
                                             symbols=("TSLA",))))
    assert [r["ticker"] for r in only] == ["TSLA"]
    everything = rows(post(sb, visualization_query("ipo_info", "2026-11-02", "2026-11-27")))
    assert len(everything) > 3
    page = rows(post(sb, visualization_query("ipo_info", "2026-11-02", "2026-11-27",
                                             offset=2, size=2)))
    assert page == everything[2:4]


def test_earnings_are_calendar_events_dates():
    sb = make()
    found = rows(post(sb, visualization_query("sp_earnings", "2027-01-01", "2027-01-31",
                                              symbols=("AAPL",))))
    (row,) = found
    inst = get_instrument("AAPL")
    assert inst is not None
    view = market_view(get_series(inst), int(NOW.timestamp()))
    _, upcoming = view.earnings_dates()
    assert upcoming is not None
    assert row["startdatetime"] == datetime.fromtimestamp(upcoming, UTC).strftime(
        "%Y-%m-%dT%H:%M:%S.000Z")
    assert row["startdatetimetype"] == "AMC" and row["epsactual"] is None
    assert row["epsestimate"] == round(view.forward_eps / 4, 5)


def test_past_economic_events_have_actuals():
    sb = make()
    found = rows(post(sb, visualization_query("economic_event", "2026-11-02", "2026-11-13")))
    assert any(r["country_code"] == "US" for r in found)
    for r in found:
        day = date.fromisoformat(r["startdatetime"][:10])
        assert (r["after_release_actual"] is None) == (day > NOW.date())


@pytest.mark.parametrize("body", [
    b"not json", [], {"entityIdType": "dividends", "includeFields": ["ticker"]},
    {"entityIdType": "splits", "includeFields": ["nope"]},
    {**visualization_query("splits", "2025-01-01", "2025-01-02"), "size": 251},
    {**visualization_query("splits", "2025-01-01", "2025-01-02"),
     "query": {"operator": "and", "operands": [{"operator": "gte",
                                                "operands": ["startdatetime", "soon"]}]}},
])
def test_bad_queries_are_400(body):
    response = post(make(), body)
    assert response.status == 400
    assert json.loads(response.body)["finance"]["error"]["code"] == "Bad Request"
