"""GET /v2/dividends/{symbol}, /v2/dividends, /v2/splits/{symbol}, /v2/splits, and /v2/ping.

Yahoo is mocked with the real recordings (dividends and splits must come out exactly as
recorded) or small hand-made bodies in Yahoo's chart shape; the sandbox tests run the real
client and parsers against the in-process simulator.
"""

from __future__ import annotations

import time

import pytest

from tests.apps.payloads import CHART_NOT_FOUND, FAILURES, QUERY2, chart_payload, fail_url
from tests.apps.test_v2_chart_api import AAPL_SPLIT, MSFT_DIVIDENDS, chart_calls
from tests.conftest import calls_to

DAY = 86400
YEAR = 31_557_600


def events_chart(symbol: str, dividends: dict[int, float], splits: dict[int, tuple] | None,
                 now: int) -> dict:
    """A monthly chart body with dividend (and split) events, as Yahoo sends them."""
    body = chart_payload(symbol, [now - 400 * DAY, now - 30 * DAY],
                         [(10.0, 10.0, 10.0, 10.0, 100)] * 2, adjclose=[9.5, 10.0],
                         granularity="1mo")
    events: dict = {"dividends": {str(ts): {"amount": amount, "date": ts}
                                  for ts, amount in dividends.items()}}
    if splits:
        events["splits"] = {str(ts): {"date": ts, "numerator": num, "denominator": den,
                                      "splitRatio": f"{num}:{den}"}
                            for ts, (num, den) in splits.items()}
    body["chart"]["result"][0]["events"] = events
    return body


@pytest.fixture
def payer(yahoo):
    """KO-like: a dividend growing 10 % a year for three years, then two more; a 2:1 split
    and a 1:10 reverse split."""
    now = int(time.time())
    first = now - 3 * YEAR - 40 * DAY
    dividends = {first: 1.0, first + YEAR: 1.1, first + 2 * YEAR: 1.21,
                 first + 3 * YEAR: 1.331, now - 10 * DAY: 0.1}
    splits = {now - 2000 * DAY: (2, 1), now - 100 * DAY: (1, 10)}
    yahoo.chart("KO", events_chart("KO", dividends, splits, now))
    return {"now": now, "dividends": dividends, "splits": splits}


# ---- /v2/dividends/{symbol} ------------------------------------------------------------------
def test_dividends_exactly_as_recorded(api, yahoo, recording):
    yahoo.chart("MSFT", recording(MSFT_DIVIDENDS))
    response = api.get("/v2/dividends/msft")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == ["dividends", "analytics"]
    assert body["dividends"] == [
        {"timestamp": 1613572200, "amount": 0.56}, {"timestamp": 1621431000, "amount": 0.56},
        {"timestamp": 1629293400, "amount": 0.56}, {"timestamp": 1637159400, "amount": 0.62}]
    assert body["analytics"] == {
        "totalPaid": 2.3, "paymentCount": 4, "averagePayment": 0.575, "cagr": None,
        "lastPayment": {"timestamp": 1637159400, "amount": 0.62},
        "firstPayment": {"timestamp": 1613572200, "amount": 0.56}}
    # The whole history, once: every range and both event kinds read the same answer.
    assert chart_calls(yahoo) == [{"range": ["max"], "interval": ["1mo"],
                                   "includePrePost": ["false"],
                                   "events": ["div,split,capitalGain"]}]


def test_analytics_growth_and_sums_without_float_noise(api, yahoo, payer):
    body = api.get("/v2/dividends/KO?range=10y").json()
    analytics = body["analytics"]
    assert analytics["paymentCount"] == 5
    assert analytics["totalPaid"] == 4.741  # 1 + 1.1 + 1.21 + 1.331 + 0.1, exactly
    assert analytics["averagePayment"] == 0.9482
    first, last = body["dividends"][0], body["dividends"][-1]
    years = (last["timestamp"] - first["timestamp"]) / YEAR
    assert analytics["cagr"] == pytest.approx((0.1 / 1.0) ** (1 / years) - 1)
    assert analytics["firstPayment"] == first and analytics["lastPayment"] == last


def test_growth_is_null_within_a_year(api, yahoo, payer):
    analytics = api.get("/v2/dividends/KO?range=1mo").json()["analytics"]
    assert analytics["paymentCount"] == 1 and analytics["cagr"] is None


@pytest.mark.parametrize(("range_", "count"), [("1mo", 1), ("1y", 2), ("5y", 5),
                                               ("max", 5), ("5d", 0)])
def test_dividends_range_cutoff(api, yahoo, payer, range_, count):
    body = api.get(f"/v2/dividends/KO?range={range_}").json()
    assert len(body["dividends"]) == count == body["analytics"]["paymentCount"]


def test_no_dividends_is_empty_with_zero_totals(api, yahoo):
    yahoo.chart("TSLA", events_chart("TSLA", {}, None, int(time.time())))
    body = api.get("/v2/dividends/TSLA").json()
    assert body == {"dividends": [], "analytics": {
        "totalPaid": 0.0, "paymentCount": 0, "averagePayment": None, "cagr": None,
        "lastPayment": None, "firstPayment": None}}


def test_dividends_paging_and_fields(api, yahoo, payer):
    page = api.get("/v2/dividends/KO?limit=2").json()
    assert [d["amount"] for d in page["dividends"]["nodes"]] == [1.0, 1.1]
    assert page["dividends"]["pageInfo"]["hasNextPage"] is True
    assert page["analytics"]["paymentCount"] == 5  # over every dividend, whatever the page
    after = page["dividends"]["pageInfo"]["endCursor"]
    rest = api.get(f"/v2/dividends/KO?limit=10&cursor={after}").json()["dividends"]["nodes"]
    assert [d["amount"] for d in rest] == [1.21, 1.331, 0.1]
    assert list(api.get("/v2/dividends/KO?fields=analytics").json()) == ["analytics"]


# ---- /v2/splits/{symbol} ------------------------------------------------------------------------
def test_splits_exactly_as_recorded(api, yahoo, recording):
    yahoo.chart("AAPL", recording(AAPL_SPLIT))
    response = api.get("/v2/splits/AAPL")
    assert response.status_code == 200, response.content
    assert response.json() == [{"timestamp": 1598880600, "numerator": 4.0,
                                "denominator": 1.0, "ratio": "4:1"}]


def test_splits_range_fields_and_reverse_splits(api, yahoo, payer):
    now = payer["now"]
    assert api.get("/v2/splits/KO").json() == [
        {"timestamp": now - 2000 * DAY, "numerator": 2, "denominator": 1, "ratio": "2:1"},
        {"timestamp": now - 100 * DAY, "numerator": 1, "denominator": 10, "ratio": "1:10"}]
    assert api.get("/v2/splits/KO?range=1y&fields=ratio").json() == [{"ratio": "1:10"}]


# ---- batches ------------------------------------------------------------------------------------
def test_dividends_batch(api, yahoo, payer, recording):
    yahoo.chart("MSFT", recording(MSFT_DIVIDENDS))
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    response = api.get("/v2/dividends?symbols=ZZZZ,ko,MSFT,KO&range=1y&fields=amount")
    assert response.status_code == 200, response.content
    assert response.json() == {
        "dividends": [{"symbol": "KO", "dividends": [{"amount": 1.331}, {"amount": 0.1}]},
                      {"symbol": "MSFT", "dividends": []}],
        "errors": [{"symbol": "ZZZZ", "message": "No data found for symbol ZZZZ"}]}


def test_dividends_batch_pages_over_symbols(api, yahoo, payer, recording):
    yahoo.chart("MSFT", recording(MSFT_DIVIDENDS))
    body = api.get("/v2/dividends?symbols=KO,MSFT&limit=1").json()
    assert [item["symbol"] for item in body["dividends"]["nodes"]] == ["KO"]
    assert len(body["dividends"]["nodes"][0]["dividends"]) == 5  # inner lists stay bare
    assert body["dividends"]["pageInfo"]["hasNextPage"] is True


def test_splits_batch(api, yahoo, payer, recording):
    yahoo.chart("AAPL", recording(AAPL_SPLIT))
    body = api.get("/v2/splits?symbols=AAPL,KO,..&fields=ratio").json()
    assert body["splits"] == [{"symbol": "AAPL", "splits": [{"ratio": "4:1"}]},
                              {"symbol": "KO", "splits": [{"ratio": "2:1"}, {"ratio": "1:10"}]}]
    assert [e["symbol"] for e in body["errors"]] == [".."]


# ---- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/v2/dividends/KO?range=7y", "/v2/dividends?symbols=KO&range=2w",
                                  "/v2/dividends", "/v2/splits", "/v2/splits/KO?range=1wk",
                                  "/v2/dividends/KO?limit=-1", "/v2/dividends/KO?cursor=%%%"])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, path):
    response = api.get(path)
    assert response.status_code == 400, response.content
    assert response.json()["status"] == 400
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


@pytest.mark.parametrize("symbol", ["..", "AA PL", "x" * 300])
def test_malformed_symbols_404_without_an_upstream_call(api, yahoo, symbol):
    for path in (f"/v2/dividends/{symbol}", f"/v2/splits/{symbol}"):
        response = api.get(path)
        assert response.status_code == 404 and response.json()["status"] == 404
    assert not calls_to(yahoo.mock, "/v8/finance/chart")


def test_unknown_symbol_404(api, yahoo):
    yahoo.chart("ZZZZ", CHART_NOT_FOUND, status=404)
    for path in ("/v2/dividends/ZZZZ", "/v2/splits/ZZZZ"):
        response = api.get(path)
        assert response.status_code == 404
        assert response.json() == {"error": "No data found for symbol ZZZZ", "status": 404}


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, QUERY2 + "/v8/finance/chart/AAPL", kind)
    status, _ = FAILURES[kind]
    for path in ("/v2/dividends/AAPL", "/v2/dividends?symbols=AAPL", "/v2/splits/AAPL",
                 "/v2/splits?symbols=AAPL"):
        response = api.get(path)
        assert response.status_code == status, path
        body = response.json()
        assert body["status"] == status and body["provider"] == "yahoo" and body["error"]


# ---- the sandbox, the schema, ping ---------------------------------------------------------------
@pytest.mark.parametrize("symbol", ["KO", "SPY", "7203.T"])
def test_dividends_and_splits_through_the_sandbox(api, sandbox_upstream, symbol):
    dividends = api.get(f"/v2/dividends/{symbol}")
    assert dividends.status_code == 200, dividends.content
    body = dividends.json()
    stamps = [d["timestamp"] for d in body["dividends"]]
    assert stamps == sorted(stamps) and body["analytics"]["paymentCount"] == len(stamps)
    assert all(d["amount"] > 0 for d in body["dividends"])
    splits = api.get(f"/v2/splits/{symbol}")
    assert splits.status_code == 200
    assert all(s["ratio"] == f"{s['numerator']:g}:{s['denominator']:g}" for s in splits.json())


def test_the_operations_are_described(api):
    paths = api.get("/openapi.json").json()["paths"]
    for path in ("/v2/dividends/{symbol}", "/v2/dividends", "/v2/splits/{symbol}",
                 "/v2/splits", "/v2/ping"):
        operation = paths[path]["get"]
        assert operation["summary"] and "200" in operation["responses"], path
    names = {p["name"] for p in paths["/v2/dividends/{symbol}"]["get"]["parameters"]}
    assert {"symbol", "range", "fields", "cursor", "limit"} <= names


def test_v2_ping(api):
    response = api.get("/v2/ping")
    assert response.status_code == 200
    assert response.json() == {"message": "pong"}
