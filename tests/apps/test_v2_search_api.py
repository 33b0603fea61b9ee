"""GET /v2/search and /v2/lookup: the search recordings through the endpoint (values
exact), every flag sent upstream and in the cache key, paging of the quotes, fields; the
lookup on a body in Yahoo's documented shape completed from a recorded quote batch; every
error status; the sandbox for an equity, an ETF and a non-US listing."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from tests.apps.payloads import FAILURES, QUERY1, fail_url
from tests.conftest import calls_to

DIR = "yahoo/v1-search"
SEARCH_URL = f"{QUERY1}/v1/finance/search"
LOOKUP_URL = f"{QUERY1}/v1/finance/lookup"
SEARCH_MEMBERS = ["count", "quotes", "news", "researchReports", "totalTime"]
QUOTE_MEMBERS = ["symbol", "shortName", "longName", "quoteType", "exchange", "exchDisp",
                 "typeDisp", "industry", "industryDisp", "sector", "sectorDisp",
                 "isYahooFinance", "dispSecIndFlag", "logoUrl", "score"]
LOOKUP_MEMBERS = ["symbol", "shortName", "longName", "quoteType", "exchange", "exchDisp",
                  "typeDisp", "industry", "sector", "regularMarketPrice",
                  "regularMarketChange", "regularMarketChangePercent",
                  "regularMarketPreviousClose", "logoUrl", "companyLogoUrl"]
NEWS_MEMBERS = ["uuid", "title", "publisher", "link", "providerPublishTime", "type",
                "thumbnail", "relatedTickers"]


def sent(mock, fragment):
    return [parse_qs(urlsplit(c.request.url).query) for c in calls_to(mock, fragment)]


@pytest.fixture
def aapl(yahoo, recording):
    payload = recording(f"{DIR}/search-AAPL.json")
    yahoo.get(SEARCH_URL, payload)
    return payload


def test_search_exactly_as_recorded(api, yahoo, aapl):
    response = api.get("/v2/search?q=AAPL&news=4")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == SEARCH_MEMBERS
    assert body["count"] == 11 and body["totalTime"] == 83 and body["researchReports"] == []
    recorded = [q for q in aapl["quotes"] if q.get("symbol")]  # the last entry is no quote
    assert [q["symbol"] for q in body["quotes"]] == [q["symbol"] for q in recorded]
    assert body["quotes"][0] == {
        "symbol": "AAPL", "shortName": "Apple Inc.", "longName": "Apple Inc.",
        "quoteType": "EQUITY", "exchange": "NMS", "exchDisp": "NASDAQ", "typeDisp": "Equity",
        "industry": "Consumer Electronics", "industryDisp": "Consumer Electronics",
        "sector": "Technology", "sectorDisp": "Technology", "isYahooFinance": True,
        "dispSecIndFlag": True, "logoUrl": None, "score": 3804300}
    assert body["quotes"][1]["shortName"] == "Direxion Daily AAPL Bull 2X Sha"  # as sent
    for item, quote in zip(body["quotes"], recorded, strict=True):
        assert list(item) == QUOTE_MEMBERS
        assert item["longName"] == quote.get("longname") and item["score"] == quote["score"]
        assert item["quoteType"] == quote["quoteType"]
    assert body["news"] == [{name: article.get(name) for name in NEWS_MEMBERS}
                            for article in aapl["news"]]


def test_search_of_a_reserialized_recording(api, yahoo, recording):
    yahoo.get(SEARCH_URL, recording(f"{DIR}/search-AAPL-finance-query-2026.json"))
    body = api.get("/v2/search?q=AAPL").json()
    assert body["count"] == 6 and body["totalTime"] == 70 and body["news"] == []
    assert body["quotes"][0]["logoUrl"] == "https://s.yimg.com/lb/brands/150x150_apple.png"
    assert body["quotes"][0]["score"] == 11803000.0 and body["quotes"][0]["shortName"] is None
    assert [q["symbol"] for q in body["quotes"]] == ["AAPL", "AAPU", "AAPL.NE", "AAPL.BA",
                                                     "AAPL.SN", "AAPY.DE"]


def test_every_flag_is_sent_and_in_the_cache_key(api, yahoo, aapl):
    api.get("/v2/search?q=AAPL")
    (first,) = sent(yahoo.mock, "/v1/finance/search")
    assert first["q"] == ["AAPL"] and first["quotesCount"] == ["10"]
    assert first["newsCount"] == ["0"] and first["enableLogoUrl"] == ["true"]
    assert first["enableFuzzyQuery"] == first["enableResearchReports"] == ["false"]
    assert first["enableCulturalAssets"] == ["false"]
    assert first["lang"] == ["en-US"] and first["region"] == ["US"]
    api.get("/v2/search?q=aapl")  # same search (Yahoo ignores case): cached
    assert len(calls_to(yahoo.mock, "/v1/finance/search")) == 1
    for extra in ("fuzzy=true", "research=true", "cultural=true", "logo=false", "region=DE",
                  "lang=fr-FR", "quotes=3", "news=2"):
        api.get(f"/v2/search?q=AAPL&{extra}")
    calls = sent(yahoo.mock, "/v1/finance/search")
    assert len(calls) == 9  # every flag is its own cache entry
    assert calls[1]["enableFuzzyQuery"] == ["true"] and calls[4]["enableLogoUrl"] == ["false"]
    assert calls[5]["region"] == ["DE"] and calls[5]["lang"] == ["en-US"]
    assert calls[6]["lang"] == ["fr-FR"] and calls[6]["region"] == ["FR"]  # lang's region
    api.get("/v2/search?q=AAPL&region=UK")
    assert sent(yahoo.mock, "/v1/finance/search")[-1]["region"] == ["GB"]


def test_quotes_paged_and_fields(api, yahoo, aapl):
    page = api.get("/v2/search?q=AAPL&limit=2").json()
    assert [q["symbol"] for q in page["quotes"]["nodes"]] == ["AAPL", "AAPU"]
    after = page["quotes"]["pageInfo"]["endCursor"]
    page2 = api.get(f"/v2/search?q=AAPL&limit=2&cursor={after}").json()
    assert [q["symbol"] for q in page2["quotes"]["nodes"]] == [
        "AAPL251219C00120000", "AAPL250620P00210000"]
    assert api.get("/v2/search?q=AAPL&fields=count,totalTime").json() == {
        "count": 11, "totalTime": 83}


def test_no_match_is_empty(api, yahoo, recording):
    yahoo.get(SEARCH_URL, recording(f"{DIR}/search-NO0010123060.json"))
    assert api.get("/v2/search?q=NO0010123060&news=4").json() == {
        "count": 0, "quotes": [], "news": [], "researchReports": [], "totalTime": 83}


# -- lookup -----------------------------------------------------------------------------------
def lookup_body(documents, total=None):
    """A lookup answer in Yahoo's documented shape (no recording of this endpoint exists)."""
    return {"finance": {"result": [{"start": 0, "count": len(documents),
                                    "total": total or len(documents),
                                    "documents": documents}], "error": None}}


AAPL_DOC = {"symbol": "AAPL", "shortName": "Apple Inc.", "exchange": "NMS",
            "quoteType": "equity", "rank": 20000, "industryName": "Consumer Electronics",
            "industryLink": "https://finance.yahoo.com/sectors/technology/consumer-electronics",
            "regularMarketPrice": 244.87, "regularMarketChange": 3.34,
            "regularMarketPercentChange": 1.3828}
BABA_DOC = {"symbol": "BABA", "shortName": "Alibaba Group Holding Limited", "exchange": "NYQ",
            "quoteType": "equity", "rank": 19990, "regularMarketPrice": {"raw": 124.73,
                                                                         "fmt": "124.73"}}


@pytest.fixture
def lookup(yahoo, recording):
    yahoo.get(LOOKUP_URL, lookup_body([AAPL_DOC, BABA_DOC], total=57))
    yahoo.quote(recording("yahoo/v7-quote/quote-AAPL-BABA.json"))


def test_lookup_completed_from_one_quote_batch(api, yahoo, lookup):
    response = api.get("/v2/lookup?q=apple")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == ["quotes", "start", "count"]
    assert body["start"] == 0 and body["count"] == 2
    aapl, baba = body["quotes"]
    assert list(aapl) == LOOKUP_MEMBERS
    assert aapl == {
        "symbol": "AAPL", "shortName": "Apple Inc.", "longName": "Apple Inc.",
        "quoteType": "EQUITY", "exchange": "NMS", "exchDisp": None, "typeDisp": None,
        "industry": "Consumer Electronics", "sector": None, "regularMarketPrice": 244.87,
        "regularMarketChange": 3.34, "regularMarketChangePercent": 1.3828,  # the lookup's
        "regularMarketPreviousClose": 241.53, "logoUrl": None, "companyLogoUrl": None}
    assert baba["longName"] == "Alibaba Group Holding Limited"
    assert baba["regularMarketPrice"] == 124.73 and baba["regularMarketChange"] is None
    assert baba["regularMarketChangePercent"] == 4.34164  # filled from the quote
    assert baba["regularMarketPreviousClose"] == 119.54
    (call,) = sent(yahoo.mock, "/v1/finance/lookup")
    assert call["query"] == ["apple"] and call["type"] == ["all"] and call["count"] == ["25"]
    assert call["fetchPricingData"] == ["true"] and call["formatted"] == ["false"]
    (batch,) = sent(yahoo.mock, "/v7/finance/quote")
    assert batch["symbols"] == ["AAPL,BABA"]


def test_lookup_flags_paging_and_fields(api, yahoo, lookup):
    api.get("/v2/lookup?q=apple&type=equity&count=5&region=UK&logo=true")
    call = sent(yahoo.mock, "/v1/finance/lookup")[-1]
    assert call["type"] == ["equity"] and call["count"] == ["5"] and call["region"] == ["GB"]
    batches = sent(yahoo.mock, "/v7/finance/quote")
    assert any("logoUrl" in b.get("fields", [""])[0] for b in batches)  # the logo lookup
    page = api.get("/v2/lookup?q=apple&limit=1&fields=quotes").json()
    assert list(page) == ["quotes"]
    assert [q["symbol"] for q in page["quotes"]["nodes"]] == ["AAPL"]
    assert page["quotes"]["pageInfo"]["hasNextPage"] is True


def test_a_failed_quote_batch_leaves_the_lookup_answered(api, yahoo):
    yahoo.get(LOOKUP_URL, lookup_body([BABA_DOC]))
    fail_url(yahoo.mock, f"{QUERY1}/v7/finance/quote", "yahoo_500")
    response = api.get("/v2/lookup?q=baba")
    assert response.status_code == 200
    (baba,) = response.json()["quotes"]
    assert baba["longName"] is None and baba["regularMarketPrice"] == 124.73


def test_lookup_without_a_match(api, yahoo):
    yahoo.get(LOOKUP_URL, lookup_body([]))
    assert api.get("/v2/lookup?q=nothing").json() == {"quotes": [], "start": 0, "count": 0}
    assert not calls_to(yahoo.mock, "/v7/finance/quote")


def test_a_lookup_error_is_a_502(api, yahoo):
    yahoo.get(LOOKUP_URL, {"finance": {"result": None, "error": {
        "code": "Bad Request", "description": "Invalid type"}}})
    response = api.get("/v2/lookup?q=apple")
    assert response.status_code == 502 and response.json()["provider"] == "yahoo"


# -- errors -----------------------------------------------------------------------------------
@pytest.mark.parametrize("path", [
    "/v2/search", "/v2/search?q=", "/v2/search?q=%20%20", "/v2/search?q=" + "a" * 201,
    "/v2/search?q=a&quotes=101", "/v2/search?q=a&news=-1", "/v2/search?q=a&region=XX",
    "/v2/search?q=a&region=gb", "/v2/search?q=a&lang=not_a_tag", "/v2/search?q=a&fuzzy=maybe",
    "/v2/search?q=a&cursor=!!", "/v2/lookup", "/v2/lookup?q=%20", "/v2/lookup?q=a&type=stock",
    "/v2/lookup?q=a&count=0", "/v2/lookup?q=a&region=XX", "/v2/lookup?q=a&limit=-1"])
def test_bad_requests_are_400_before_any_upstream_call(api, yahoo, path):
    response = api.get(path)
    assert response.status_code == 400, path
    assert response.json()["status"] == 400
    assert not calls_to(yahoo.mock, "/v1/finance/")


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_upstream_failures_name_the_provider(api, yahoo, kind):
    fail_url(yahoo.mock, SEARCH_URL, kind)
    fail_url(yahoo.mock, LOOKUP_URL, kind)
    status, _ = FAILURES[kind]
    for path in ("/v2/search?q=AAPL", "/v2/lookup?q=AAPL"):
        response = api.get(path)
        assert response.status_code == status, path
        body = response.json()
        assert body["status"] == status and body["provider"] == "yahoo" and body["error"]


# -- sandbox ----------------------------------------------------------------------------------
@pytest.mark.parametrize(("symbol", "kind"), [("AAPL", "EQUITY"), ("SPY", "ETF"),
                                              ("SAP.DE", "EQUITY"), ("7203.T", "EQUITY")])
def test_search_and_lookup_through_the_sandbox(api, sandbox_upstream, symbol, kind):
    response = api.get(f"/v2/search?q={symbol}&news=3&research=true")
    assert response.status_code == 200, response.content
    body = response.json()
    top = body["quotes"][0]
    assert top["symbol"] == symbol and top["quoteType"] == kind and list(top) == QUOTE_MEMBERS
    assert (top["logoUrl"] is not None) == (kind == "EQUITY")
    assert len(body["news"]) == 3 and all(symbol in n["relatedTickers"] for n in body["news"])
    assert all(list(n) == NEWS_MEMBERS for n in body["news"])
    assert len(body["researchReports"]) == (2 if kind == "EQUITY" else 0)
    looked = api.get(f"/v2/lookup?q={symbol}&logo=true").json()
    first = looked["quotes"][0]
    assert first["symbol"] == symbol and first["quoteType"] == kind
    assert first["longName"] and first["regularMarketPreviousClose"] > 0
    assert first["regularMarketPrice"] > 0 and first["logoUrl"]
    assert first["regularMarketPrice"] == pytest.approx(
        first["regularMarketPreviousClose"] + first["regularMarketChange"], abs=0.02)


def test_lookup_type_filter_through_the_sandbox(api, sandbox_upstream):
    assert [q["quoteType"] for q in api.get("/v2/lookup?q=SPY&type=etf").json()["quotes"]] \
        == ["ETF"]
    assert api.get("/v2/lookup?q=SPY&type=cryptocurrency").json()["quotes"] == []
    assert api.get("/v2/search?q=ZZZZ").json()["quotes"] == []


def test_the_operations_are_described(api):
    paths = api.get("/openapi.json").json()["paths"]
    names = {p["name"] for p in paths["/v2/search"]["get"]["parameters"]}
    assert {"q", "quotes", "news", "fuzzy", "logo", "research", "cultural", "region", "lang",
            "fields", "cursor", "limit"} <= names
    lookup = {p["name"]: p for p in paths["/v2/lookup"]["get"]["parameters"]}
    assert {"q", "type", "count", "logo", "region", "lang", "fields"} <= set(lookup)
    assert "cryptocurrency" in lookup["type"]["schema"]["enum"]
