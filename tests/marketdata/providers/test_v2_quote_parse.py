"""v2 quote records: quoteSummary modules -> GqlQuote members, v7 results -> GqlQuote members,
the quoteType module, logo lookups and the ``format`` presentation.

Expected values are read straight from the real recordings (``formatted=false``, so every
number is bare and must come out unchanged with ``format=raw``). The ``pretty``/``both``
cases use hand-made bodies in Yahoo's ``formatted=true`` shape (``{raw, fmt, longFmt}``
objects, ``{}`` for a missing number), since no formatted quoteSummary is recorded.
"""

from __future__ import annotations

import pytest

from marketdata.providers.yahoo.full_quote import (
    QUOTE_MEMBERS,
    V2_QUOTE_MODULES,
    GqlQuote,
    parse_gql_quote,
    parse_quote_type,
    present_value,
)
from marketdata.providers.yahoo.quote import (
    V7_DERIVED,
    V7_MEMBERS,
    parse_gql_quotes,
    parse_logos,
    parse_quotes,
)
from marketdata.providers.yahoo.quote_summary import parse_quote_summary
from marketdata.records.members import as_json
from tests.conftest import load_recording

from .helpers import recordings, wrap_numbers

ALL_MODULES = "yahoo/v10-quoteSummary/_all-modules/{}.json"


def modules_of(symbol: str) -> dict:
    return parse_quote_summary(load_recording(ALL_MODULES.format(symbol)))


def raw_values(record: GqlQuote) -> dict:
    values = as_json(record)
    return {name: present_value(values[name], "raw") for name in QUOTE_MEMBERS}


# -- quoteSummary -> GqlQuote ------------------------------------------------------------------
# (member, module, Yahoo key) pairs checked against every all-modules recording that has them.
SUMMARY_PAIRS = [
    ("currentPrice", "financialData", "currentPrice"),
    ("targetMeanPrice", "financialData", "targetMeanPrice"),
    ("targetHighPrice", "financialData", "targetHighPrice"),
    ("recommendationKey", "financialData", "recommendationKey"),
    ("recommendationMean", "financialData", "recommendationMean"),
    ("numberOfAnalystOpinions", "financialData", "numberOfAnalystOpinions"),
    ("totalRevenue", "financialData", "totalRevenue"),
    ("freeCashflow", "financialData", "freeCashflow"),
    ("debtToEquity", "financialData", "debtToEquity"),
    ("auditRisk", "assetProfile", "auditRisk"),
    ("shareholderRightsRisk", "assetProfile", "shareHolderRightsRisk"),
    ("irWebsite", "assetProfile", "irWebsite"),
    ("phone", "assetProfile", "phone"),
    ("zip", "assetProfile", "zip"),
    ("city", "assetProfile", "city"),
    ("industryDisp", "assetProfile", "industryDisp"),
    ("sectorKey", "assetProfile", "sectorKey"),
    ("fullTimeEmployees", "assetProfile", "fullTimeEmployees"),
    ("trailingPe", "summaryDetail", "trailingPE"),
    ("forwardPe", "summaryDetail", "forwardPE"),
    ("yieldValue", "summaryDetail", "yield"),
    ("dividendYield", "summaryDetail", "dividendYield"),
    ("exDividendDate", "summaryDetail", "exDividendDate"),
    ("fiftyTwoWeekHigh", "summaryDetail", "fiftyTwoWeekHigh"),
    ("navPrice", "summaryDetail", "navPrice"),
    ("totalAssets", "summaryDetail", "totalAssets"),
    ("fiveYearAvgDividendYield", "summaryDetail", "fiveYearAvgDividendYield"),
    ("volume", "summaryDetail", "volume"),
    ("bid", "summaryDetail", "bid"),
    ("askSize", "summaryDetail", "askSize"),
    ("tradeable", "summaryDetail", "tradeable"),
    ("week52Change", "defaultKeyStatistics", "52WeekChange"),
    ("benchmark52WeekChange", "defaultKeyStatistics", "SandP52WeekChange"),
    ("enterpriseValue", "defaultKeyStatistics", "enterpriseValue"),
    ("sharesShort", "defaultKeyStatistics", "sharesShort"),
    ("lastSplitFactor", "defaultKeyStatistics", "lastSplitFactor"),
    ("lastFiscalYearEnd", "defaultKeyStatistics", "lastFiscalYearEnd"),
    ("category", "defaultKeyStatistics", "category"),
    ("fundFamily", "defaultKeyStatistics", "fundFamily"),
    ("regularMarketPrice", "price", "regularMarketPrice"),
    ("regularMarketChangePercent", "price", "regularMarketChangePercent"),
    ("regularMarketTime", "price", "regularMarketTime"),
    ("exchangeName", "price", "exchangeName"),
    ("currencySymbol", "price", "currencySymbol"),
    ("marketState", "price", "marketState"),
    ("preMarketPrice", "price", "preMarketPrice"),
    ("timeZoneFullName", "quoteType", "timeZoneFullName"),
    ("timeZoneShortName", "quoteType", "timeZoneShortName"),
    ("firstTradeDateEpochUtc", "quoteType", "firstTradeDateEpochUtc"),
    ("gmtOffSetMilliseconds", "quoteType", "gmtOffSetMilliseconds"),
]
SYMBOLS = [p.rsplit("/", 1)[-1].removesuffix(".json")
           for p in recordings("yahoo/v10-quoteSummary/_all-modules")]


@pytest.mark.parametrize("symbol", SYMBOLS)
def test_members_are_the_recorded_values(symbol):
    modules = modules_of(symbol)
    values = raw_values(parse_gql_quote(symbol, modules))
    checked = 0
    for member, module, key in SUMMARY_PAIRS:
        sent = modules.get(module, {}).get(key)
        if sent is None or sent == "":
            continue
        assert values[member] == sent, member
        assert type(values[member]) is type(sent), member  # 1 stays 1, never 1.0
        checked += 1
    assert checked >= 10
    assert set(values) == set(QUOTE_MEMBERS)


def test_aapl_by_hand():
    """A few members spelled out from AAPL's recording (summaryDetail, key statistics,
    financialData, assetProfile, price)."""
    v = raw_values(parse_gql_quote("AAPL", modules_of("AAPL")))
    assert v["symbol"] == "AAPL"
    assert v["trailingPe"] == 38.91442
    assert v["forwardPe"] == 29.548735  # summaryDetail's, not key statistics' 29.80388
    assert v["week52Change"] == 0.35543168
    assert v["benchmark52WeekChange"] == 0.1861316
    assert v["dividendYield"] == 0.0041
    assert v["exDividendDate"] == 1739145600
    assert v["lastSplitFactor"] == "4:1"
    assert v["zip"] == "95014" and v["phone"] == "(408) 996-1010"
    assert v["tradeable"] is False
    assert v["averageVolume"] == 50792552
    assert v["yieldValue"] is None and v["navPrice"] is None  # a stock has no fund yield


def test_object_members_are_module_bodies_with_raw_numbers():
    modules = modules_of("AAPL")
    v = raw_values(parse_gql_quote("AAPL", modules))
    assert v["earnings"] == modules["earnings"]
    assert v["calendarEvents"] == modules["calendarEvents"]
    assert v["recommendationTrend"] == modules["recommendationTrend"]
    # Statement dates are {raw, fmt} objects even in this formatted=false recording.
    statements = modules["balanceSheetHistory"]["balanceSheetStatements"]
    assert statements[0]["endDate"] == {"raw": 1727654400, "fmt": "2024-09-30"}
    assert v["balanceSheetHistory"]["balanceSheetStatements"][0] == {"maxAge": 1,
                                                                    "endDate": 1727654400}
    # companyOfficers carries Yahoo's {raw, fmt, longFmt} objects even with formatted=false:
    # format=raw reduces them to the raw number.
    first = modules["assetProfile"]["companyOfficers"][0]
    assert first["totalPay"] == {"raw": 16239562, "fmt": "16.24M", "longFmt": "16,239,562"}
    assert v["companyOfficers"][0]["totalPay"] == 16239562
    assert v["companyOfficers"][0]["name"] == first["name"]
    assert v["equityPerformance"] is None  # not in the recording


def test_fund_and_crypto_members():
    qqq = raw_values(parse_gql_quote("QQQ", modules_of("QQQ")))
    assert (qqq["yieldValue"], qqq["navPrice"], qqq["totalAssets"]) == (0.0054, 526.07,
                                                                       328302690304)
    assert qqq["category"] == "Large Growth" and qqq["fundFamily"] == "Invesco"
    assert qqq["fundPerformance"]["fundCategoryName"] is not None
    assert qqq["topHoldings"] == modules_of("QQQ")["topHoldings"]
    assert qqq["currentPrice"] is None  # an ETF has no financialData
    btc = raw_values(parse_gql_quote("BTC-USD", modules_of("BTC-USD")))
    assert (btc["fromCurrency"], btc["toCurrency"]) == ("BTC", "USD=X")
    assert btc["marketCap"] == 1903960915968
    # price sends underlyingSymbol null; the quoteType module names it.
    assert btc["underlyingSymbol"] == "BTC-USD" and btc["currentPrice"] is None
    assert btc["companyOfficers"] == []  # carried, empty


def test_missing_and_unusable_values_are_null():
    record = parse_gql_quote("XYZ", {
        "price": {"regularMarketPrice": {}, "longName": "", "symbol": "XYZ",
                  "marketCap": "n/a"},
        "summaryDetail": {"marketCap": {"raw": 5, "fmt": "5"}, "tradeable": "yes"},
        "earnings": {},
    })
    v = as_json(record)
    assert v["regularMarketPrice"] is None  # {} is Yahoo's missing number
    assert v["longName"] is None
    assert v["marketCap"] == {"raw": 5, "fmt": "5"}
    assert v["tradeable"] is None
    assert v["earnings"] is None
    assert parse_gql_quote("XYZ", {}).symbol == "XYZ"


def test_v2_modules_cover_every_object_member():
    from marketdata.providers.yahoo.full_quote import QUOTE_SOURCES

    used = {module for _, sources in QUOTE_SOURCES.values() for module, _ in sources}
    assert used <= set(V2_QUOTE_MODULES)


# -- format ------------------------------------------------------------------------------------
def test_present_value_formats():
    # Hand-made, in Yahoo's formatted=true shape.
    cap = {"raw": 3688676720640, "fmt": "3.69T", "longFmt": "3,688,676,720,640"}
    only_long = {"raw": 0, "fmt": None, "longFmt": "0"}
    only_raw = {"raw": 1.5}
    assert present_value(cap, "raw") == 3688676720640
    assert present_value(cap, "pretty") == "3.69T"
    assert present_value(cap, "both") == cap
    assert present_value(only_long, "pretty") == "0"
    assert present_value(only_raw, "pretty") is None
    assert present_value(only_raw, "both") == {"raw": 1.5}
    assert present_value({"raw": None, "fmt": None}, "raw") is None
    # recursion into objects and lists; other values untouched
    body = {"earningsChart": {"quarterly": [{"date": "4Q2024", "actual": {"raw": 2.4,
                                                                        "fmt": "2.40"}}]},
            "financialCurrency": "USD", "empty": {}, "n": 3, "flag": True}
    assert present_value(body, "raw") == {
        "earningsChart": {"quarterly": [{"date": "4Q2024", "actual": 2.4}]},
        "financialCurrency": "USD", "empty": {}, "n": 3, "flag": True}
    assert present_value(body, "pretty")["earningsChart"]["quarterly"][0]["actual"] == "2.40"
    assert present_value(body, "both") == body
    # an object with other keys is not a number object
    assert present_value({"raw": 1, "other": 2}, "pretty") == {"raw": 1, "other": 2}


def test_formatted_quote_summary_round_trip():
    """Every number of AAPL's recording wrapped as {raw, fmt}: raw gives the recording back,
    pretty gives the fmt strings."""
    modules = modules_of("AAPL")
    formatted = {name: wrap_bare(body) for name, body in modules.items()}
    plain = raw_values(parse_gql_quote("AAPL", modules))
    wrapped = parse_gql_quote("AAPL", formatted)
    assert raw_values(wrapped) == plain
    pretty = {n: present_value(as_json(wrapped)[n], "pretty") for n in QUOTE_MEMBERS}
    assert pretty["marketCap"] == "3,688,676,720,640.00"
    assert pretty["trailingPe"] == "38.91"
    assert pretty["symbol"] == "AAPL"


def wrap_bare(value):
    """Bare numbers -> {raw, fmt} (Yahoo's formatted=true shape); objects that already are
    number objects stay as they are."""
    if isinstance(value, dict) and "raw" in value:
        return value
    if isinstance(value, dict | list):
        return wrap_numbers(value) if not _has_number_objects(value) else (
            {k: wrap_bare(v) for k, v in value.items()} if isinstance(value, dict)
            else [wrap_bare(v) for v in value])
    return wrap_numbers(value)


def _has_number_objects(value) -> bool:
    if isinstance(value, dict):
        return "raw" in value or any(_has_number_objects(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_number_objects(v) for v in value)
    return False


# -- quoteType -----------------------------------------------------------------------------
@pytest.mark.parametrize("path", recordings("yahoo/v10-quoteSummary/quoteType"))
def test_quote_type_is_the_recording(path):
    body = parse_quote_summary(load_recording(path))["quoteType"]
    record = parse_quote_type(body)
    assert record.symbol == body["symbol"]
    assert record.exchange == body["exchange"]
    assert record.long_name == body["longName"] and record.short_name == body["shortName"]
    assert record.quote_type == body["quoteType"]
    assert record.message_board_id == body["messageBoardId"]
    assert record.time_zone_full_name == body["timeZoneFullName"]
    assert record.time_zone_short_name == body["timeZoneShortName"]
    assert record.underlying_symbol == body["underlyingSymbol"]
    assert record.uuid == body["uuid"]
    assert record.first_trade_date_epoch_utc == body["firstTradeDateEpochUtc"]
    assert record.gmt_off_set_milliseconds == body["gmtOffSetMilliseconds"]
    assert record.max_age == body["maxAge"]
    assert isinstance(record.first_trade_date_epoch_utc, int)


def test_quote_type_btc_by_hand():
    body = parse_quote_summary(load_recording("yahoo/v10-quoteSummary/quoteType/BTC-USD.json"))
    record = parse_quote_type(body["quoteType"])
    assert (record.exchange, record.quote_type) == ("CCC", "CRYPTOCURRENCY")
    assert record.first_trade_date_epoch_utc == 1410912000
    assert record.gmt_off_set_milliseconds == 0
    assert record.uuid == "74397779-1589-3270-8c45-b7f1a7345b3a"


# -- v7 -> GqlQuote ------------------------------------------------------------------------
@pytest.mark.parametrize("path", recordings("yahoo/v7-quote"))
def test_v7_members_are_the_recorded_values(path):
    payload = load_recording(path)
    items = {i["symbol"].upper(): i for i in payload["quoteResponse"]["result"]}
    records = parse_gql_quotes(payload)
    assert set(records) == set(items)
    for symbol, item in items.items():
        values = raw_values(records[symbol])
        for member, key in V7_MEMBERS.items():
            sent = item.get(key)
            if isinstance(sent, int | float | bool) or (isinstance(sent, str) and sent):
                assert values[member] == sent, (symbol, member)
            else:
                assert values[member] is None, (symbol, member)
        unmapped = set(QUOTE_MEMBERS) - set(V7_MEMBERS) - set(V7_DERIVED)
        assert all(values[m] is None for m in unmapped)
        for member, (key, _) in V7_DERIVED.items():
            assert (values[member] is None) == (item.get(key) in (None, "")), (symbol, member)


def test_v7_derived_members_by_hand():
    """What v7 carries under another name or unit: dates in milliseconds, the rating as
    text, the 52-week change in percent (quoteSummary: a fraction), a fund's net assets."""
    aapl = raw_values(parse_gql_quotes(load_recording("yahoo/v7-quote/quote-AAPL.json"))["AAPL"])
    assert aapl["firstTradeDateEpochUtc"] == 345479400  # firstTradeDateMilliseconds 345479400000
    assert (aapl["recommendationMean"], aapl["recommendationKey"]) == (2.1, "buy")  # "2.1 - Buy"
    assert aapl["week52Change"] == 0.34721302  # fiftyTwoWeekChangePercent 34.721302
    assert aapl["currentPrice"] == aapl["regularMarketPrice"] == 244.6
    qqq = raw_values(parse_gql_quotes(load_recording("yahoo/v7-quote/quote-QQQ.json"))["QQQ"])
    assert qqq["totalAssets"] == 328302690000 and qqq["recommendationMean"] is None
    msft = raw_values(parse_gql_quotes(
        load_recording("yahoo/v7-quote/quote-MSFT-fields-beta.json"))["MSFT"])
    assert msft["beta"] == 0.895


@pytest.mark.parametrize(("text", "mean", "key"), [
    ("1.3 - Strong Buy", 1.3, "strong_buy"), ("3.0 - Hold", 3.0, "hold"),
    ("4.2 - Underperform", 4.2, "underperform"), ("Buy", None, None), ("", None, None)])
def test_v7_rating_text(text, mean, key):
    item = {"symbol": "X", "averageAnalystRating": text}
    values = as_json(parse_gql_quotes({"quoteResponse": {"result": [item]}})["X"])
    assert (values["recommendationMean"], values["recommendationKey"]) == (mean, key)


def test_v7_aapl_by_hand():
    records = parse_gql_quotes(load_recording("yahoo/v7-quote/quote-AAPL.json"))
    v = raw_values(records["AAPL"])
    assert v["regularMarketPrice"] == 244.6
    assert v["regularMarketChangePercent"] == 1.2710667  # v7: percent units, as sent
    assert v["trailingPe"] == 38.763866 and v["forwardPe"] == 29.434416
    assert v["trailingEps"] == 6.31 and v["forwardEps"] == 8.31
    assert v["averageVolume"] == 50443058
    assert v["exchangeName"] == "NasdaqGS"
    assert v["timeZoneFullName"] == "America/New_York" and v["timeZoneShortName"] == "EST"
    assert (v["bid"], v["ask"], v["bidSize"], v["askSize"]) == (244.44, 253.37, 2, 1)
    assert v["marketCap"] == 3674405863424 and v["sharesOutstanding"] == 15022100480
    assert v["dayHigh"] == v["regularMarketDayHigh"] == 245.41
    assert v["earnings"] is None and v["sector"] is None


def test_v7_v1_snapshot_unchanged_by_v2():
    """The v1 parser still reads the same recording the same way."""
    snapshot = parse_quotes(load_recording("yahoo/v7-quote/quote-AAPL.json"))["AAPL"]
    assert (snapshot.price, snapshot.change_percent, snapshot.name) == (244.6, 1.2710667,
                                                                        "Apple Inc.")


def test_v7_crypto_logo_is_carried():
    records = parse_gql_quotes(load_recording("yahoo/v7-quote/quote-BTC-USD.json"))
    assert records["BTC-USD"].logo_url == \
        "https://s2.coinmarketcap.com/static/img/coins/64x64/1.png"


def test_parse_logos():
    # Hand-made: the v7 answer to fields=logoUrl,companyLogoUrl (base keys plus the two).
    payload = {"quoteResponse": {"error": None, "result": [
        {"symbol": "AAPL", "quoteType": "EQUITY", "logoUrl": "https://x/aapl.png",
         "companyLogoUrl": "https://x/c/aapl.png"},
        {"symbol": "msft", "logoUrl": "https://x/msft.png"},
        {"symbol": "EURUSD=X", "quoteType": "CURRENCY"},
    ]}}
    logos = parse_logos(payload)
    assert set(logos) == {"AAPL", "MSFT"}
    assert logos["AAPL"].company_logo_url == "https://x/c/aapl.png"
    assert logos["MSFT"].company_logo_url is None
