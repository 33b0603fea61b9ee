"""GET /v2/calendars/{earnings,dividends,splits,ipos,economic}: the market-wide calendars
by date, over mocked upstreams (hand-made bodies in Yahoo's calendar-service shape) and over
the sandbox (its calendars agree with its per-symbol answers)."""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
import requests
import responses

from apps.calendar import dated
from marketdata.providers.yahoo.calendars import INCLUDE_FIELDS, VISUALIZATION_URL
from tests.apps.payloads import FAILURES
from tests.conftest import calls_to

VISUALIZATION = "/v1/finance/visualization"
PATTERN = re.compile(re.escape(VISUALIZATION_URL) + r"(\?.*)?$")
FRED_DATES = "https://api.stlouisfed.org/fred/releases/dates"
ROUTES = ("earnings", "dividends", "splits", "ipos", "economic")


@pytest.fixture(autouse=True)
def _keyless_and_today(settings, monkeypatch):
    """No FRED key unless a test sets one; "today" is 2025-03-03 for the mocked tests."""
    settings.FRED_API_KEY = ""
    monkeypatch.setattr(dated, "today", lambda: date(2025, 3, 3))


def table(entity: str, rows: list[list[Any]]) -> dict[str, Any]:
    return {"finance": {"result": [{"documents": [{
        "entityIdType": entity,
        "columns": [{"id": c, "label": c, "type": "STRING"} for c in INCLUDE_FIELDS[entity]],
        "rows": rows}]}], "error": None}}


EARNINGS = table("sp_earnings", [
    ["MSFT", "Microsoft Corporation", 3.1e12, None, "2025-03-05T21:05:00Z", "AMC", 3.1, None,
     None],
    ["AAPL", "Apple Inc.", 3.5e12, None, "2025-03-04T11:00:00Z", "BMO", 2.35, 2.4, 2.13],
    ["KO", "The Coca-Cola Company", 3e11, None, "2025-03-05T12:00:00Z", "TNS", 0.6, None,
     None],
])
SPLITS = table("splits", [["NVDA", "NVIDIA", "2025-03-06T00:00:00Z", "true", 1, 10]])
IPOS = table("ipo_info", [["NEWC", "New Co", "NASDAQ", None, "2025-03-07T00:00:00Z", None,
                           10, 12, None, "USD", 1000000, "Expected"]])
ECONOMIC = table("economic_event", [
    ["ZEW Economic Sentiment", "DE", "2025-03-04T10:00:00Z", "Mar", None, 48.1, 26.0, None],
    ["CPI YY", "US", "2025-03-04T12:30:00Z", "Feb", 2.8, 2.9, 3.0, None],
    ["Claims", "US", "2025-03-04T12:30:00Z", "Week", None, 220, 215, None],
])


def add(yahoo: Any, body: Any, status: int = 200) -> None:
    yahoo.mock.add(responses.POST, PATTERN, json=body, status=status)


def posted(yahoo: Any) -> list[dict[str, Any]]:
    return [json.loads(c.request.body) for c in calls_to(yahoo.mock, VISUALIZATION)]


# -- 200 --------------------------------------------------------------------------------------
def test_earnings_by_date_with_the_default_window(api, yahoo):
    add(yahoo, EARNINGS)
    response = api.get("/v2/calendars/earnings")
    assert response.status_code == 200, response.content
    assert [(r["date"], r["symbol"], r["timing"]) for r in response.json()] == [
        ("2025-03-04", "AAPL", "BEFORE_OPEN"), ("2025-03-05", "KO", "UNKNOWN"),
        ("2025-03-05", "MSFT", "AFTER_CLOSE")]
    assert response.json()[0] == {
        "symbol": "AAPL", "name": "Apple Inc.", "date": "2025-03-04", "timing": "BEFORE_OPEN",
        "epsEstimate": 2.35, "epsActual": 2.4, "surprisePercent": 2.13,
        "marketCap": 3500000000000}
    (body,) = posted(yahoo)
    assert body["entityIdType"] == "sp_earnings"
    operands = body["query"]["operands"]
    assert operands[0]["operands"] == ["startdatetime", "2025-03-03"]
    assert operands[1]["operands"] == ["startdatetime", "2025-03-11"]  # today + 7, inclusive
    assert {"operator": "eq", "operands": ["region", "us"]} in operands


def test_symbols_filter_is_sent_and_applied(api, yahoo):
    add(yahoo, EARNINGS)
    response = api.get("/v2/calendars/earnings?symbols=msft,AAPL,AA%20PL&region=GB")
    assert [r["symbol"] for r in response.json()] == ["AAPL", "MSFT"]
    (body,) = posted(yahoo)
    assert body["query"]["operands"][-1] == {"operator": "or", "operands": [
        {"operator": "eq", "operands": ["ticker", "AAPL"]},
        {"operator": "eq", "operands": ["ticker", "MSFT"]}]}
    assert {"operator": "eq", "operands": ["region", "gb"]} in body["query"]["operands"]


def test_only_malformed_symbols_make_no_call(api, yahoo):
    response = api.get("/v2/calendars/splits?symbols=AA%20PL")
    assert response.status_code == 200 and response.json() == []
    assert not calls_to(yahoo.mock, VISUALIZATION)


def test_paging_order_and_fields(api, yahoo):
    add(yahoo, EARNINGS)
    first = api.get("/v2/calendars/earnings?limit=2&order=desc&fields=symbol,date").json()
    assert first["nodes"] == [{"symbol": "MSFT", "date": "2025-03-05"},
                              {"symbol": "KO", "date": "2025-03-05"}]
    assert first["pageInfo"]["hasNextPage"] is True
    cursor = first["pageInfo"]["endCursor"]
    second = api.get(f"/v2/calendars/earnings?limit=2&order=desc&fields=symbol,date"
                     f"&cursor={cursor}").json()
    assert second["nodes"] == [{"symbol": "AAPL", "date": "2025-03-04"}]
    other = api.get(f"/v2/calendars/earnings?limit=2&cursor={cursor}")
    assert other.status_code == 400  # a cursor of the other order
    assert len(posted(yahoo)) == 1  # one cached window


def test_csv(api, yahoo):
    add(yahoo, SPLITS)
    response = api.get("/v2/calendars/splits?format=csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert response.content.decode().splitlines() == [
        "symbol,date,numerator,denominator,ratio,optionable",
        "NVDA,2025-03-06,10,1,10:1,true"]


def test_splits_and_ipos(api, yahoo):
    add(yahoo, SPLITS)
    assert api.get("/v2/calendars/splits").json() == [
        {"symbol": "NVDA", "date": "2025-03-06", "numerator": 10, "denominator": 1,
         "ratio": "10:1", "optionable": True}]
    add(yahoo, IPOS)
    assert api.get("/v2/calendars/ipos").json() == [
        {"symbol": "NEWC", "name": "New Co", "exchange": "NASDAQ", "date": "2025-03-07",
         "priceLow": 10.0, "priceHigh": 12.0, "price": None, "shares": 1000000,
         "status": "EXPECTED"}]
    assert [b["entityIdType"] for b in posted(yahoo)] == ["splits", "ipo_info"]


def test_economic_sorted_and_filtered_by_country(api, yahoo):
    add(yahoo, ECONOMIC)
    body = api.get("/v2/calendars/economic").json()
    assert [(r["time"], r["country"], r["event"]) for r in body] == [
        ("10:00", "DE", "ZEW Economic Sentiment"), ("12:30", "US", "CPI YY"),
        ("12:30", "US", "Claims")]
    assert body[1] == {"date": "2025-03-04", "time": "12:30", "country": "US",
                       "event": "CPI YY", "period": "Feb", "actual": 2.8, "forecast": 2.9,
                       "prior": 3.0, "unit": None, "importance": None}
    us = api.get("/v2/calendars/economic?country=us").json()
    assert {r["country"] for r in us} == {"US"}


def test_economic_falls_back_to_the_computed_schedule_without_a_fred_key(api, yahoo):
    add(yahoo, {"oops": True}, status=500)
    response = api.get("/v2/calendars/economic?start=2025-03-03&end=2025-03-09")
    assert response.status_code == 200, response.content
    assert response.json() == [
        {"date": "2025-03-06", "time": None, "country": "US",
         "event": "Unemployment Insurance Weekly Claims Report", "period": None,
         "actual": None, "forecast": None, "prior": None, "unit": None, "importance": 3},
        {"date": "2025-03-07", "time": None, "country": "US", "event": "Employment Situation",
         "period": None, "actual": None, "forecast": None, "prior": None, "unit": None,
         "importance": 3}]


def test_economic_falls_back_to_fred_with_its_key(api, yahoo, settings):
    settings.FRED_API_KEY = "0123456789abcdef0123456789abcdef"
    add(yahoo, {"finance": {"result": None, "error": {"code": "x", "description": "y"}}})
    rows = [{"release_id": 10, "release_name": "Consumer Price Index", "date": "2025-03-12"},
            {"release_id": 18, "release_name": "H.15", "date": "2025-03-12"}]
    yahoo.mock.add(responses.GET, re.compile(re.escape(FRED_DATES) + r"(\?.*)?$"),
                   json={"count": 2, "offset": 0, "limit": 1000, "release_dates": rows})
    body = api.get("/v2/calendars/economic?start=2025-03-10&end=2025-03-14").json()
    assert [(r["date"], r["event"], r["importance"]) for r in body] == [
        ("2025-03-12", "Consumer Price Index", 3)]


# -- dividends: the chart events of the symbols asked for ----------------------------------------
def chart_body(symbol: str, dividends: list[tuple[int, float]]) -> dict[str, Any]:
    return {"chart": {"result": [{
        "meta": {"symbol": symbol, "currency": "USD", "exchangeTimezoneName": "America/New_York",
                 "instrumentType": "EQUITY", "regularMarketPrice": 100.0},
        "timestamp": [1704085200, 1706763600],
        "events": {"dividends": {str(t): {"amount": a, "date": t} for t, a in dividends}},
        "indicators": {"quote": [{"open": [1, 1], "high": [1, 1], "low": [1, 1],
                                  "close": [1, 1], "volume": [1, 1]}],
                       "adjclose": [{"adjclose": [1, 1]}]}}], "error": None}}


def _stamp(day: str) -> int:
    return int(datetime.fromisoformat(day).replace(hour=14, minute=30,
                                                   tzinfo=UTC).timestamp())


KO_PAID = [(_stamp("2024-06-14"), 0.485), (_stamp("2024-09-13"), 0.485),
           (_stamp("2024-11-29"), 0.485), (_stamp("2025-03-14"), 0.51)]


def calendar_events(ex_day: str, pay_day: str) -> dict[str, Any]:
    """A quoteSummary calendarEvents body: dividend dates at 00:00 UTC, as Yahoo gives them."""
    def midnight(day: str) -> int:
        return int(datetime.fromisoformat(day).replace(tzinfo=UTC).timestamp())
    return {"quoteSummary": {"result": [{"calendarEvents": {
        "exDividendDate": midnight(ex_day), "dividendDate": midnight(pay_day),
        "earnings": {}}}], "error": None}}


def test_dividends_from_the_chart_events(api, yahoo):
    yahoo.get("https://query2.finance.yahoo.com/v8/finance/chart/KO", chart_body("KO", KO_PAID))
    yahoo.summary("KO", calendar_events("2025-03-14", "2025-04-01"))
    response = api.get("/v2/calendars/dividends?symbols=KO,NOPE..X&start=2025-03-01"
                       "&end=2025-03-31")
    assert response.status_code == 200, response.content
    # The calendar events announce the payment day of the dividend the chart has.
    assert response.json() == [{"symbol": "KO", "exDate": "2025-03-14",
                                "payDate": "2025-04-01", "recordDate": None, "amount": 0.51,
                                "currency": "USD", "frequency": "QUARTERLY"}]


def test_the_next_dividend_is_announced_by_the_calendar_events(api, yahoo):
    """Before its ex-date the chart has no event; the calendar events (what /v2/calendar
    lists) give its day and payment day, not its amount."""
    yahoo.get("https://query2.finance.yahoo.com/v8/finance/chart/KO",
              chart_body("KO", KO_PAID[:3]))
    yahoo.summary("KO", calendar_events("2025-03-14", "2025-04-01"))
    body = api.get("/v2/calendars/dividends?symbols=KO").json()  # 2025-03-03 .. 03-10
    assert body == []
    body = api.get("/v2/calendars/dividends?symbols=KO&start=2025-03-01&end=2025-03-31").json()
    assert body == [{"symbol": "KO", "exDate": "2025-03-14", "payDate": "2025-04-01",
                     "recordDate": None, "amount": None, "currency": "USD",
                     "frequency": "QUARTERLY"}]
    csv = api.get("/v2/calendars/dividends?symbols=KO&start=2025-03-01&end=2025-03-31"
                  "&format=csv").content.decode()
    assert csv.splitlines()[1] == "KO,2025-03-14,2025-04-01,,,USD,QUARTERLY"


@pytest.mark.parametrize(("ex_day", "pay_day"), [
    ("2024-11-29", "2024-12-16"),  # a stale announcement: the dividend before the last
    ("2025-03-14", "2025-08-01"),  # a payment day too far after the ex-date to be its own
])
def test_an_announcement_is_not_a_new_dividend_or_payment_day(api, yahoo, ex_day, pay_day):
    yahoo.get("https://query2.finance.yahoo.com/v8/finance/chart/KO", chart_body("KO", KO_PAID))
    yahoo.summary("KO", calendar_events(ex_day, pay_day))
    body = api.get("/v2/calendars/dividends?symbols=KO&start=2024-12-15&end=2025-03-14").json()
    assert [(r["exDate"], r["payDate"], r["amount"]) for r in body] == [
        ("2025-03-14", None, 0.51)]


def test_failing_calendar_events_leave_the_paid_dividends(api, yahoo):
    yahoo.get("https://query2.finance.yahoo.com/v8/finance/chart/KO", chart_body("KO", KO_PAID))
    yahoo.summary("KO", {"error": "down"}, status=503)
    response = api.get("/v2/calendars/dividends?symbols=KO&start=2025-03-01&end=2025-03-31")
    assert response.status_code == 200, response.content
    assert [(r["exDate"], r["payDate"], r["amount"]) for r in response.json()] == [
        ("2025-03-14", None, 0.51)]


def test_a_past_window_reads_no_calendar_events(api, yahoo):
    yahoo.get("https://query2.finance.yahoo.com/v8/finance/chart/KO", chart_body("KO", KO_PAID))
    body = api.get("/v2/calendars/dividends?symbols=KO&start=2024-06-01&end=2024-08-29").json()
    assert [(r["exDate"], r["amount"]) for r in body] == [("2024-06-14", 0.485)]
    assert not calls_to(yahoo.mock, "/v10/finance/quoteSummary")


def test_dividends_need_symbols(api, yahoo):
    response = api.get("/v2/calendars/dividends")
    assert response.status_code == 400
    assert response.json() == {"error": "symbols: Field required", "status": 400}


# -- 400 before any upstream call ---------------------------------------------------------------
@pytest.mark.parametrize(("query", "message"), [
    ("start=2025-03-10&end=2025-03-09", "end: end is before start"),
    ("start=2025-01-01&end=2025-04-02",
     "end: The window may span at most 90 days (end - start)"),
    ("end=2025-03-02", "end: end is before start"),  # start defaults to today
    ("start=2025-02-30", "start: Input should be a valid date in the format YYYY-MM-DD"),
    ("start=03/03/2025", "start: Input should be a valid date in the format YYYY-MM-DD"),
    ("end=", "end: String should have at least 1 character"),
    ("order=up", "order: Input should be 'asc' or 'desc'"),
    ("limit=-1", "limit: Input should be greater than or equal to 0"),
    ("cursor=nope", "cursor: Invalid cursor"),
])
@pytest.mark.parametrize("route", ROUTES)
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, route, query, message):
    symbols = "&symbols=AAPL" if route == "dividends" else ""
    response = api.get(f"/v2/calendars/{route}?{query}{symbols}")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["status"] == 400 and body["error"].startswith(message.split(":")[0] + ":")
    if "cursor" not in query:
        assert body["error"] == message
    assert not yahoo.mock.calls or all("getcrumb" in c.request.url or "fc.yahoo" in
                                       c.request.url for c in yahoo.mock.calls)


def test_an_unknown_calendar_is_a_404(api, yahoo):
    response = api.get("/v2/calendars/holidays")
    assert response.status_code == 404
    assert response.json() == {"error": "Not Found", "status": 404}
    assert not calls_to(yahoo.mock, VISUALIZATION)


def test_health_names_the_sources(api):
    notices = api.get("/v2/health").json()["notices"]
    economic = next(n for n in notices if n.startswith("Economic calendar"))
    assert "Yahoo Finance calendar service (economic_event)" in economic
    assert "the schedule the service computes" in economic
    assert "set FRED_API_KEY to use FRED's release calendar" in economic


def test_ninety_days_is_the_longest_window(api, yahoo):
    add(yahoo, SPLITS)
    assert api.get("/v2/calendars/splits?start=2025-01-01&end=2025-04-01").status_code == 200


@pytest.mark.parametrize(("route", "query", "message"), [
    ("earnings", "region=XX", "region: Input should be"),
    ("economic", "country=USA", "country: Input should be a two-letter country code"),
])
def test_route_parameters(api, yahoo, route, query, message):
    response = api.get(f"/v2/calendars/{route}?{query}")
    assert response.status_code == 400 and response.json()["error"].startswith(message)
    assert not calls_to(yahoo.mock, VISUALIZATION)


# -- upstream failures ----------------------------------------------------------------------
_POST_FAILURES = {
    "yahoo_500": {"body": "<html>Internal error</html>", "status": 500},
    "yahoo_429": {"body": "Too Many Requests", "status": 429},
    "connection_error": {"body": requests.exceptions.ConnectionError("connection refused")},
    "timeout": {"body": requests.exceptions.ReadTimeout("read timed out")},
}


@pytest.mark.parametrize("route", ("earnings", "splits", "ipos"))
@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, route, kind):
    yahoo.mock.add(responses.POST, PATTERN, **_POST_FAILURES[kind])
    response = api.get(f"/v2/calendars/{route}")
    status, _ = FAILURES[kind]
    assert response.status_code == status
    body = response.json()
    assert body["provider"] == "yahoo" and body["status"] == status and body["error"]


def test_an_error_envelope_is_a_502(api, yahoo):
    add(yahoo, {"finance": {"result": None, "error": {"code": "Bad Request",
                                                      "description": "invalid query"}}})
    response = api.get("/v2/calendars/earnings")
    assert response.status_code == 502 and response.json()["provider"] == "yahoo"


def test_dividends_upstream_failure_of_every_symbol(api, yahoo):
    for symbol in ("AAPL", "KO"):
        yahoo.mock.add(responses.GET, re.compile(
            re.escape(f"https://query2.finance.yahoo.com/v8/finance/chart/{symbol}")
            + r"(\?.*)?$"), body=requests.exceptions.ReadTimeout("read timed out"))
    response = api.get("/v2/calendars/dividends?symbols=AAPL,KO")
    assert response.status_code == 504 and response.json()["provider"] == "yahoo"


# -- OpenAPI ------------------------------------------------------------------------------------
def test_openapi_operations(api):
    paths = api.get("/openapi.json").json()["paths"]
    for route in ROUTES:
        operation = paths[f"/v2/calendars/{route}"]["get"]
        assert operation["tags"] == ["Calendars (v2)"]
        names = {p["name"] for p in operation["parameters"]}
        assert {"start", "end", "fields", "cursor", "limit", "order", "format"} <= names
        assert ("symbols" in names) == (route != "economic")
        assert "text/csv" in operation["responses"]["200"]["content"]
        assert {"200", "400", "404", "429", "500"} <= set(operation["responses"])
    earnings = paths["/v2/calendars/earnings"]["get"]
    assert "region" in {p["name"] for p in earnings["parameters"]}
    economic = paths["/v2/calendars/economic"]["get"]
    assert "country" in {p["name"] for p in economic["parameters"]}


# -- the sandbox: the calendars agree with the per-symbol answers -------------------------------
def test_sandbox_splits_are_the_splits_of_v2_splits(api, sandbox_upstream):
    body = api.get("/v2/calendars/splits?start=2020-08-25&end=2020-09-05").json()
    assert {(r["symbol"], r["date"], r["ratio"]) for r in body} >= {
        ("AAPL", "2020-08-31", "4:1"), ("TSLA", "2020-08-31", "5:1")}
    for row in body:
        splits = api.get(f"/v2/splits/{row['symbol']}").json()
        days = {(datetime.fromtimestamp(s["timestamp"], UTC).date().isoformat(),
                 s["numerator"], s["denominator"]) for s in splits}
        assert (row["date"], row["numerator"], row["denominator"]) in days
    assert sandbox_upstream.requests_matching(VISUALIZATION)


def test_sandbox_earnings_agree_with_v2_calendar(api, sandbox_upstream):
    events = api.get("/v2/calendar?symbols=AAPL,MSFT&range=6mo").json()
    for event in events:
        if "EARNINGS" not in event["event"]:
            continue
        day = event["date"]
        rows = api.get(f"/v2/calendars/earnings?symbols={event['symbol']}&start={day}"
                       f"&end={day}").json()
        assert [(r["symbol"], r["date"], r["timing"]) for r in rows] == [
            (event["symbol"], day, "AFTER_CLOSE")]
        assert rows[0]["epsEstimate"] == event["event"]["EARNINGS"]["epsEstimateAvg"]


def test_sandbox_dividends_agree_with_v2_dividends(api, sandbox_upstream):
    rows = api.get("/v2/calendars/dividends?symbols=AAPL,KO&start=2024-01-01"
                   "&end=2024-03-31").json()
    assert {r["symbol"] for r in rows} == {"AAPL", "KO"}
    for symbol in ("AAPL", "KO"):
        paid = api.get(f"/v2/dividends/{symbol}").json()["dividends"]
        expected = [(datetime.fromtimestamp(d["timestamp"], UTC).date().isoformat(),
                     d["amount"]) for d in paid]
        expected = [d for d in expected if "2024-01-01" <= d[0] <= "2024-03-31"]
        assert [(r["exDate"], r["amount"]) for r in rows if r["symbol"] == symbol] == expected


def test_sandbox_serves_every_calendar(api, sandbox_upstream):
    start = date.today()
    end = start + timedelta(days=30)
    for route in ("earnings", "splits", "ipos", "economic"):
        response = api.get(f"/v2/calendars/{route}?start={start}&end={end}&limit=5")
        assert response.status_code == 200, (route, response.content)
    economic = api.get(f"/v2/calendars/economic?start={start}&end={end}").json()
    assert any(r["country"] == "US" for r in economic)
    ipos = api.get(f"/v2/calendars/ipos?start={start}&end={end}").json()
    assert ipos and all(r["status"] in ("EXPECTED", "PRICED") for r in ipos)


def test_sandbox_fault_names_the_provider_and_economic_falls_back(api, sandbox_upstream):
    from marketdata.sandbox.core import PathFault

    sandbox_upstream.configure(faults=[PathFault(VISUALIZATION, 1.0)])
    try:
        response = api.get("/v2/calendars/splits?start=2020-08-25&end=2020-09-05")
        economic = api.get("/v2/calendars/economic?start=2025-03-03&end=2025-03-09")
    finally:
        sandbox_upstream.configure(faults=[])
    assert response.status_code == 502  # the sandbox's 503, as every upstream 5xx
    assert response.json()["provider"] == "yahoo"
    assert economic.status_code == 200
    assert [(r["date"], r["event"], r["time"]) for r in economic.json()] == [
        ("2025-03-06", "Unemployment Insurance Weekly Claims Report", None),
        ("2025-03-07", "Employment Situation", None)]
