"""GET /v2/calendar and the calendarEvents parser.

The recordings (../shared/upstream, taken 2025-02-24) hold dates that are past now, so the
value tests freeze the service's "now" (``apps.calendar.services.utc_now``) before them.
Expected values are copied from the recordings by hand.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from apps.calendar import services
from marketdata.providers.yahoo.calendar_events import (
    CalendarEvents,
    EarningsDate,
    parse_calendar_events,
)
from marketdata.providers.yahoo.quote_summary import parse_quote_summary
from tests.apps.payloads import FAILURES, QUERY2, QUOTE_SUMMARY_NOT_FOUND, fail_url
from tests.conftest import calls_to

RECORDED = "yahoo/v10-quoteSummary/calendarEvents/{}.json"
SUMMARY = "/v10/finance/quoteSummary"


def summary_of(module: dict) -> dict:
    return {"quoteSummary": {"result": [{"calendarEvents": module}], "error": None}}


@pytest.fixture
def frozen(monkeypatch):
    def freeze(*args: int) -> datetime:
        moment = datetime(*args, tzinfo=UTC)
        monkeypatch.setattr(services, "utc_now", lambda: moment)
        return moment
    return freeze


@pytest.fixture
def recorded(yahoo, recording):
    for symbol in ("AAPL", "SPOT", "OCDO.L"):
        yahoo.summary(symbol, recording(RECORDED.format(symbol)))
    return yahoo


AAPL_EARNINGS = {"date": "2025-04-30", "symbol": "AAPL", "timestamp": 1746010740,
                 "event": {"EARNINGS": {"epsEstimateAvg": 1.61696, "epsEstimateHigh": 1.67,
                                        "epsEstimateLow": 1.5, "isEstimate": True,
                                        "revenueEstimateAvg": 94076168920}}}
SPOT_EARNINGS = {"date": "2025-02-04", "symbol": "SPOT", "timestamp": 1738675800,
                 "event": {"EARNINGS": {"epsEstimateAvg": 2.29967, "epsEstimateHigh": 2.81,
                                        "epsEstimateLow": 1.88, "isEstimate": False,
                                        "revenueEstimateAvg": 4215773940}}}
OCDO_EARNINGS = {"date": "2025-02-27", "symbol": "OCDO.L", "timestamp": 1740639600,
                 "event": {"EARNINGS": {"epsEstimateAvg": None, "epsEstimateHigh": None,
                                        "epsEstimateLow": None, "isEstimate": False,
                                        "revenueEstimateAvg": None}}}
AAPL_EX = {"date": "2025-02-10", "symbol": "AAPL", "timestamp": 1739145600,
           "event": {"EX_DIVIDEND": {"amount": None}}}
AAPL_DIV = {"date": "2025-02-13", "symbol": "AAPL", "timestamp": 1739404800,
            "event": {"DIVIDEND": {"amount": None}}}


# ---- parser on the recordings -------------------------------------------------------------
def test_parser_on_recordings(recording):
    def parsed(symbol: str) -> CalendarEvents:
        body = parse_quote_summary(recording(RECORDED.format(symbol)))
        return parse_calendar_events(body["calendarEvents"])

    assert parsed("AAPL") == CalendarEvents(
        earnings=EarningsDate(timestamp=1746010740, is_estimate=True, eps_average=1.61696,
                              eps_low=1.5, eps_high=1.67, revenue_average=94076168920),
        ex_dividend_date=1739145600, dividend_date=1739404800)
    assert parsed("SPOT") == CalendarEvents(
        earnings=EarningsDate(timestamp=1738675800, is_estimate=False, eps_average=2.29967,
                              eps_low=1.88, eps_high=2.81, revenue_average=4215773940),
        ex_dividend_date=None, dividend_date=None)
    assert parsed("OCDO.L") == CalendarEvents(
        earnings=EarningsDate(timestamp=1740639600, is_estimate=False, eps_average=None,
                              eps_low=None, eps_high=None, revenue_average=None),
        ex_dividend_date=None, dividend_date=None)


def test_parser_on_hand_made_shapes():
    formatted = parse_calendar_events({
        "earnings": {"earningsDate": [{"raw": 1800000000, "fmt": "2027-01-15"}],
                     "earningsAverage": {"raw": 1.25, "fmt": "1.25"},
                     "earningsLow": {}, "earningsHigh": {"raw": 1.5, "fmt": "1.5"},
                     "revenueAverage": {"raw": 1.2e9, "fmt": "1.2B", "longFmt": "1,200,000,000"}},
        "exDividendDate": {"raw": 1800057600, "fmt": "2027-01-16"},
        "dividendDate": {}})
    assert formatted == CalendarEvents(
        earnings=EarningsDate(timestamp=1800000000, is_estimate=False, eps_average=1.25,
                              eps_low=None, eps_high=1.5, revenue_average=1200000000),
        ex_dividend_date=1800057600, dividend_date=None)
    # A window of two dates is an estimate even when the flag says otherwise.
    window = parse_calendar_events({"earnings": {"earningsDate": [1800000000, 1800500000],
                                                 "isEarningsDateEstimate": False}})
    assert window.earnings is not None and window.earnings.is_estimate
    assert window.earnings.timestamp == 1800000000
    assert parse_calendar_events({}) == CalendarEvents(None, None, None)
    assert parse_calendar_events({"earnings": {"earningsDate": []}}).earnings is None
    assert parse_calendar_events(None) == CalendarEvents(None, None, None)


# ---- the endpoint on the recordings ---------------------------------------------------------
def test_events_in_the_forward_window_sorted(api, recorded, frozen):
    frozen(2025, 2, 1)
    response = api.get("/v2/calendar?symbols=OCDO.L,aapl,SPOT&range=3mo")
    assert response.status_code == 200, response.content
    assert response.json() == [SPOT_EARNINGS, AAPL_EX, AAPL_DIV, OCDO_EARNINGS, AAPL_EARNINGS]


def test_default_range_is_one_month(api, recorded, frozen):
    frozen(2025, 2, 1)
    body = api.get("/v2/calendar?symbols=AAPL,SPOT,OCDO.L").json()
    assert body == [SPOT_EARNINGS, AAPL_EX, AAPL_DIV, OCDO_EARNINGS]  # not 2025-04-30


def test_past_events_are_left_out(api, recorded, frozen):
    frozen(2025, 2, 24, 12, 0)  # the recording day
    assert api.get("/v2/calendar?symbols=AAPL,SPOT,OCDO.L").json() == [OCDO_EARNINGS]
    assert api.get("/v2/calendar?symbols=AAPL,SPOT&range=1y").json() == [AAPL_EARNINGS]


def test_fields_apply_to_each_event(api, recorded, frozen):
    frozen(2025, 2, 1)
    body = api.get("/v2/calendar?symbols=AAPL&fields=symbol,date,nonsense").json()
    assert body == [{"date": "2025-02-10", "symbol": "AAPL"},
                    {"date": "2025-02-13", "symbol": "AAPL"}]
    assert api.get("/v2/calendar?symbols=AAPL&fields=nonsense").json() == [AAPL_EX, AAPL_DIV]


# ---- windows and ordering on hand-made payloads ---------------------------------------------
@pytest.mark.parametrize(("range_", "days"), sorted(services.RANGE_DAYS.items()))
def test_window_length_per_range(api, yahoo, frozen, range_, days):
    now = frozen(2026, 1, 1)
    start = int(now.timestamp())
    inside, outside = start + days * 86400, start + days * 86400 + 1
    yahoo.summary("AAA", summary_of({"earnings": {"earningsDate": [inside]}}))
    yahoo.summary("BBB", summary_of({"earnings": {"earningsDate": [outside]}}))
    body = api.get(f"/v2/calendar?symbols=AAA,BBB&range={range_}").json()
    assert [(e["symbol"], e["timestamp"]) for e in body] == [("AAA", inside)]


def test_dividend_day_is_listed_until_it_ends(api, yahoo, frozen):
    frozen(2026, 3, 10, 15, 0)
    today, yesterday = 1773100800, 1773100800 - 86400  # 2026-03-10 and -09, 00:00 UTC
    yahoo.summary("AAA", summary_of({"exDividendDate": today, "dividendDate": yesterday,
                                     "earnings": {"earningsDate": [1773100800 + 3600]}}))
    body = api.get("/v2/calendar?symbols=AAA&range=1d").json()
    assert body == [{"date": "2026-03-10", "symbol": "AAA", "timestamp": today,
                     "event": {"EX_DIVIDEND": {"amount": None}}}]  # earnings at 01:00 passed


def test_same_time_sorted_by_symbol_then_kind(api, yahoo, frozen):
    frozen(2026, 3, 1)
    day = 1773100800
    yahoo.summary("ZED", summary_of({"exDividendDate": day, "dividendDate": day}))
    yahoo.summary("ABC", summary_of({"dividendDate": day,
                                     "earnings": {"earningsDate": [day]}}))
    body = api.get("/v2/calendar?symbols=ZED,ABC").json()
    assert [(e["symbol"], next(iter(e["event"]))) for e in body] == [
        ("ABC", "EARNINGS"), ("ABC", "DIVIDEND"), ("ZED", "EX_DIVIDEND"), ("ZED", "DIVIDEND")]


# ---- failures -------------------------------------------------------------------------------
def test_unknown_and_malformed_symbols_are_left_out(api, recorded, frozen):
    frozen(2025, 2, 1)
    recorded.summary("ZZZZ", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v2/calendar?symbols=ZZZZ,../etc,SPOT")
    assert response.status_code == 200
    assert response.json() == [SPOT_EARNINGS]
    fetched = {c.request.url.split("?")[0].rsplit("/", 1)[1]
               for c in calls_to(recorded.mock, SUMMARY)}
    assert fetched == {"ZZZZ", "SPOT"}
    only_unknown = api.get("/v2/calendar?symbols=ZZZZ")
    assert (only_unknown.status_code, only_unknown.json()) == (200, [])


def test_malformed_symbol_makes_no_upstream_call(api, yahoo):
    response = api.get("/v2/calendar?symbols=AA%20PL,x" + "x" * 300)
    assert (response.status_code, response.json()) == (200, [])
    assert not calls_to(yahoo.mock, SUMMARY)


@pytest.mark.parametrize(("query", "message"), [
    ("", "symbols: Field required"),
    ("symbols=", "symbols: String should have at least 1 character"),
    ("symbols=AAPL&range=2w", "range: Input should be '1d', '5d', '1mo', '3mo', '6mo', '1y', "
                              "'2y', '5y', '10y', 'ytd' or 'max'"),
    ("symbols=" + ",".join(f"S{i}" for i in range(51)),
     "symbols: List should have at most 50 items after validation, not 51"),
])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, query, message):
    response = api.get(f"/v2/calendar?{query}")
    assert response.status_code == 400
    assert response.json() == {"error": message, "status": 400}
    assert not calls_to(yahoo.mock, SUMMARY)


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_every_symbol_failing_upstream_is_the_upstream_status(api, yahoo, kind):
    fail_url(yahoo.mock, QUERY2 + SUMMARY + "/AAPL", kind)
    fail_url(yahoo.mock, QUERY2 + SUMMARY + "/MSFT", kind)
    response = api.get("/v2/calendar?symbols=AAPL,MSFT")
    status, _ = FAILURES[kind]
    assert response.status_code == status
    body = response.json()
    assert body["provider"] == "yahoo" and body["status"] == status and body["error"]


def test_partial_upstream_failure_is_left_out_and_not_cached(api, recorded, frozen):
    frozen(2025, 2, 1)
    fail_url(recorded.mock, QUERY2 + SUMMARY + "/MSFT", "timeout")
    response = api.get("/v2/calendar?symbols=MSFT,SPOT")
    assert response.status_code == 200
    assert response.json() == [SPOT_EARNINGS]
    assert response["Cache-Control"] == "no-store"


def test_one_module_request_per_symbol(api, recorded, frozen):
    frozen(2025, 2, 1)
    api.get("/v2/calendar?symbols=AAPL,SPOT")
    calls = calls_to(recorded.mock, SUMMARY)
    assert len(calls) == 2
    assert all("modules=calendarEvents" in c.request.url for c in calls)


# ---- sandbox and schema -----------------------------------------------------------------------
def test_sandbox_gives_upcoming_earnings(api, sandbox_upstream):
    now = int(datetime.now(UTC).timestamp())
    response = api.get("/v2/calendar?symbols=AAPL,MSFT&range=6mo")
    assert response.status_code == 200, response.content
    body = response.json()
    assert {e["symbol"] for e in body if "EARNINGS" in e["event"]} == {"AAPL", "MSFT"}
    assert all(now - 86400 < e["timestamp"] <= now + 180 * 86400 for e in body)
    assert [e["timestamp"] for e in body] == sorted(e["timestamp"] for e in body)
    earnings = next(e["event"]["EARNINGS"] for e in body if "EARNINGS" in e["event"])
    assert isinstance(earnings["epsEstimateAvg"], float)
    assert isinstance(earnings["revenueEstimateAvg"], int)
    assert sandbox_upstream.requests_matching(SUMMARY)


def test_openapi_operation(api):
    operation = api.get("/openapi.json").json()["paths"]["/v2/calendar"]["get"]
    assert operation["operationId"] == "get_calendar"
    assert operation["tags"] == ["Calendar (v2)"]
    assert {p["name"] for p in operation["parameters"]} == {"symbols", "range", "fields",
                                                            "format"}
    assert {"200", "400", "404", "429", "500"} <= set(operation["responses"])
