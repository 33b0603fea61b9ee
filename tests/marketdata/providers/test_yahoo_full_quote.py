"""The full quote record: quoteSummary modules -> FullQuote, on the real recordings.

The shared recordings hold an equity (AAPL), an ETF (QQQ), a crypto pair (BTC-USD) and a
Turkish equity (THYAO.IS) with every module, and price-only bodies of a mutual fund
(0P000071W8.TO) and a currency pair (EURUSD=X). No index has a quoteSummary recording and
none carries ``quoteUnadjustedPerformanceOverview``, so the period returns are checked on a
hand-written body.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime

import pytest

from marketdata.errors import NotFound
from marketdata.providers.yahoo.full_quote import (
    FullQuote,
    PeriodReturns,
    fetch_full_quote,
    parse_full_quote,
)
from marketdata.providers.yahoo.quote_summary import QUOTE_MODULES, parse_quote_summary
from tests.conftest import calls_to, load_recording

from .helpers import recordings, symbol_from_filename, wrap_numbers

ALL_MODULES = "yahoo/v10-quoteSummary/_all-modules/{}.json"
PRICE_ONLY = "yahoo/v10-quoteSummary/price/{}.json"
QUOTE_MODULE_FILES = recordings("yahoo/v10-quoteSummary/_all-modules") + [
    path for module in QUOTE_MODULES for path in recordings(f"yahoo/v10-quoteSummary/{module}")]


def at(epoch: int) -> datetime:
    return datetime.fromtimestamp(epoch, UTC)


def parsed(path: str, symbol: str) -> FullQuote:
    return parse_full_quote(symbol, parse_quote_summary(load_recording(path)))


class TestEquity:
    @pytest.fixture
    def aapl(self) -> FullQuote:
        return parsed(ALL_MODULES.format("AAPL"), "AAPL")

    def test_identity(self, aapl):
        assert aapl.symbol == "AAPL"
        assert aapl.long_name == aapl.short_name == "Apple Inc."
        assert aapl.quote_type == "EQUITY"
        assert (aapl.exchange, aapl.exchange_name) == ("NMS", "NasdaqGS")
        assert (aapl.currency, aapl.currency_symbol) == ("USD", "$")
        assert aapl.market_state == "PRE"
        assert aapl.exchange_data_delayed_by == 0
        assert aapl.price_hint == 2

    def test_session_values(self, aapl):
        assert aapl.regular_market_price == 245.55
        assert aapl.regular_market_change == pytest.approx(-0.27999878)
        assert aapl.regular_market_change_percent == pytest.approx(-0.0011389935)  # fraction
        assert aapl.regular_market_time == at(1740171602)
        assert aapl.previous_close == 245.83
        assert (aapl.open, aapl.day_high, aapl.day_low) == (245.965, 248.69, 245.22)
        assert aapl.volume == 53197431 and isinstance(aapl.volume, int)
        assert aapl.average_volume == 50792552 and isinstance(aapl.average_volume, int)
        assert (aapl.fifty_two_week_high, aapl.fifty_two_week_low) == (260.1, 164.08)
        assert (aapl.bid, aapl.ask, aapl.bid_size, aapl.ask_size) == (233.61, 258.38, 100, 100)

    def test_extended_hours(self, aapl):
        assert aapl.pre_market_price == 245.24
        assert aapl.pre_market_change_percent == pytest.approx(-0.001262462)
        assert aapl.pre_market_time == at(1740389689)
        assert aapl.pre_market_current  # recorded before the open, after the last close
        assert aapl.post_market_price is None and aapl.post_market_time is None
        assert not aapl.post_market_current

    def test_valuation_and_dividends(self, aapl):
        assert aapl.market_cap == 3688676720640
        assert aapl.enterprise_value == 3731694026752
        assert aapl.shares_outstanding == 15022100480
        assert aapl.beta == 1.2
        assert aapl.trailing_pe == pytest.approx(38.91442)
        assert aapl.forward_pe == pytest.approx(29.548735)  # summaryDetail before statistics
        assert (aapl.trailing_eps, aapl.forward_eps) == (6.31, 8.31)
        assert aapl.week52_change == pytest.approx(0.35543168)
        assert aapl.dividend_rate == 1.0
        assert aapl.dividend_yield == 0.0041
        assert aapl.yield_value is None
        assert aapl.ex_dividend_date == datetime(2025, 2, 10, tzinfo=UTC)
        assert aapl.last_dividend_value == 0.25
        assert aapl.last_dividend_date == datetime(2025, 2, 10, tzinfo=UTC)
        assert aapl.earnings_dates == (at(1746010740), at(1746446400))

    def test_profile(self, aapl):
        assert (aapl.sector, aapl.sector_key) == ("Technology", "technology")
        assert (aapl.industry, aapl.industry_key) == ("Consumer Electronics",
                                                      "consumer-electronics")
        assert aapl.full_time_employees == 150000
        assert (aapl.city, aapl.state, aapl.country) == ("Cupertino", "CA", "United States")
        assert aapl.website == "https://www.apple.com"
        assert aapl.long_business_summary.startswith("Apple Inc. designs")

    def test_no_fund_fields(self, aapl):
        assert aapl.total_assets is aapl.nav_price is aapl.expense_ratio is None
        assert aapl.category is aapl.fund_family is aapl.fund_inception_date is None
        assert aapl.morningstar_rating is aapl.morningstar_risk_rating is None
        assert aapl.returns == PeriodReturns()  # the recording has no performance module


class TestFunds:
    def test_etf(self):
        qqq = parsed(ALL_MODULES.format("QQQ"), "QQQ")
        assert qqq.quote_type == "ETF"
        assert qqq.long_name == "Invesco QQQ Trust"
        assert qqq.regular_market_price == 526.12
        assert qqq.market_cap == 206817771520
        assert qqq.total_assets == 328302690304
        assert qqq.nav_price == 526.07
        assert qqq.yield_value == 0.0054  # a fund's distribution yield
        assert qqq.dividend_yield is None
        assert qqq.category == "Large Growth"
        assert qqq.fund_family == "Invesco"
        assert qqq.fund_inception_date == datetime(1999, 3, 10, tzinfo=UTC)
        assert qqq.trailing_pe == pytest.approx(34.286358)
        assert qqq.pre_market_price == 529 and qqq.pre_market_current
        assert qqq.earnings_dates == ()
        assert qqq.sector is None and qqq.full_time_employees is None
        assert qqq.long_business_summary.startswith("To maintain the correspondence")

    def test_mutual_fund_price_only(self):
        fund = parsed(PRICE_ONLY.format("0P000071W8.TO"), "0P000071W8.TO")
        assert fund.symbol == "0P000071W8.TO"
        assert fund.quote_type == "MUTUALFUND"
        assert fund.long_name == "TD US Index e"
        assert (fund.currency, fund.exchange_name) == ("CAD", "Toronto")
        assert fund.exchange_data_delayed_by == 15
        assert fund.regular_market_price == 150.5
        assert fund.regular_market_change_percent == pytest.approx(-0.022092229)
        assert fund.previous_close == 153.9
        # no session values in the price module of a fund (NAV once a day)
        assert fund.open is fund.day_high is fund.volume is fund.market_cap is None


class TestOtherInstruments:
    def test_currency_pair_keeps_its_price_hint(self):
        pair = parsed(PRICE_ONLY.format("EURUSD_X"), "EURUSD=X")
        assert pair.symbol == "EURUSD=X"
        assert pair.quote_type == "CURRENCY"
        assert pair.price_hint == 4
        assert pair.regular_market_price == pytest.approx(1.0477787)
        assert pair.volume == 0  # a real 0 is a value

    def test_crypto(self):
        btc = parsed(ALL_MODULES.format("BTC-USD"), "BTC-USD")
        assert btc.quote_type == "CRYPTOCURRENCY"
        assert btc.regular_market_price == 96021.96
        assert btc.volume == 23376617472
        assert btc.average_volume == 55688726397
        assert btc.market_cap == 1903960915968
        assert not btc.pre_market_current and not btc.post_market_current

    def test_foreign_equity(self):
        thy = parsed(ALL_MODULES.format("THYAO.IS"), "THYAO.IS")
        assert thy.symbol == "THYAO.IS"
        assert thy.currency == "TRY"
        assert isinstance(thy.regular_market_price, float)
        assert isinstance(thy.full_time_employees, int)


@pytest.mark.parametrize("path", QUOTE_MODULE_FILES)
def test_every_quote_module_recording_parses(path):
    symbol = symbol_from_filename(path)
    modules = parse_quote_summary(load_recording(path))
    quote = parse_full_quote(symbol, modules)
    assert quote.symbol == symbol
    assert isinstance(quote.price_hint, int)
    # Yahoo's {raw, fmt} shape (formatted=true) gives the same record.
    assert parse_full_quote(symbol, wrap_numbers(modules)) == quote


class TestShapes:
    def test_empty_modules(self):
        quote = parse_full_quote("ZZZ", {})
        assert quote == FullQuote(symbol="ZZZ")
        assert quote.price_hint == 2
        assert quote.regular_market_price is None and quote.earnings_dates == ()
        assert not quote.pre_market_current

    def test_period_returns_are_fractions(self):
        modules = {"quoteUnadjustedPerformanceOverview": {"performanceOverview": {
            "fiveDaysReturn": {"raw": -0.0123, "fmt": "-1.23%"}, "oneMonthReturn": 0.02345,
            "threeMonthReturn": 0, "ytdReturnPct": 0.029, "oneYearTotalReturn": 0.35,
            "maxReturn": 150.0, "tenYearTotalReturn": {}, "sixMonthReturn": float("nan")}}}
        returns = parse_full_quote("^GSPC", modules).returns
        assert returns == PeriodReturns(five_days=-0.0123, one_month=0.02345, three_month=0.0,
                                        ytd=0.029, one_year=0.35, max_period=150.0)

    def test_first_present_value_wins_and_zero_counts(self):
        modules = {"price": {"regularMarketOpen": 10, "regularMarketVolume": 5, "priceHint": 0,
                             "marketCap": 99},
                   "summaryDetail": {"open": 0, "volume": {}, "priceHint": 4},
                   "defaultKeyStatistics": {"beta": 1.5, "morningStarOverallRating": 4.0,
                                            "morningStarRiskRating": {"raw": 2}},
                   "calendarEvents": {"exDividendDate": "2025-02-10",
                                      "earnings": {"earningsDate": [1746010740, None, "x"]}}}
        quote = parse_full_quote("X", modules)
        assert quote.open == 0.0
        assert quote.volume == 5
        assert quote.price_hint == 0
        assert quote.market_cap == 99
        assert quote.beta == 1.5
        assert (quote.morningstar_rating, quote.morningstar_risk_rating) == (4, 2)
        assert quote.ex_dividend_date == datetime(2025, 2, 10, tzinfo=UTC)
        assert quote.earnings_dates == (at(1746010740),)

    def test_blank_strings_are_missing_but_category_passes_as_sent(self):
        modules = {"price": {"symbol": "", "longName": "", "shortName": "Short"},
                   "defaultKeyStatistics": {"category": ""}, "assetProfile": {"sector": ""}}
        quote = parse_full_quote("ASKED", modules)
        assert quote.symbol == "ASKED"
        assert (quote.long_name, quote.short_name) == (None, "Short")
        assert quote.sector is None
        assert quote.category == ""

    def test_after_hours_is_current_only_when_newer(self):
        base = {"regularMarketTime": 1000, "postMarketPrice": 1.0}
        older = parse_full_quote("X", {"price": {**base, "postMarketTime": 999}})
        newer = parse_full_quote("X", {"price": {**base, "postMarketTime": 1001}})
        assert not older.post_market_current
        assert newer.post_market_current

    def test_record_is_frozen(self):
        quote = FullQuote(symbol="X")
        with pytest.raises(AttributeError):
            quote.symbol = "Y"  # type: ignore[misc]


class TestFetchFullQuote:
    def test_through_the_cache(self, yahoo):
        payload = load_recording(ALL_MODULES.format("AAPL"))
        yahoo.summary("AAPL", copy.deepcopy(payload))
        first = fetch_full_quote("AAPL")
        assert isinstance(first, FullQuote)
        assert first == parse_full_quote("AAPL", parse_quote_summary(payload))
        assert fetch_full_quote("AAPL") == first
        assert len(calls_to(yahoo.mock, "/v10/finance/quoteSummary/AAPL")) == 1

    def test_unknown_symbol_is_not_found(self, yahoo):
        yahoo.summary("ZZZZ", {"quoteSummary": {"result": None, "error": {
            "code": "Not Found", "description": "Quote not found for symbol: ZZZZ"}}},
            status=404)
        with pytest.raises(NotFound):
            fetch_full_quote("ZZZZ")
