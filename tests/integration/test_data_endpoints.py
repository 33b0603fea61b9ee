"""Every data endpoint of issues 3 and 4 (v1 data, indicators v1/v2) through the real
service process, over loopback, with
the sandbox upstream as a separate HTTP server standing in for Yahoo and the search
provider (both mapped through UPSTREAM_HOST_MAP, as an operator would point them)."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest

from tests.integration.servers import http

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("the first test waits for the worker's shared servers to start")]


@pytest.fixture(scope="module")
def stack(server_pool):
    service, sandbox = server_pool.stack()
    return sandbox, service


def _get(service, path: str) -> tuple[int, dict[str, str], object]:
    status, headers, body = http("GET", f"{service.base_url}{path}")
    assert headers.get("X-Correlation-ID"), path
    assert "json" in headers.get("Content-Type", ""), (path, headers)
    return status, headers, json.loads(body)


def _sandbox_paths(sandbox, prefix: str) -> list[str]:
    status, _, body = http("GET", f"{sandbox.base_url}/__sandbox__/requests?path_prefix="
                                  f"{quote(prefix)}")
    assert status == 200
    return [entry["path"] for entry in json.loads(body)["requests"]]


MOVER_KEYS = {"symbol", "name", "price", "change", "percentChange"}


@pytest.mark.parametrize("path", ["/v1/actives", "/v1/gainers?count=25", "/v1/losers?count=100"])
def test_movers(stack, path):
    _, service = stack
    status, _, body = _get(service, path)
    assert status == 200, body
    assert 0 < len(body) <= (25 if "25" in path else 100 if "100" in path else 50)
    assert all(set(row) == MOVER_KEYS for row in body)
    assert all(isinstance(row[key], str) for row in body for key in MOVER_KEYS)


def test_movers_bad_count(stack):
    _, service = stack
    status, _, body = _get(service, "/v1/gainers?count=42")
    assert status == 422
    assert body == {"detail": "Invalid request",
                    "errors": {"count": ["Input should be '25', '50' or '100'"]}}


def test_indices(stack):
    _, service = stack
    status, _, body = _get(service, "/v1/indices?index=snp&index=dax&region=OCE")
    assert status == 200, body
    assert len(body) == 5
    assert all({"name", "value", "change", "percentChange"} <= set(row) for row in body)
    assert all(isinstance(row["value"], int | float) for row in body)
    status, _, body = _get(service, "/v1/indices?index=snp&index=nope")
    assert status == 422
    assert list(body["errors"]) == ["index.1"]


def test_sectors(stack):
    _, service = stack
    status, _, body = _get(service, "/v1/sectors")
    assert status == 200, body
    assert len(body) == 11
    assert {row["sector"] for row in body} >= {"Technology", "Utilities", "Basic Materials"}
    status, _, body = _get(service, "/v1/sectors/symbol/AAPL")
    assert status == 200, body
    assert body["sector"] == "Technology"
    status, _, body = _get(service, "/v1/sectors/details/Basic%20Materials")
    assert status == 200, body
    assert body["sector"] == "Basic Materials"
    assert isinstance(body["industries"], int) and isinstance(body["topCompanies"], list)
    status, _, body = _get(service, "/v1/sectors/details/Crypto")
    assert status == 422
    assert list(body["errors"]) == ["sector"]


def test_search_primary_and_fallback(stack):
    _, service = stack
    status, _, body = _get(service, "/v1/search?query=apple&hits=5")
    assert status == 200, body
    assert 0 < len(body) <= 5
    assert all(set(row) == {"name", "symbol", "exchange", "type"} for row in body)
    status, _, fallback = _get(service, "/v1/search?query=apple&hits=5"
                                        "&use_primary_provider=false")
    assert status == 200, fallback
    assert 0 < len(fallback) <= 5


def test_similar(stack):
    _, service = stack
    status, _, body = _get(service, "/v1/similar?symbol=AAPL&limit=3")
    assert status == 200, body
    assert 0 < len(body) <= 3
    assert "AAPL" not in [row["symbol"] for row in body]


def test_news(stack):
    _, service = stack
    for path in ("/v1/news", "/v1/news?symbol=AAPL"):
        status, _, body = _get(service, path)
        assert status == 200, (path, body)
        assert body and all(set(row) == {"title", "link", "source", "img", "time"}
                            for row in body)


@pytest.mark.parametrize("path, member", [
    ("/v1/analysis/AAPL?analysis_type=recommendations", "recommendations"),
    ("/v1/analysis/AAPL/price-targets", "price_targets"),
    ("/v1/holders/AAPL?holder_type=institutional", "institutional_holders"),
    ("/v1/financials/AAPL?statement=income", "statement"),
    ("/v1/financials/0700.HK?statement=balance&frequency=quarterly", "statement"),
    ("/v1/earnings-transcript/AAPL", "transcripts"),
])
def test_per_symbol_endpoints(stack, path, member):
    _, service = stack
    status, _, body = _get(service, path)
    assert status == 200, (path, body)
    assert body[member], (path, body)


def test_holders_alias_keeps_reference_shape(stack):
    _, service = stack
    status, _, body = _get(service, "/v1/holders/AAPL/institutional")
    assert status == 200, body
    assert body["symbol"] == "AAPL" and body["holders"]


@pytest.mark.parametrize("path", [
    "/v1/analysis/..%2F..%2Fv7%2Ffinance%2Fquote?analysis_type=recommendations",
    "/v1/holders/A%20B?holder_type=major",
    "/v1/financials/" + "A" * 500 + "?statement=income",
    "/v1/earnings-transcript/%C3%84APL",
    "/v1/sectors/symbol/..%2F..%2Fetc",
])
def test_hostile_symbols_never_reach_another_upstream_path(stack, path):
    sandbox, service = stack
    before = len(_sandbox_paths(sandbox, "/"))
    status, _, body = _get(service, path)
    assert status in (404, 422), (path, body)
    assert "detail" in body or "errors" in body
    assert len(_sandbox_paths(sandbox, "/")) == before


def test_every_endpoint_is_documented(stack):
    _, service = stack
    status, _, schema = _get(service, "/openapi.json")
    assert status == 200
    paths = set(schema["paths"])
    for expected in ("/v1/actives", "/v1/gainers", "/v1/losers", "/v1/indices", "/v1/sectors",
                     "/v1/sectors/symbol/{symbol}", "/v1/sectors/details/{sector}",
                     "/v1/search", "/v1/similar", "/v1/news", "/v1/analysis/{symbol}",
                     "/v1/holders/{symbol}", "/v1/financials/{symbol}",
                     "/v1/earnings-transcript/{symbol}", "/v1/indicator", "/v1/indicators",
                     "/v2/indicators", "/v2/indicators/{symbol}"):
        assert expected in paths, expected


@pytest.mark.parametrize(("function", "members"), [
    ("SMA", {"value"}), ("RSI", {"value"}), ("SRSI", {"k", "d"}),
    ("BBANDS", {"upper_band", "middle_band", "lower_band"}), ("MACD", {"value", "signal"}),
    ("SUPERTREND", {"value", "trend"}), ("ICHIMOKU", {"tenkan_sen", "kijun_sen",
                                                      "chikou_span", "senkou_span_a",
                                                      "senkou_span_b"}),
])
def test_indicator_history(stack, function, members):
    sandbox, service = stack
    status, _, body = _get(service, f"/v1/indicator?function={function}&symbol=AAPL")
    assert status == 200, body
    assert body["type"] == function
    rows = body["Technical Analysis"]
    assert len(rows) > 400  # 2y of daily bars less the warm-up
    assert list(rows) == sorted(rows, reverse=True)
    assert set().union(*rows.values()) == members
    assert all(rows.values())
    assert _sandbox_paths(sandbox, "/v8/finance/chart/AAPL")


def test_indicator_errors(stack):
    _, service = stack
    status, _, body = _get(service, "/v1/indicator?function=SMA&symbol=AAPL&stdDev=2"
                                    "&lookBackPeriod=0")
    assert status == 422
    assert body == {"detail": "Invalid request", "errors": {
        "period": ["Input should be greater than or equal to 1"],
        "std_dev": ["Not a parameter of SMA (it takes lookBackPeriod)"]}}
    status, _, body = _get(service, "/v1/indicator?function=SMA&symbol=AAPL&interval=1m")
    assert status == 400 and body == {"detail": "If interval is 1m, range must be 1d, 5d"}
    status, _, body = _get(service, "/v1/indicator?function=SMA&symbol=ZZZZ1")
    assert status == 404


def test_latest_indicators(stack):
    _, service = stack
    status, _, body = _get(service, "/v1/indicators?symbol=MSFT")
    assert status == 200, body
    assert len(body) == 26 and "Ichimoku Cloud" in body
    assert all(v is not None for label in body.values() for v in label.values())
    status, _, body = _get(service, "/v1/indicators?symbol=MSFT&functions=RSI,OBV")
    assert list(body) == ["RSI(14)", "OBV"]


def test_v2_indicators(stack):
    _, service = stack
    status, _, body = _get(service, "/v2/indicators?symbols=MSFT,AAPL,ZZZZ1&fields=rsi14,macd")
    assert status == 200, body
    assert [item["symbol"] for item in body["indicators"]] == ["AAPL", "MSFT"]
    assert all(set(item["indicators"]) == {"rsi14", "macd"} for item in body["indicators"])
    assert [e["symbol"] for e in body["errors"]] == ["ZZZZ1"]
    status, _, body = _get(service, "/v2/indicators/AAPL")
    assert status == 200 and len(body) == 57 and body["sma200"] is not None
    status, _, body = _get(service, "/v2/indicators")
    assert status == 400 and body == {"error": "symbols: Field required", "status": 400}
