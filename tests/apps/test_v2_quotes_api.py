"""GET /v2/quote/{symbol}, /v2/quotes and /v2/quote-type/{symbol}.

Yahoo is mocked with the real recordings (``formatted=false`` bodies: bare numbers, which
``format=raw`` must return unchanged). The ``format=pretty|both`` cases use hand-made bodies
in Yahoo's ``formatted=true`` shape (``{raw, fmt, longFmt}`` objects, ``{}`` for a missing
number), since no formatted quoteSummary or v7 quote is recorded.
"""

from __future__ import annotations

import json
from urllib.parse import parse_qs, urlsplit

import pytest

from apps.quotes.serializers import accept_language, normalize_lang, region_of
from marketdata.providers.yahoo.full_quote import QUOTE_MEMBERS
from tests.apps.payloads import (
    EMPTY_QUOTE_RESPONSE,
    FAILURES,
    QUERY1,
    QUERY2,
    QUOTE_SUMMARY_NOT_FOUND,
    fail_url,
)
from tests.conftest import calls_to

ALL_MODULES = "yahoo/v10-quoteSummary/_all-modules/{}.json"
SUMMARY = "/v10/finance/quoteSummary/"
V7 = "/v7/finance/quote"


def query_of(call) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_qs(urlsplit(call.request.url).query).items()}


def summary_modules(recording, symbol: str) -> dict:
    return recording(ALL_MODULES.format(symbol))["quoteSummary"]["result"][0]


# Hand-made, in Yahoo's formatted=true shape.
FORMATTED_SUMMARY = {"quoteSummary": {"error": None, "result": [{
    "price": {"symbol": "AAPL", "longName": "Apple Inc.",
              "regularMarketPrice": {"raw": 245.55, "fmt": "245.55"},
              "marketCap": {"raw": 3688676720640, "fmt": "3.69T",
                            "longFmt": "3,688,676,720,640"},
              "regularMarketTime": {"raw": 1740148202, "fmt": "9:30AM EST"}},
    "summaryDetail": {"dividendYield": {"raw": 0.0041, "fmt": "0.41%"}, "bid": {},
                      "exDividendDate": {"raw": 1739145600, "fmt": "2025-02-10"},
                      "tradeable": False},
    "assetProfile": {"companyOfficers": [
        {"name": "Mr. Timothy D. Cook",
         "totalPay": {"raw": 16239562, "fmt": "16.24M", "longFmt": "16,239,562"},
         "exercisedValue": {"raw": 0, "fmt": None, "longFmt": "0"}}]},
    "earnings": {"financialCurrency": "USD", "earningsChart": {"quarterly": [
        {"date": "4Q2024", "actual": {"raw": 2.4, "fmt": "2.40"}}]}},
}]}}


# ---- /v2/quote/{symbol} ------------------------------------------------------------------
def test_quote_raw_values_are_the_recording(api, yahoo, recording):
    yahoo.summary("AAPL", recording(ALL_MODULES.format("AAPL")))
    response = api.get("/v2/quote/AAPL")
    assert response.status_code == 200, response.content
    body = response.json()
    assert list(body) == list(QUOTE_MEMBERS)
    modules = summary_modules(recording, "AAPL")
    fd, ap, sd = modules["financialData"], modules["assetProfile"], modules["summaryDetail"]
    ks, price = modules["defaultKeyStatistics"], modules["price"]
    assert body["currentPrice"] == fd["currentPrice"]
    assert body["targetMeanPrice"] == fd["targetMeanPrice"]
    assert body["targetMedianPrice"] == fd["targetMedianPrice"]
    assert body["recommendationKey"] == fd["recommendationKey"]
    assert body["returnOnEquity"] == fd["returnOnEquity"]
    assert body["financialCurrency"] == fd["financialCurrency"]
    assert body["auditRisk"] == ap["auditRisk"]
    assert body["shareholderRightsRisk"] == ap["shareHolderRightsRisk"]
    assert body["irWebsite"] == ap["irWebsite"]
    assert (body["phone"], body["zip"], body["state"]) == (ap["phone"], ap["zip"], ap["state"])
    assert body["longBusinessSummary"] == ap["longBusinessSummary"]
    assert body["trailingPe"] == sd["trailingPE"] == 38.91442
    assert body["forwardPe"] == sd["forwardPE"]
    assert body["dividendYield"] == sd["dividendYield"]
    assert body["payoutRatio"] == sd["payoutRatio"]
    assert body["week52Change"] == ks["52WeekChange"]
    assert body["benchmark52WeekChange"] == ks["SandP52WeekChange"]
    assert body["sharesShortPriorMonth"] == ks["sharesShortPriorMonth"]
    assert body["mostRecentQuarter"] == ks["mostRecentQuarter"]
    assert body["regularMarketPrice"] == price["regularMarketPrice"]
    assert body["regularMarketChangePercent"] == price["regularMarketChangePercent"]
    assert body["exchangeName"] == price["exchangeName"]
    assert body["timeZoneFullName"] == modules["quoteType"]["timeZoneFullName"]
    assert body["tradeable"] is False
    assert body["earnings"] == modules["earnings"]
    assert body["upgradeDowngradeHistory"] == modules["upgradeDowngradeHistory"]
    assert body["companyOfficers"][0]["totalPay"] == 16239562
    assert body["logoUrl"] is None and body["companyLogoUrl"] is None
    assert body["yieldValue"] is None and body["topHoldings"] is None

    calls = calls_to(yahoo.mock, SUMMARY)
    assert len(calls) == 1 and not calls_to(yahoo.mock, V7)
    sent = query_of(calls[0])
    assert sent["formatted"] == "true"
    modules_asked = sent["modules"].split(",")
    for module in ("financialData", "assetProfile", "summaryDetail", "defaultKeyStatistics",
                   "price", "quoteType", "earnings", "calendarEvents", "topHoldings"):
        assert module in modules_asked
    assert "lang" not in sent and "region" not in sent


@pytest.mark.parametrize("symbol", ["QQQ", "BTC-USD", "THYAO.IS"])
def test_quote_other_instruments(api, yahoo, recording, symbol):
    yahoo.summary(symbol, recording(ALL_MODULES.format(symbol)))
    body = api.get(f"/v2/quote/{symbol}").json()
    modules = summary_modules(recording, symbol)
    sd = modules["summaryDetail"]
    assert body["symbol"] == symbol
    assert body["fiftyTwoWeekHigh"] == sd["fiftyTwoWeekHigh"]
    assert body["previousClose"] == sd["previousClose"]
    assert body["regularMarketPrice"] == modules["price"]["regularMarketPrice"]
    if symbol == "QQQ":
        assert (body["yieldValue"], body["navPrice"]) == (sd["yield"], sd["navPrice"])
        assert body["fundFamily"] == "Invesco"
        assert body["fundPerformance"] == modules["fundPerformance"]
    if symbol == "BTC-USD":
        assert (body["fromCurrency"], body["toCurrency"]) == ("BTC", "USD=X")
        assert body["currentPrice"] is None
    if symbol == "THYAO.IS":
        assert body["currentPrice"] == modules["financialData"]["currentPrice"]
        assert body["currency"] == modules["price"]["currency"]


def test_quote_formats(api, yahoo):
    yahoo.summary("AAPL", FORMATTED_SUMMARY)
    raw = api.get("/v2/quote/AAPL?fields=regularMarketPrice,marketCap,dividendYield,bid,"
                  "exDividendDate,companyOfficers,earnings,tradeable,longName").json()
    assert raw == {"regularMarketPrice": 245.55, "marketCap": 3688676720640,
                   "dividendYield": 0.0041, "bid": None, "exDividendDate": 1739145600,
                   "companyOfficers": [{"name": "Mr. Timothy D. Cook", "totalPay": 16239562,
                                        "exercisedValue": 0}],
                   "earnings": {"financialCurrency": "USD", "earningsChart": {"quarterly": [
                       {"date": "4Q2024", "actual": 2.4}]}},
                   "tradeable": False, "longName": "Apple Inc."}
    pretty = api.get("/v2/quote/AAPL?format=pretty&fields=regularMarketPrice,marketCap,"
                     "dividendYield,bid,companyOfficers,earnings,longName").json()
    assert pretty["regularMarketPrice"] == "245.55"
    assert pretty["marketCap"] == "3.69T"
    assert pretty["dividendYield"] == "0.41%"
    assert pretty["bid"] is None
    assert pretty["companyOfficers"][0]["exercisedValue"] == "0"  # fmt null -> longFmt
    assert pretty["earnings"]["earningsChart"]["quarterly"][0]["actual"] == "2.40"
    assert pretty["longName"] == "Apple Inc."
    both = api.get("/v2/quote/AAPL?format=both&fields=regularMarketPrice,marketCap,"
                   "companyOfficers").json()
    assert both["regularMarketPrice"] == {"raw": 245.55, "fmt": "245.55"}
    assert both["marketCap"] == {"raw": 3688676720640, "fmt": "3.69T",
                                 "longFmt": "3,688,676,720,640"}
    assert both["companyOfficers"][0]["totalPay"]["longFmt"] == "16,239,562"
    # The format is applied after the cache: one upstream call for the three answers.
    assert len(calls_to(yahoo.mock, SUMMARY)) == 1


def test_quote_fields_keep_requested_nulls(api, yahoo, recording):
    yahoo.summary("AAPL", recording(ALL_MODULES.format("AAPL")))
    body = api.get("/v2/quote/AAPL?fields=symbol,navPrice,nonsense").json()
    assert body == {"symbol": "AAPL", "navPrice": None}
    assert len(api.get("/v2/quote/AAPL?fields=nonsense").json()) == len(QUOTE_MEMBERS)


def test_quote_lang_query_and_accept_language(api, yahoo, recording):
    yahoo.summary("AAPL", recording(ALL_MODULES.format("AAPL")))
    api.get("/v2/quote/AAPL?lang=fr-fr")
    api.get("/v2/quote/AAPL", HTTP_ACCEPT_LANGUAGE="de-DE;q=0.5, *;q=1, es;q=0.9")
    # The query wins over the header.
    api.get("/v2/quote/AAPL?lang=fr-FR&fields=symbol", HTTP_ACCEPT_LANGUAGE="es")
    sent = [query_of(c) for c in calls_to(yahoo.mock, SUMMARY)]
    assert [(s.get("lang"), s.get("region")) for s in sent] == [("fr-FR", "FR"), ("es", None)]


def test_quote_lang_is_part_of_the_cache_key(api, yahoo, recording):
    yahoo.summary("AAPL", recording(ALL_MODULES.format("AAPL")))
    for lang in ("en-US", "de-DE", "en-US"):
        assert api.get(f"/v2/quote/AAPL?lang={lang}&fields=symbol").status_code == 200
    assert len(calls_to(yahoo.mock, SUMMARY)) == 2


@pytest.mark.parametrize(("query", "message"), [
    ("lang=!!", "lang: Input should be a BCP 47 language tag such as 'en-US' (at most 35 "
                "characters)"),
    ("lang=" + "en-" + "a" * 40, "lang: Input should be a BCP 47 language tag such as 'en-US' "
                                 "(at most 35 characters)"),
    ("format=fancy", "format: Input should be 'raw', 'pretty' or 'both'"),
    ("logo=maybe", "logo: Input should be a valid boolean, unable to interpret input"),
])
def test_quote_bad_parameters_are_400_without_upstream_call(api, yahoo, query, message):
    response = api.get(f"/v2/quote/AAPL?{query}")
    assert response.status_code == 400
    assert response.json() == {"error": message, "status": 400}
    assert not calls_to(yahoo.mock, SUMMARY)


def test_quote_logo_runs_a_second_call(api, yahoo, recording):
    yahoo.summary("AAPL", recording(ALL_MODULES.format("AAPL")))
    # Hand-made: v7's answer to fields=logoUrl,companyLogoUrl.
    yahoo.quote({"quoteResponse": {"error": None, "result": [
        {"symbol": "AAPL", "logoUrl": "https://img.example/aapl.png",
         "companyLogoUrl": "https://img.example/c/aapl.png"}]}})
    body = api.get("/v2/quote/AAPL?logo=true&fields=symbol,logoUrl,companyLogoUrl").json()
    assert body == {"symbol": "AAPL", "logoUrl": "https://img.example/aapl.png",
                    "companyLogoUrl": "https://img.example/c/aapl.png"}
    (call,) = calls_to(yahoo.mock, V7)
    sent = query_of(call)
    assert sent["symbols"] == "AAPL"
    assert sent["fields"] == "logoUrl,companyLogoUrl"
    assert (sent["imgHeights"], sent["imgWidths"]) == ("50", "50")


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_quote_logo_failure_leaves_nulls(api, yahoo, recording, logs, kind):
    yahoo.summary("AAPL", recording(ALL_MODULES.format("AAPL")))
    fail_url(yahoo.mock, QUERY1 + V7, kind)
    response = api.get("/v2/quote/AAPL?logo=1&fields=symbol,logoUrl,companyLogoUrl")
    assert response.status_code == 200
    assert response.json() == {"symbol": "AAPL", "logoUrl": None, "companyLogoUrl": None}
    assert "logo lookup failed" in logs.text()


def test_quote_unknown_symbol_404(api, yahoo):
    yahoo.summary("ZZZZ", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v2/quote/ZZZZ")
    assert response.status_code == 404
    assert response.json()["status"] == 404 and response.json()["error"]


@pytest.mark.parametrize("path", ["/v2/quote/A..B", "/v2/quote/%C5%BFPY",
                                  "/v2/quote-type/A..B", "/v2/quote/" + "A" * 40])
def test_malformed_symbol_404_without_upstream_call(api, yahoo, path):
    response = api.get(path)
    assert response.status_code == 404
    assert response.json()["status"] == 404
    assert not calls_to(yahoo.mock, SUMMARY) and not calls_to(yahoo.mock, V7)


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_quote_upstream_failures(api, yahoo, kind):
    fail_url(yahoo.mock, QUERY2 + SUMMARY + "AAPL", kind)
    response = api.get("/v2/quote/AAPL")
    status, _ = FAILURES[kind]
    assert response.status_code == status
    body = response.json()
    assert body["status"] == status and body["provider"] == "yahoo" and body["error"]


def test_quote_on_the_sandbox(api, sandbox_upstream):
    response = api.get("/v2/quote/AAPL?logo=true&lang=de-DE")
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["symbol"] == "AAPL" and isinstance(body["regularMarketPrice"], float)
    assert isinstance(body["currentPrice"], float) and body["recommendationKey"]
    assert isinstance(body["auditRisk"], int) and body["sector"]
    assert body["logoUrl"].endswith("/aapl.png") and body["companyLogoUrl"]
    pretty = api.get("/v2/quote/AAPL?format=pretty&fields=marketCap,regularMarketPrice").json()
    assert pretty["marketCap"].endswith("T") or pretty["marketCap"].endswith("B")
    assert isinstance(pretty["regularMarketPrice"], str)
    assert api.get("/v2/quote/ZZZZQ").status_code == 404


# ---- /v2/quotes ------------------------------------------------------------------------------
def test_quotes_values_are_the_recording_in_request_order(api, yahoo, recording):
    payload = recording("yahoo/v7-quote/quote-AAPL-BABA.json")
    yahoo.quote(payload)
    response = api.get("/v2/quotes?symbols=baba,NOPE,AAPL,a..b")
    assert response.status_code == 200, response.content
    body = response.json()
    items = {i["symbol"]: i for i in payload["quoteResponse"]["result"]}
    assert [q["symbol"] for q in body["quotes"]] == ["BABA", "AAPL"]
    for quote in body["quotes"]:
        sent = items[quote["symbol"]]
        assert list(quote) == list(QUOTE_MEMBERS)
        assert quote["regularMarketPrice"] == sent["regularMarketPrice"]
        assert quote["regularMarketChangePercent"] == sent["regularMarketChangePercent"]
        assert quote["trailingPe"] == sent.get("trailingPE")
        assert quote["trailingEps"] == sent["epsTrailingTwelveMonths"]
        assert quote["averageVolume"] == sent["averageDailyVolume3Month"]
        assert quote["marketCap"] == sent["marketCap"]
        assert quote["exchangeName"] == sent["fullExchangeName"]
        assert quote["bid"] == sent["bid"] and quote["askSize"] == sent["askSize"]
        assert quote["fiftyTwoWeekLow"] == sent["fiftyTwoWeekLow"]
        assert quote["earnings"] is None and quote["sector"] is None
    assert body["errors"] == [{"symbol": "NOPE", "message": "Symbol not found"},
                              {"symbol": "a..b", "message": "Symbol not found"}]
    (call,) = calls_to(yahoo.mock, V7)
    sent = query_of(call)
    assert sent["symbols"] == "BABA,NOPE,AAPL"  # the malformed one never goes upstream
    assert sent["formatted"] == "true"


@pytest.mark.parametrize("name", ["QQQ", "BTC-USD", "EURUSD_X"])
def test_quotes_single_recordings(api, yahoo, recording, name):
    payload = recording(f"yahoo/v7-quote/quote-{name}.json")
    yahoo.quote(payload)
    item = payload["quoteResponse"]["result"][0]
    symbol = item["symbol"]
    body = api.get(f"/v2/quotes?symbols={symbol}").json()
    (quote,) = body["quotes"]
    assert quote["symbol"] == symbol
    assert quote["regularMarketPrice"] == item["regularMarketPrice"]
    assert quote["regularMarketTime"] == item["regularMarketTime"]
    assert quote["timeZoneFullName"] == item["exchangeTimezoneName"]
    assert quote["currency"] == item["currency"]
    assert body["errors"] == []


def test_quotes_formats(api, yahoo):
    # Hand-made, in v7's formatted=true shape.
    yahoo.quote({"quoteResponse": {"error": None, "result": [{
        "symbol": "AAPL", "shortName": "Apple Inc.",
        "regularMarketPrice": {"raw": 244.6, "fmt": "244.60"},
        "marketCap": {"raw": 3674405863424, "fmt": "3.674T", "longFmt": "3,674,405,863,424"},
        "trailingPE": {"raw": 38.763866, "fmt": "38.76"}}]}})
    fields = "fields=regularMarketPrice,marketCap,trailingPe,shortName"
    raw = api.get(f"/v2/quotes?symbols=AAPL&{fields}").json()["quotes"][0]
    assert raw == {"regularMarketPrice": 244.6, "marketCap": 3674405863424,
                   "trailingPe": 38.763866, "shortName": "Apple Inc.", "symbol": "AAPL"}
    pretty = api.get(f"/v2/quotes?symbols=AAPL&format=pretty&{fields}").json()["quotes"][0]
    assert pretty == {"regularMarketPrice": "244.60", "marketCap": "3.674T",
                      "trailingPe": "38.76", "shortName": "Apple Inc.", "symbol": "AAPL"}
    both = api.get(f"/v2/quotes?symbols=AAPL&format=both&{fields}").json()["quotes"][0]
    assert both["marketCap"]["longFmt"] == "3,674,405,863,424"


def test_quotes_paged_over_symbols(api, yahoo, recording):
    yahoo.quote(recording("yahoo/v7-quote/quote-AAPL-BABA.json"))
    first = api.get("/v2/quotes?symbols=AAPL,BABA&limit=1&fields=regularMarketPrice").json()
    assert [n["symbol"] for n in first["quotes"]["nodes"]] == ["AAPL"]
    assert first["quotes"]["pageInfo"]["hasNextPage"] is True
    cursor = first["quotes"]["pageInfo"]["endCursor"]
    second = api.get(f"/v2/quotes?symbols=AAPL,BABA&limit=1&cursor={cursor}"
                     "&fields=regularMarketPrice").json()
    assert [n["symbol"] for n in second["quotes"]["nodes"]] == ["BABA"]
    assert second["quotes"]["pageInfo"]["hasNextPage"] is False
    assert second["errors"] == []


def test_quotes_logo(api, yahoo, recording):
    yahoo.quote(recording("yahoo/v7-quote/quote-AAPL-BABA.json"))
    response = api.get("/v2/quotes?symbols=AAPL,BABA&logo=true&fields=logoUrl")
    assert response.status_code == 200
    calls = calls_to(yahoo.mock, V7)
    assert len(calls) == 2
    logo_call = next(c for c in calls if "fields" in query_of(c))
    assert query_of(logo_call)["symbols"] == "AAPL,BABA"
    # The recording has no logo fields: both stay null.
    assert [q["logoUrl"] for q in response.json()["quotes"]] == [None, None]


def test_quotes_lang_goes_upstream_and_keys_the_cache(api, yahoo, recording):
    yahoo.quote(recording("yahoo/v7-quote/quote-AAPL.json"))
    api.get("/v2/quotes?symbols=AAPL&lang=ja-jp")
    api.get("/v2/quotes?symbols=AAPL&lang=ja-JP&fields=symbol")  # cached: same language
    api.get("/v2/quotes?symbols=AAPL", HTTP_ACCEPT_LANGUAGE="it-IT")
    sent = [query_of(c) for c in calls_to(yahoo.mock, V7)]
    assert [(s.get("lang"), s.get("region")) for s in sent] == [("ja-JP", "JP"),
                                                               ("it-IT", "IT")]


def test_quotes_none_found_is_200_with_errors(api, yahoo):
    yahoo.quote(EMPTY_QUOTE_RESPONSE)
    body = api.get("/v2/quotes?symbols=ZZZZ,YYYY").json()
    assert body == {"quotes": [], "errors": [{"symbol": "ZZZZ", "message": "Symbol not found"},
                                             {"symbol": "YYYY", "message": "Symbol not found"}]}


def test_quotes_only_malformed_symbols_make_no_upstream_call(api, yahoo):
    body = api.get("/v2/quotes?symbols=a..b").json()
    assert body == {"quotes": [], "errors": [{"symbol": "a..b", "message": "Symbol not found"}]}
    assert not calls_to(yahoo.mock, V7)


@pytest.mark.parametrize(("query", "message"), [
    ("", "symbols: Field required"),
    ("symbols=,,", "symbols: String should have at least 1 character"),
    ("symbols=AAPL&format=x", "format: Input should be 'raw', 'pretty' or 'both'"),
    ("symbols=AAPL&limit=-1", "limit: Input should be greater than or equal to 0"),
    ("symbols=AAPL&cursor=!!", "cursor: Invalid cursor"),
])
def test_quotes_bad_requests(api, yahoo, query, message):
    response = api.get(f"/v2/quotes?{query}")
    assert response.status_code == 400
    assert response.json() == {"error": message, "status": 400}
    assert not calls_to(yahoo.mock, V7)


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_quotes_upstream_failure_is_the_upstream_status(api, yahoo, kind):
    fail_url(yahoo.mock, QUERY1 + V7, kind)
    response = api.get("/v2/quotes?symbols=AAPL,MSFT")
    status, _ = FAILURES[kind]
    assert response.status_code == status
    assert response.json()["provider"] == "yahoo"


def test_quotes_on_the_sandbox(api, sandbox_upstream):
    response = api.get("/v2/quotes?symbols=MSFT,ZZZZQ,AAPL&logo=true&format=pretty"
                       "&fields=regularMarketPrice,logoUrl")
    assert response.status_code == 200, response.content
    body = response.json()
    assert [q["symbol"] for q in body["quotes"]] == ["MSFT", "AAPL"]
    assert all(isinstance(q["regularMarketPrice"], str) for q in body["quotes"])
    assert body["quotes"][0]["logoUrl"].endswith("/msft.png")
    assert body["errors"] == [{"symbol": "ZZZZQ", "message": "Symbol not found"}]
    raw = api.get("/v2/quotes?symbols=AAPL").json()["quotes"][0]
    assert isinstance(raw["regularMarketPrice"], float) and raw["logoUrl"] is None


# ---- /v2/quote-type/{symbol} -------------------------------------------------------------
@pytest.mark.parametrize("symbol", ["AAPL", "BTC-USD", "QQQ"])
def test_quote_type_is_the_recording(api, yahoo, recording, symbol):
    payload = recording(f"yahoo/v10-quoteSummary/quoteType/{symbol}.json")
    yahoo.summary(symbol, payload)
    response = api.get(f"/v2/quote-type/{symbol}")
    assert response.status_code == 200
    sent = payload["quoteSummary"]["result"][0]["quoteType"]
    assert response.json() == {name: sent[name] for name in (
        "symbol", "exchange", "longName", "shortName", "quoteType", "messageBoardId",
        "timeZoneFullName", "timeZoneShortName", "underlyingSymbol", "uuid",
        "firstTradeDateEpochUtc", "gmtOffSetMilliseconds", "maxAge")}
    (call,) = calls_to(yahoo.mock, SUMMARY)
    assert query_of(call)["modules"] == "quoteType"


def test_quote_type_fields(api, yahoo, recording):
    payload = recording("yahoo/v10-quoteSummary/quoteType/AAPL.json")
    yahoo.summary("AAPL", payload)
    sent = payload["quoteSummary"]["result"][0]["quoteType"]
    body = api.get("/v2/quote-type/AAPL?fields=uuid,gmtOffSetMilliseconds,nope").json()
    assert body == {"uuid": sent["uuid"], "gmtOffSetMilliseconds": sent["gmtOffSetMilliseconds"]}


def test_quote_type_unknown_404(api, yahoo):
    yahoo.summary("ZZZZ", QUOTE_SUMMARY_NOT_FOUND, status=404)
    response = api.get("/v2/quote-type/ZZZZ")
    assert response.status_code == 404 and response.json()["status"] == 404


@pytest.mark.parametrize("kind", sorted(FAILURES))
def test_quote_type_upstream_failures(api, yahoo, kind):
    fail_url(yahoo.mock, QUERY2 + SUMMARY + "AAPL", kind)
    response = api.get("/v2/quote-type/AAPL")
    status, _ = FAILURES[kind]
    assert response.status_code == status and response.json()["provider"] == "yahoo"


def test_quote_type_on_the_sandbox(api, sandbox_upstream):
    body = api.get("/v2/quote-type/MSFT").json()
    assert body["symbol"] == "MSFT" and body["quoteType"] == "EQUITY"
    assert isinstance(body["firstTradeDateEpochUtc"], int)
    assert isinstance(body["gmtOffSetMilliseconds"], int)


# ---- v1 is unchanged -----------------------------------------------------------------------
def test_v1_quotes_still_ask_for_bare_numbers(api, yahoo, recording):
    yahoo.summary("AAPL", recording(ALL_MODULES.format("AAPL")))
    assert api.get("/v1/quotes?symbols=AAPL").status_code == 200
    (call,) = calls_to(yahoo.mock, SUMMARY)
    sent = query_of(call)
    assert sent["formatted"] == "false"
    assert "financialData" not in sent["modules"]


# ---- OpenAPI ---------------------------------------------------------------------------------
def test_openapi_operations(api):
    response = api.get("/openapi.json")
    assert response.status_code == 200
    doc = json.loads(response.content)
    quote = doc["paths"]["/v2/quote/{symbol}"]["get"]
    assert quote["operationId"] == "get_quote_v2" and quote["tags"] == ["Quotes (v2)"]
    assert "`format`" in quote["description"] and "`logo`" in quote["description"]
    names = {p["name"] for p in quote["parameters"]}
    assert {"format", "lang", "logo", "fields", "symbol"} <= names
    schema = quote["responses"]["200"]["content"]["application/json"]["schema"]
    assert set(schema["properties"]) == set(QUOTE_MEMBERS)
    batch = doc["paths"]["/v2/quotes"]["get"]
    assert {"symbols", "cursor", "limit", "format", "lang", "logo"} <= {
        p["name"] for p in batch["parameters"]}
    assert doc["paths"]["/v2/quote-type/{symbol}"]["get"]["operationId"] == "get_quote_type_v2"


# ---- language helpers ------------------------------------------------------------------------
@pytest.mark.parametrize(("tag", "normal"), [
    ("en", "en"), ("EN-us", "en-US"), ("zh-hant-tw", "zh-Hant-TW"), ("es-419", "es-419"),
    ("de-CH-1996", "de-CH-1996"), ("", None), ("e", None), ("en_US", None), ("en--US", None),
    ("*", None), ("fr-" + "x" * 9, None), ("1234", None), ("en-US-" + "-".join(["abc"] * 9),
                                                          None),
])
def test_normalize_lang(tag, normal):
    assert normalize_lang(tag) == normal


def test_region_of():
    assert region_of("fr-CA") == "CA" and region_of("zh-Hant-TW") == "TW"
    assert region_of("de") is None and region_of(None) is None and region_of("es-419") is None


@pytest.mark.parametrize(("header", "lang"), [
    ("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5", "fr-CH"),
    ("de;q=0.5, es;q=0.9, *", "es"),
    ("*", None), ("", None), (None, None), ("en;q=0, da", "da"),
    ("bad tag!, it;q=0.1", "it"), ("en;q=abc, pt-br;q=0.2", "pt-BR"),
    ("ja;q=0.8, ko;q=0.8", "ja"),
])
def test_accept_language(header, lang):
    assert accept_language(header) == lang
