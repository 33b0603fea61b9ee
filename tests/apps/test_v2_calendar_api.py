"""GET /v2/calendar and the calendarEvents parser; monthly options expirations and economic
releases.

The recordings (../shared/upstream, taken 2025-02-24) hold dates that are past now, so the
value tests freeze the service's "now" (``apps.calendar.services.utc_now``) before them.
Expected values are copied from the recordings by hand; the expirations and release dates
expected are written by hand from the exchange and agency calendars.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime
from urllib.parse import parse_qs, urlsplit

import pytest
import responses

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


@pytest.fixture(autouse=True)
def _keyless_and_warm(settings):
    """No FRED key unless a test sets one; the market calendar built before the first
    request (a cold build on a busy machine must not eat the request deadline)."""
    from marketdata.markets import session_day

    settings.FRED_API_KEY = ""
    session_day(date(2025, 4, 17))


def symbol_events(body: list[dict]) -> list[dict]:
    """The events of the symbols' own calendars (earnings and dividends)."""
    return [e for e in body
            if next(iter(e["event"])) not in ("OPTIONS_EXPIRATION", "ECONOMIC_RELEASE")]


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
    assert symbol_events(response.json()) == [SPOT_EARNINGS, AAPL_EX, AAPL_DIV, OCDO_EARNINGS,
                                              AAPL_EARNINGS]


def test_default_range_is_one_month(api, recorded, frozen):
    frozen(2025, 2, 1)
    body = symbol_events(api.get("/v2/calendar?symbols=AAPL,SPOT,OCDO.L").json())
    assert body == [SPOT_EARNINGS, AAPL_EX, AAPL_DIV, OCDO_EARNINGS]  # not 2025-04-30


def test_past_events_are_left_out(api, recorded, frozen):
    frozen(2025, 2, 24, 12, 0)  # the recording day
    assert symbol_events(api.get("/v2/calendar?symbols=AAPL,SPOT,OCDO.L").json()) == [
        OCDO_EARNINGS]
    assert symbol_events(api.get("/v2/calendar?symbols=AAPL,SPOT&range=1y").json()) == [
        AAPL_EARNINGS]


def test_fields_apply_to_each_event(api, recorded, frozen):
    frozen(2025, 2, 1)
    body = api.get("/v2/calendar?symbols=AAPL&fields=symbol,date,nonsense").json()
    aapl = [e for e in body if e["symbol"] == "AAPL"]
    assert aapl == [{"date": "2025-02-10", "symbol": "AAPL"},
                    {"date": "2025-02-13", "symbol": "AAPL"},
                    {"date": "2025-02-21", "symbol": "AAPL"}]  # the options expiration
    assert all(list(e) == ["date", "symbol"] for e in body)
    full = api.get("/v2/calendar?symbols=AAPL&fields=nonsense").json()
    assert symbol_events(full) == [AAPL_EX, AAPL_DIV]


# ---- windows and ordering on hand-made payloads ---------------------------------------------
@pytest.mark.parametrize(("range_", "days"), sorted(services.RANGE_DAYS.items()))
def test_window_length_per_range(api, yahoo, frozen, range_, days):
    now = frozen(2026, 1, 1)
    start = int(now.timestamp())
    inside, outside = start + days * 86400, start + days * 86400 + 1
    yahoo.summary("AAA", summary_of({"earnings": {"earningsDate": [inside]}}))
    yahoo.summary("BBB", summary_of({"earnings": {"earningsDate": [outside]}}))
    body = symbol_events(api.get(f"/v2/calendar?symbols=AAA,BBB&range={range_}").json())
    assert [(e["symbol"], e["timestamp"]) for e in body] == [("AAA", inside)]


def test_dividend_day_is_listed_until_it_ends(api, yahoo, frozen):
    frozen(2026, 3, 10, 15, 0)
    today, yesterday = 1773100800, 1773100800 - 86400  # 2026-03-10 and -09, 00:00 UTC
    yahoo.summary("AAA", summary_of({"exDividendDate": today, "dividendDate": yesterday,
                                     "earnings": {"earningsDate": [1773100800 + 3600]}}))
    body = symbol_events(api.get("/v2/calendar?symbols=AAA&range=1d").json())
    assert body == [{"date": "2026-03-10", "symbol": "AAA", "timestamp": today,
                     "event": {"EX_DIVIDEND": {"amount": None}}}]  # earnings at 01:00 passed


def test_same_time_sorted_by_symbol_then_kind(api, yahoo, frozen):
    frozen(2026, 3, 1)
    day = 1773100800
    yahoo.summary("ZED", summary_of({"exDividendDate": day, "dividendDate": day}))
    yahoo.summary("ABC", summary_of({"dividendDate": day,
                                     "earnings": {"earningsDate": [day]}}))
    body = symbol_events(api.get("/v2/calendar?symbols=ZED,ABC").json())
    assert [(e["symbol"], next(iter(e["event"]))) for e in body] == [
        ("ABC", "EARNINGS"), ("ABC", "DIVIDEND"), ("ZED", "EX_DIVIDEND"), ("ZED", "DIVIDEND")]


# ---- failures -------------------------------------------------------------------------------
def test_unknown_and_malformed_symbols_are_left_out(api, recorded, frozen):
    frozen(2025, 2, 1)
    recorded.summary("ZZZZ", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v2/calendar?symbols=ZZZZ,../etc,SPOT")
    assert response.status_code == 200
    assert symbol_events(response.json()) == [SPOT_EARNINGS]
    fetched = {c.request.url.split("?")[0].rsplit("/", 1)[1]
               for c in calls_to(recorded.mock, SUMMARY)}
    assert fetched == {"ZZZZ", "SPOT"}
    only_unknown = api.get("/v2/calendar?symbols=ZZZZ")
    assert only_unknown.status_code == 200
    assert [e["symbol"] for e in only_unknown.json()] == [None] * len(only_unknown.json())


def test_malformed_symbol_makes_no_upstream_call(api, yahoo):
    response = api.get("/v2/calendar?symbols=AA%20PL,x" + "x" * 300)
    assert response.status_code == 200
    assert all(e["symbol"] is None for e in response.json())  # the releases only
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
    assert symbol_events(response.json()) == [SPOT_EARNINGS]
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
    assert {e["symbol"] for e in body if "OPTIONS_EXPIRATION" in e["event"]} == {"AAPL",
                                                                                 "MSFT"}
    assert [e["timestamp"] for e in body] == sorted(e["timestamp"] for e in body)
    earnings = next(e["event"]["EARNINGS"] for e in body if "EARNINGS" in e["event"])
    assert isinstance(earnings["epsEstimateAvg"], float)
    assert isinstance(earnings["revenueEstimateAvg"], int)
    assert sandbox_upstream.requests_matching(SUMMARY)


def test_openapi_operation(api):
    operation = api.get("/openapi.json").json()["paths"]["/v2/calendar"]["get"]
    assert operation["operationId"] == "get_calendar"
    assert operation["tags"] == ["Calendar (v2)"]
    assert {p["name"] for p in operation["parameters"]} == {"symbols", "range", "order",
                                                            "fields", "format"}
    assert {"200", "400", "404", "429", "500"} <= set(operation["responses"])


# ---- monthly options expirations ------------------------------------------------------------
def expirations(body: list[dict]) -> list[tuple[str, str]]:
    return [(e["symbol"], e["date"]) for e in body if "OPTIONS_EXPIRATION" in e["event"]]


@pytest.mark.parametrize(("year", "month", "expected"), [
    (2025, 1, date(2025, 1, 17)), (2025, 3, date(2025, 3, 21)),
    (2025, 4, date(2025, 4, 17)),  # the third Friday, 2025-04-18, was Good Friday
    (2026, 6, date(2026, 6, 18)),  # the third Friday, 2026-06-19, is Juneteenth
    (2026, 11, date(2026, 11, 20)), (2027, 1, date(2027, 1, 15))])
def test_monthly_expiration_is_the_third_friday_or_the_business_day_before(year, month,
                                                                          expected):
    assert services.monthly_expiration(year, month) == expected


def test_expirations_in_the_window_for_us_listings_only(api, yahoo, frozen):
    frozen(2025, 4, 1)
    for symbol in ("AAPL", "BRK-B", "OCDO.L", "BTC-USD"):
        yahoo.summary(symbol, summary_of({}))
    body = api.get("/v2/calendar?symbols=AAPL,BRK-B,OCDO.L,BTC-USD&range=3mo").json()
    assert expirations(body) == [
        ("AAPL", "2025-04-17"), ("BRK-B", "2025-04-17"), ("AAPL", "2025-05-16"),
        ("BRK-B", "2025-05-16"), ("AAPL", "2025-06-20"), ("BRK-B", "2025-06-20")]
    event = next(e for e in body if "OPTIONS_EXPIRATION" in e["event"])
    assert event == {"date": "2025-04-17", "symbol": "AAPL", "timestamp": 1744848000,
                     "event": {"OPTIONS_EXPIRATION": {"contractCount": None}}}
    # Listed while any part of its day is in the window, like the dividend dates.
    frozen(2025, 4, 17, 15, 0)
    assert expirations(api.get("/v2/calendar?symbols=AAPL&range=1d").json()) == [
        ("AAPL", "2025-04-17")]


# ---- economic releases ----------------------------------------------------------------------
def releases(body: list[dict]) -> list[tuple[str, str, str]]:
    return [(e["date"], e["event"]["ECONOMIC_RELEASE"]["seriesId"],
             e["event"]["ECONOMIC_RELEASE"]["name"])
            for e in body if "ECONOMIC_RELEASE" in e["event"]]


CLAIMS = "Unemployment Insurance Weekly Claims Report"


def test_keyless_releases_are_the_schedule_the_service_knows(api, yahoo, frozen):
    frozen(2026, 12, 1)
    yahoo.summary("AAPL", summary_of({}))
    body = api.get("/v2/calendar?symbols=AAPL").json()
    assert releases(body) == [
        ("2026-12-03", "180", CLAIMS), ("2026-12-04", "50", "Employment Situation"),
        ("2026-12-09", "101", "FOMC Press Release"), ("2026-12-10", "180", CLAIMS),
        ("2026-12-17", "180", CLAIMS), ("2026-12-24", "180", CLAIMS),
        ("2026-12-31", "180", CLAIMS)]
    first = next(e for e in body if "ECONOMIC_RELEASE" in e["event"])
    assert first["symbol"] is None and first["timestamp"] == 1796256000  # 12-03 00:00 UTC
    # Thanksgiving moves the claims to Wednesday.
    frozen(2026, 11, 23)
    assert releases(api.get("/v2/calendar?symbols=AAPL&range=5d").json()) == [
        ("2026-11-25", "180", CLAIMS)]


FRED_DATES = "https://api.stlouisfed.org/fred/releases/dates"


def fred_body(rows: list[tuple[int, str, str]]) -> dict:
    return {"realtime_start": "2026-12-01", "realtime_end": "2026-12-31",
            "order_by": "release_date", "sort_order": "asc", "count": len(rows),
            "offset": 0, "limit": 1000,
            "release_dates": [{"release_id": rid, "release_name": name, "date": day}
                              for rid, name, day in rows]}


def test_releases_from_fred_with_its_key(api, yahoo, frozen, settings):
    settings.FRED_API_KEY = "0123456789abcdef0123456789abcdef"
    frozen(2026, 12, 1)
    yahoo.summary("AAPL", summary_of({}))
    rows = [(101, "FOMC Press Release", f"2026-12-{d:02}") for d in (1, 2, 3, 4)]
    rows += [(10, "Consumer Price Index", "2026-12-10"),
             (18, "H.15 Selected Interest Rates", "2026-12-10"),
             (53, "Gross Domestic Product", "2026-12-23")]
    yahoo.mock.add(responses.GET, re.compile(re.escape(FRED_DATES) + r"(\?.*)?$"),
                   body=json.dumps(fred_body(rows)), content_type="application/json")
    body = api.get("/v2/calendar?symbols=AAPL").json()
    # The FOMC's four-day run is FRED's "no data" fill; H.15 is not a major release.
    assert releases(body) == [("2026-12-10", "10", "Consumer Price Index"),
                              ("2026-12-23", "53", "Gross Domestic Product")]
    (call,) = calls_to(yahoo.mock, "/fred/releases/dates")
    query = parse_qs(urlsplit(call.request.url).query)
    assert query["realtime_start"] == ["2026-12-01"]
    assert query["realtime_end"] == ["2026-12-31"]
    assert query["include_release_dates_with_no_data"] == ["true"]
    assert query["order_by"] == ["release_date"] and query["sort_order"] == ["asc"]


def test_a_failing_fred_falls_back_to_the_known_schedule(api, yahoo, frozen, settings):
    settings.FRED_API_KEY = "0123456789abcdef0123456789abcdef"
    frozen(2026, 12, 1)
    yahoo.summary("AAPL", summary_of({}))
    yahoo.mock.add(responses.GET, re.compile(re.escape(FRED_DATES) + r"(\?.*)?$"),
                   status=500, body="oops")
    body = api.get("/v2/calendar?symbols=AAPL&range=5d").json()
    assert releases(body) == [("2026-12-03", "180", CLAIMS),
                              ("2026-12-04", "50", "Employment Situation")]


def test_sandbox_serves_fred_release_dates(api, sandbox_upstream, settings):
    settings.FRED_API_KEY = "sandbox-key"
    body = api.get("/v2/calendar?symbols=AAPL&range=3mo").json()
    names = {name for _, _, name in releases(body)}
    assert "Consumer Price Index" in names  # from the simulated FRED: not in the fallback
    assert sandbox_upstream.requests_matching("/fred/releases/dates")
