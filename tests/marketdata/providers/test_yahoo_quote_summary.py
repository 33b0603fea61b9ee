"""v10 quoteSummary: every recording through parse_quote_summary, 404 bodies, {raw, fmt}."""

from __future__ import annotations

import copy
from urllib.parse import parse_qs, urlsplit

import pytest

from marketdata import formatting as fmt
from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.providers.yahoo.quote_summary import (
    QUOTE_MODULES,
    fetch_quote_summary,
    parse_quote_summary,
)
from tests.conftest import calls_to

from .helpers import at_path, numeric_leaves, recordings, symbol_from_filename, wrap_numbers

QUOTE_MODULE_FILES = [path for module in ("price", "summaryDetail", "defaultKeyStatistics",
                                          "calendarEvents", "assetProfile")
                      for path in recordings(f"yahoo/v10-quoteSummary/{module}")]
ALL_MODULES = recordings("yahoo/v10-quoteSummary/_all-modules")
EVERY_SUMMARY = recordings("yahoo/v10-quoteSummary", "*/*.json")
NOT_FOUND_BODIES = ["yahoo/v10-quoteSummary/financialData/BTC-USD.json",
                    "yahoo/v10-quoteSummary/insiderTransactions/SPOT.json"]


def module_of(path: str) -> str:
    return path.split("/")[-2]


@pytest.mark.parametrize("path", QUOTE_MODULE_FILES)
def test_quote_modules(recording, path):
    payload = recording(path)
    parsed = parse_quote_summary(payload)
    module = module_of(path)
    assert list(parsed) == [module]
    assert parsed == payload["quoteSummary"]["result"][0]
    body = parsed[module]
    assert isinstance(body, dict) and body
    if module == "price":
        assert body["symbol"] == symbol_from_filename(path)
        assert isinstance(fmt.raw(body["regularMarketPrice"]), int | float)


@pytest.mark.parametrize("path", ALL_MODULES)
def test_all_modules_files(recording, path):
    payload = recording(path)
    parsed = parse_quote_summary(payload)
    assert parsed == payload["quoteSummary"]["result"][0]
    assert {"price", "summaryDetail", "assetProfile"} <= set(parsed)
    assert parsed["price"]["symbol"] == symbol_from_filename(path)


@pytest.mark.parametrize("path", EVERY_SUMMARY)
def test_every_summary_recording(recording, path):
    payload = recording(path)
    if "quoteSummary" not in payload:
        # finance-query re-serialised module bodies (envelope stripped, see INDEX.md)
        with pytest.raises(UpstreamBadResponse):
            parse_quote_summary(payload)
        return
    if payload["quoteSummary"]["result"] is None:
        with pytest.raises(NotFound) as info:
            parse_quote_summary(payload)
        assert info.value.detail == payload["quoteSummary"]["error"]["description"]
    else:
        assert parse_quote_summary(payload) == payload["quoteSummary"]["result"][0]


def test_the_404_bodies(recording):
    recording(NOT_FOUND_BODIES[0])  # skips when ../shared/upstream is absent
    found = [p for p in EVERY_SUMMARY
             if recording(p).get("quoteSummary", {"result": 1})["result"] is None]
    assert found == NOT_FOUND_BODIES


@pytest.mark.parametrize("path", NOT_FOUND_BODIES)
def test_404_body_is_not_found(recording, path):
    with pytest.raises(NotFound) as info:
        parse_quote_summary(recording(path))
    assert info.value.status_code == 404
    assert info.value.detail.startswith("No fundamentals data found")


class TestKnownValues:
    def test_aapl_price(self, recording):
        price = parse_quote_summary(recording("yahoo/v10-quoteSummary/price/AAPL.json"))["price"]
        assert price["regularMarketPrice"] == 245.55
        assert fmt.percent(price["regularMarketChangePercent"], fraction=True) == "-0.11%"
        assert fmt.signed_fixed(price["regularMarketChange"]) == "-0.28"
        assert fmt.price(price["regularMarketPrice"], price["priceHint"]) == "245.55"

    def test_aapl_summary_detail(self, recording):
        detail = parse_quote_summary(
            recording("yahoo/v10-quoteSummary/summaryDetail/AAPL.json"))["summaryDetail"]
        assert fmt.compact(detail["marketCap"]) == "3.69T"
        assert detail["volume"] == 53197431
        assert fmt.long_date(detail["exDividendDate"]) == "Feb 10, 2025"
        assert fmt.percent(detail["dividendYield"], fraction=True, sign=False) == "0.41%"

    def test_eurusd_price_hint(self, recording):
        price = parse_quote_summary(
            recording("yahoo/v10-quoteSummary/price/EURUSD_X.json"))["price"]
        assert price["symbol"] == "EURUSD=X"
        assert price["priceHint"] == 4


def wrapped_summary(payload):
    wrapped = copy.deepcopy(payload)
    wrapped["quoteSummary"]["result"] = [wrap_numbers(payload["quoteSummary"]["result"][0])]
    return wrapped


@pytest.mark.parametrize("path", QUOTE_MODULE_FILES + ALL_MODULES)
def test_raw_fmt_shape_gives_the_same_numbers(recording, path):
    payload = recording(path)
    bare = parse_quote_summary(payload)
    wrapped = parse_quote_summary(wrapped_summary(payload))
    leaves = numeric_leaves(bare)
    assert leaves
    for leaf_path, number in leaves:
        assert fmt.raw(at_path(wrapped, leaf_path)) == number, leaf_path


@pytest.mark.parametrize("path", recordings("yahoo/v10-quoteSummary/price"))
def test_raw_fmt_price_formats_the_same(recording, path):
    payload = recording(path)
    bare = parse_quote_summary(payload)["price"]
    wrapped = parse_quote_summary(wrapped_summary(payload))["price"]

    def shown(price):
        return (fmt.price(fmt.raw(price.get("regularMarketPrice")),
                          fmt.raw(price.get("priceHint"))),
                fmt.signed_fixed(fmt.raw(price.get("regularMarketChange"))),
                fmt.percent(fmt.raw(price.get("regularMarketChangePercent")), fraction=True))

    assert shown(wrapped) == shown(bare)
    assert shown(bare)[0] is not None


class TestShapes:
    @pytest.mark.parametrize("payload", [None, {}, [], "x", {"other": {}}])
    def test_not_a_summary(self, payload):
        with pytest.raises(UpstreamBadResponse):
            parse_quote_summary(payload)

    def test_null_quote_summary_is_a_bad_response(self):
        with pytest.raises(UpstreamBadResponse):
            parse_quote_summary({"quoteSummary": None})

    def test_empty_result_is_not_found(self):
        with pytest.raises(NotFound) as info:
            parse_quote_summary({"quoteSummary": {"result": [], "error": None}})
        assert info.value.detail == "No data for symbol"


class TestFetchQuoteSummary:
    def test_through_the_cache(self, yahoo, recording):
        yahoo.summary("AAPL", recording("yahoo/v10-quoteSummary/_all-modules/AAPL.json"))
        first = fetch_quote_summary("AAPL", QUOTE_MODULES)
        assert fetch_quote_summary("AAPL", QUOTE_MODULES) == first
        assert first["price"]["regularMarketPrice"] == 245.55
        calls = calls_to(yahoo.mock, "/v10/finance/quoteSummary/")
        assert len(calls) == 1
        sent = parse_qs(urlsplit(calls[0].request.url).query)
        assert sent["modules"] == [",".join(QUOTE_MODULES)]
        assert sent["formatted"] == ["false"]
        assert sent["crumb"] == ["haT3oykhHqZ"]

    def test_404_recording_is_not_found_and_remembered(self, yahoo, recording):
        yahoo.summary("BTC-USD", recording(NOT_FOUND_BODIES[0]), status=404)
        for _ in range(2):
            with pytest.raises(NotFound) as info:
                fetch_quote_summary("BTC-USD", ["financialData"])
            assert info.value.detail == "Symbol BTC-USD not found"
        assert len(calls_to(yahoo.mock, "/v10/finance/quoteSummary/")) == 1

    def test_symbol_is_url_encoded(self, yahoo, recording):
        yahoo.summary("EURUSD%3DX", recording("yahoo/v10-quoteSummary/price/EURUSD_X.json"))
        assert fetch_quote_summary("EURUSD=X", ["price"])["price"]["priceHint"] == 4
