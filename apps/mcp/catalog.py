"""The MCP tools, declared once: what an agent wants to do, mapped onto the HTTP operations
that do it (:mod:`apps.mcp.tools` builds the tools from these declarations and the OpenAPI
document; :mod:`apps.mcp.server` runs each call as its HTTP request, in process).

One tool per task, not per HTTP operation: a ``symbols`` list instead of single and batch
twins, no v1 twins, and related operations behind one tool with an argument that chooses
(:class:`Route`'s ``when``). Each declaration says

- its arguments (:class:`Arg`): which HTTP parameter each one is, a short description
  where the document's is long, and a default the tool sends when the agent gives none
  (a page of 25, a curated ``fields`` list, newest first for long series): an answer fits an
  agent's context by default (:data:`apps.mcp.tools.RESULT_MAX_BYTES`);
- its routes: the operation it calls, chosen by the arguments given;
- an example and a worst case, which the tests call to check the budget.

Argument schemas (types, enums, bounds, defaults) come from the OpenAPI document, so a tool
can never accept what its endpoint refuses by construction, or the reverse; a tool's own
default shows in its schema as ``default``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from marketdata.symbols import MAX_SYMBOL_LENGTH

PRESENT = "<present>"  # a Route.when value: the argument is given, whatever its value
PAGE = 25  # the default page of a list: a cursor goes on

SYMBOL = {"type": "string", "minLength": 1, "maxLength": MAX_SYMBOL_LENGTH,
          "description": "Ticker symbol, e.g. AAPL, BRK-B, ^GSPC, EURUSD=X, GC=F"}
QUOTE_FIELDS = ("symbol,shortName,quoteType,exchange,currency,marketState,regularMarketPrice,"
                "regularMarketChange,regularMarketChangePercent,regularMarketPreviousClose,"
                "regularMarketOpen,regularMarketDayHigh,regularMarketDayLow,"
                "regularMarketVolume,regularMarketTime,fiftyTwoWeekHigh,fiftyTwoWeekLow,"
                "marketCap,trailingPe,forwardPe,dividendYield")
LIST_QUOTE_FIELDS = ("symbol,shortName,quoteType,currency,regularMarketPrice,"
                     "regularMarketChange,regularMarketChangePercent,regularMarketVolume,"
                     "marketCap")
FIELDS_DOC = ("Comma-separated member names to include (of each item, for a list); `*` for "
              "all members")
CURSOR_DOC = "`pageInfo.endCursor` of the previous answer: the next page"
LIMIT_DOC = "Items per page"


@dataclass(frozen=True)
class Arg:
    """One argument of a tool.

    ``param``: the HTTP parameter (query, path or body member) it is, by default its own
    name. ``schema``: the argument's schema when the document's parameter is not it (a list
    where the endpoint takes a comma-separated string, a selector the tool reads itself).
    ``default``: sent when the argument is absent (and shown in the schema).
    ``selector``: read by the tool to choose its route, never sent.
    """

    name: str
    param: str | None = None
    doc: str | None = None
    default: Any = None
    required: bool = False
    schema: Mapping[str, Any] | None = None
    max_items: int | None = None  # a list argument, joined with commas for the endpoint
    selector: bool = False

    @property
    def http_name(self) -> str:
        return self.param or self.name


@dataclass(frozen=True)
class Route:
    """An operation a tool calls, when every ``when`` condition holds (an argument's value,
    or :data:`PRESENT`); the first matching route of a tool is taken. ``params`` renames a
    tool argument to this operation's parameter; ``defaults`` are sent when the agent gives
    nothing for that parameter (before the arguments' own defaults)."""

    operation: str
    when: Mapping[str, Any] = field(default_factory=dict)
    params: Mapping[str, str] = field(default_factory=dict)
    defaults: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Declared:
    name: str
    title: str
    description: str
    args: tuple[Arg, ...]
    routes: tuple[Route, ...]
    example: Mapping[str, Any]
    worst: Mapping[str, Any]
    upstream: bool = True  # calls an upstream provider (openWorldHint)


def _symbol(**extra: Any) -> Arg:
    return Arg("symbol", schema=SYMBOL, required=True, **extra)


def _fields(default: str | None = None) -> Arg:
    return Arg("fields", doc=FIELDS_DOC, default=default)


def _page(default: int = PAGE) -> tuple[Arg, Arg]:
    return (Arg("limit", doc=LIMIT_DOC, default=default), Arg("cursor", doc=CURSOR_DOC))


def _symbols(max_items: int, doc: str = "Ticker symbols, e.g. [\"AAPL\", \"MSFT\"]") -> Arg:
    return Arg("symbols", required=True, max_items=max_items,
               schema={"type": "array", "minItems": 1, "maxItems": max_items,
                       "items": {k: v for k, v in SYMBOL.items() if k != "description"},
                       "description": doc})


NEWEST_FIRST = Arg("order", default="desc", doc="`desc` newest first (default), `asc` oldest "
                   "first")

TOOLS: tuple[Declared, ...] = (
    # -- prices ------------------------------------------------------------------------------
    Declared(
        "get_quote", "Quotes",
        "Latest quotes of up to 50 symbols: price, change, volume, day and 52-week range, "
        "market cap, P/E, in the instrument's currency. Default: a curated set of members; "
        "`fields` for others (`*` for every member: about 130, several KB per symbol).",
        (_symbols(50), _fields(QUOTE_FIELDS)),
        (Route("get_quotes_v2"),),
        {"symbols": ["AAPL", "MSFT"]},
        {"symbols": [f"S{n:03d}" for n in range(50)]}),
    Declared(
        "get_chart", "Price history (OHLCV candles)",
        "OHLCV candles of one symbol for a range or a start/end window (Unix seconds), with "
        "the chart's meta. Default: daily bars, 1mo range, the newest 100 first; `cursor` "
        "goes on; `order=asc` for oldest first.",
        (_symbol(), Arg("interval"), Arg("range"), Arg("start"), Arg("end"),
         Arg("events"), Arg("limit", doc=LIMIT_DOC, default=100),
         Arg("cursor", doc=CURSOR_DOC), NEWEST_FIRST, _fields()),
        (Route("get_chart"),),
        {"symbol": "AAPL", "range": "3mo"},
        {"symbol": "AAPL", "range": "10y", "interval": "1d", "events": True}),
    Declared(
        "get_sparklines", "Close prices of several symbols",
        "Closing prices (timestamps and closes) of up to 10 symbols over one range, to compare "
        "them; default daily over 1mo. Long ranges of intraday bars can exceed the answer "
        "budget: use get_chart for one symbol's detail.",
        (_symbols(10), Arg("interval"),
         Arg("range", schema={"type": "string", "default": "1mo", "description":
                              "History window (at most 1y here)",
                              "enum": ["1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y"]})),
        (Route("get_spark"),),
        {"symbols": ["AAPL", "MSFT"], "range": "3mo"},
        {"symbols": [f"S{n:03d}" for n in range(10)], "range": "1y"}),
    Declared(
        "get_indicators", "Technical indicators",
        "Latest values of the technical indicators (moving averages, RSI, MACD, Bollinger, "
        "stochastics, ADX, ATR, OBV, ...) of one symbol, computed from its candles; default "
        "daily bars over 1y.",
        (_symbol(), Arg("interval"), Arg("range"), _fields()),
        (Route("get_indicators"),),
        {"symbol": "AAPL"},
        {"symbol": "AAPL", "range": "10y"}),
    # -- company -----------------------------------------------------------------------------
    Declared(
        "get_company_profile", "Company profile",
        "Company profile: name, sector, industry, country, employees, website, description.",
        (_symbol(), _fields()),
        (Route("get_company_profile"),),
        {"symbol": "AAPL"}, {"symbol": "AAPL"}),
    Declared(
        "get_financials", "Financial statements",
        "Income statement, balance sheet or cash flow of one company, annual, quarterly or "
        "trailing, in the reporting currency; `metrics` to keep some line items.",
        (_symbol(), Arg("statement", required=True), Arg("frequency"), Arg("metrics"),
         _fields()),
        (Route("get_financials_v2"),),
        {"symbol": "AAPL", "statement": "income"},
        {"symbol": "AAPL", "statement": "balance", "frequency": "quarterly"}),
    Declared(
        "get_holders", "Holders, 13F portfolios and fund holdings",
        "A company's (`symbol`, `type`) institutional, mutual-fund and major holders or "
        "insider roster, purchases and transactions; an institutional manager's (`cik`) "
        "13F holdings, largest first, in dollars, for `period` (a quarter's last day; "
        "default the latest); 13F filers whose name holds `manager`; or, with "
        "`view=fund_holdings`, every position of an ETF's or mutual fund's latest SEC "
        "N-PORT report (weights in % of net assets; Yahoo's top ten where none exists). "
        "25 per page.",
        (Arg("symbol", schema={**SYMBOL, "description": "A company's holders (with `type`) "
                                                        "or a fund's holdings"}),
         Arg("view", selector=True, schema={"type": "string", "default": "holders",
                                            "enum": ["holders", "fund_holdings"]}),
         Arg("type", doc="Holder list (view holders)"), Arg("top"),
         Arg("cik", doc="A 13F filer's SEC CIK (digits), e.g. 1067983"),
         Arg("period"), Arg("manager", param="name", doc="Words of a 13F filer's name"),
         *_page(), Arg("order"), _fields()),
        (Route("get_institutional_holdings", when={"cik": PRESENT}),
         Route("search_13f_filers", when={"manager": PRESENT}),
         Route("get_etf_holdings", when={"view": "fund_holdings"}),
         Route("get_holders_v2")),
        {"symbol": "AAPL", "type": "institutional"},
        {"symbol": "VTI", "view": "fund_holdings", "limit": 100}),
    Declared(
        "get_analysis", "Earnings estimates and history",
        "Analysts' earnings estimates, earnings history, recommendation trend or upgrades "
        "and downgrades of one company; 25 per page.",
        (_symbol(), Arg("type", required=True), *_page(), Arg("order"), _fields()),
        (Route("get_analysis_v2"),),
        {"symbol": "AAPL", "type": "earnings-estimate"},
        {"symbol": "AAPL", "type": "upgrades-downgrades"}),
    Declared(
        "get_analyst_ratings", "Analyst ratings and price targets",
        "What analysts say of one company, by `view`: `recommendations` (buy/hold/sell "
        "counts by month, default), `price_target` (consensus target), `price_target_summary` "
        "(average targets over periods), `grading_actions` (rating changes, 25 per page) or "
        "`earnings_surprises` (EPS actual vs estimate).",
        (_symbol(),
         Arg("view", selector=True, schema={
             "type": "string", "default": "recommendations",
             "enum": ["recommendations", "price_target", "price_target_summary",
                      "grading_actions", "earnings_surprises"]}),
         Arg("limit", doc="Months of recommendations, or rating changes per page"),
         Arg("cursor", doc=CURSOR_DOC), _fields()),
        (Route("get_price_target_consensus", when={"view": "price_target"}),
         Route("get_price_target_summary", when={"view": "price_target_summary"}),
         Route("get_grading_actions", when={"view": "grading_actions"},
               defaults={"limit": PAGE}),
         Route("get_earnings_surprises", when={"view": "earnings_surprises"}),
         Route("get_recommendations")),
        {"symbol": "AAPL"},
        {"symbol": "AAPL", "view": "grading_actions"}),
    Declared(
        "get_options", "Option chain, greeks, volatility surface",
        "By `view`: `chain` (default), the calls and puts of one expiration (Unix seconds; "
        "default the nearest), 25 contracts per side per page; `greeks`, each contract's "
        "delta, gamma, theta/day, vega and rho per point at its implied volatility "
        "(`moneyness` window `low,high` of K/S); `surface`, implied volatility over "
        "`expirations` x K/S with ATM volatility and 25-delta skew.",
        (_symbol(),
         Arg("view", selector=True, schema={"type": "string", "default": "chain",
                                            "enum": ["chain", "greeks", "surface"]}),
         Arg("date", doc="Expiration (Unix seconds), one of `expirationDates`"),
         Arg("moneyness"), Arg("expirations"), *_page(), _fields()),
        (Route("get_option_greeks", when={"view": "greeks"}, params={"date": "expiration"},
               defaults={"limit": PAGE}),
         Route("get_volatility_surface", when={"view": "surface"}),
         Route("get_options")),
        {"symbol": "AAPL"}, {"symbol": "SPY", "view": "surface", "expirations": 24}),
    Declared(
        "get_corporate_actions", "Dividends, splits, capital gains",
        "Dividends (default), splits or capital-gain distributions of one symbol over a "
        "range (default max), newest first; dividends 25 per page.",
        (_symbol(),
         Arg("kind", selector=True, schema={"type": "string", "default": "dividends",
                                            "enum": ["dividends", "splits", "capital_gains"]}),
         Arg("range"), NEWEST_FIRST, Arg("limit", doc="Dividends per page"),
         Arg("cursor", doc=CURSOR_DOC), _fields()),
        (Route("get_splits", when={"kind": "splits"}),
         Route("get_capital_gains", when={"kind": "capital_gains"}),
         Route("get_dividends", defaults={"limit": PAGE})),
        {"symbol": "AAPL"}, {"symbol": "KO", "kind": "dividends", "range": "max"}),
    Declared(
        "get_calendar", "Earnings, dividend, split, IPO and economic calendars",
        "`view=symbols` (default): upcoming earnings (EPS estimates), dividend dates of up to "
        "50 `symbols` over `range`. Market-wide by day (`start`..`end`, ISO dates, default "
        "the next 7 days, at most 90; 25 rows a page): `earnings`, `splits`, `ipos`, "
        "`economic` (`country`), `dividends` (needs `symbols`).",
        (Arg("view", selector=True, schema={
            "type": "string", "default": "symbols",
            "enum": ["symbols", "earnings", "dividends", "splits", "ipos", "economic"]}),
         Arg("symbols", max_items=50, schema={
             "type": "array", "minItems": 1, "maxItems": 50,
             "items": {k: v for k, v in SYMBOL.items() if k != "description"},
             "description": "Ticker symbols (required for `symbols` and `dividends`)"}),
         Arg("range"), Arg("start"), Arg("end"), Arg("region"), Arg("country"),
         Arg("limit", doc="Rows per page (market-wide views)"),
         Arg("cursor", doc=CURSOR_DOC), _fields()),
        (Route("get_earnings_calendar", when={"view": "earnings"}, defaults={"limit": PAGE}),
         Route("get_dividends_calendar", when={"view": "dividends"},
               defaults={"limit": PAGE}),
         Route("get_splits_calendar", when={"view": "splits"}, defaults={"limit": PAGE}),
         Route("get_ipos_calendar", when={"view": "ipos"}, defaults={"limit": PAGE}),
         Route("get_economic_calendar", when={"view": "economic"}, defaults={"limit": PAGE}),
         Route("get_calendar")),
        {"symbols": ["AAPL"]}, {"symbols": [f"S{n:03d}" for n in range(50)]}),
    Declared(
        "get_transcript", "Earnings call transcript",
        "The earnings call transcript of one company for a fiscal year and quarter (default "
        "the latest): speakers and what they said.",
        (_symbol(), Arg("year"), Arg("quarter"), _fields()),
        (Route("get_v2_transcript"),),
        {"symbol": "AAPL"}, {"symbol": "AAPL"}),
    Declared(
        "get_risk", "Risk metrics",
        "Risk of one symbol against a benchmark (default ^GSPC) over a range (default 1y): "
        "volatility, beta, alpha, Sharpe, Sortino, max drawdown, VaR, correlation.",
        (_symbol(), Arg("benchmark", schema={**SYMBOL, "description": "Benchmark symbol"}),
         Arg("range"), Arg("interval"), _fields()),
        (Route("get_risk"),),
        {"symbol": "AAPL"}, {"symbol": "AAPL", "range": "10y"}),
    Declared(
        "run_backtest", "Backtest a strategy",
        "Backtests a trading strategy on one symbol's candles (computes, stores nothing): "
        "returns, drawdown, and pages of its trades and equity curve (25 each by default; "
        "`tradesCursor`, `equityCursor` go on).",
        (_symbol(), Arg("strategy", required=True), Arg("interval"), Arg("range"),
         Arg("params"),
         Arg("equityLimit", default=PAGE, doc="Equity-curve points per page"),
         Arg("equityCursor", doc="`equityCurve.pageInfo.endCursor`: the next page"),
         Arg("tradesLimit", default=PAGE, doc="Trades per page"),
         Arg("tradesCursor", doc="`trades.pageInfo.endCursor`: the next page"),
         _fields()),
        (Route("run_backtest"),),
        {"symbol": "AAPL", "strategy": "sma_crossover"},
        {"symbol": "AAPL", "strategy": "rsi_reversal", "range": "10y"}),
    # -- news and filings --------------------------------------------------------------------
    Declared(
        "get_news", "News",
        "Latest news headlines (title, publisher, link, time) of one symbol, or of the "
        "markets, crypto or forex (`topic`) without one; default 10.",
        (Arg("symbol", schema={**SYMBOL, "description": "A symbol's news (else `topic`)"}),
         Arg("topic", selector=True, schema={"type": "string", "default": "markets",
                                             "enum": ["markets", "crypto", "forex"],
                                             "description": "Without `symbol`"}),
         Arg("limit", doc="Articles", schema={"type": "integer", "minimum": 1,
                                              "maximum": 50, "default": 10}),
         _fields()),
        (Route("get_symbol_news", when={"symbol": PRESENT}, params={"limit": "count"}),
         Route("get_crypto_news", when={"topic": "crypto"}),
         Route("get_forex_news", when={"topic": "forex"}),
         Route("get_market_news", params={"limit": "count"})),
        {"symbol": "AAPL"}, {"topic": "markets", "limit": 50}),
    Declared(
        "get_world_news", "World news (GDELT)",
        "Articles from news sites worldwide that mention a symbol's company (GDELT), newest "
        "first; 25 per page.",
        (_symbol(), *_page(), Arg("order"), _fields()),
        (Route("get_world_news"),),
        {"symbol": "AAPL"}, {"symbol": "AAPL"}),
    Declared(
        "get_press_releases", "Press releases",
        "A company's press releases with their text, newest first; default 5.",
        (_symbol(), Arg("limit", default=5), Arg("order"), _fields()),
        (Route("get_press_releases"),),
        {"symbol": "AAPL"}, {"symbol": "AAPL", "limit": 20}),
    Declared(
        "get_filings", "SEC filings, insider transactions",
        "A company's SEC filings (form, date, links), newest first; with `query`, a "
        "full-text search of all filings (`forms`, `startDate`, `endDate`); with "
        "`view=insiders`, its insiders' Form 4/5 trades (`startDate`/`endDate` of the "
        "trades, default a year; `codes` such as P,S; `insider`) with buy/sell totals in "
        "shares and USD; 25 per page.",
        (Arg("symbol", schema={**SYMBOL, "description": "The company's filings (else `query`)"}),
         Arg("view", selector=True, schema={"type": "string", "default": "filings",
                                            "enum": ["filings", "insiders"]}),
         Arg("query", param="q"), Arg("forms"), Arg("startDate"), Arg("endDate"),
         Arg("codes"), Arg("insider"), *_page(), _fields()),
        (Route("get_filings_insiders", when={"view": "insiders"},
               params={"startDate": "start", "endDate": "end"}),
         Route("get_filings_search", when={"query": PRESENT},
               params={"limit": "size", "cursor": "cursor"}),
         Route("get_filings")),
        {"symbol": "AAPL"}, {"query": "artificial intelligence", "limit": 100}),
    Declared(
        "get_company_facts", "XBRL financial facts",
        "Values a company reported to the SEC for some XBRL concepts (e.g. Revenues, "
        "NetIncomeLoss, Assets), each with its periods; 25 values per concept per page.",
        (_symbol(),
         Arg("concepts", required=True, max_items=10, schema={
             "type": "array", "minItems": 1, "maxItems": 10,
             "items": {"type": "string", "minLength": 1, "maxLength": 200},
             "description": "XBRL concept names, e.g. [\"Revenues\", \"Assets\"]"}),
         Arg("taxonomy"), Arg("form"), *_page(), _fields()),
        (Route("get_filings_facts"),),
        {"symbol": "AAPL", "concepts": ["Revenues"]},
        {"symbol": "AAPL", "concepts": ["Revenues", "NetIncomeLoss", "Assets", "Liabilities",
                                        "StockholdersEquity", "EarningsPerShareBasic",
                                        "CashAndCashEquivalentsAtCarryingValue",
                                        "OperatingIncomeLoss", "CostOfRevenue",
                                        "GrossProfit"]}),
    Declared(
        "get_short_selling", "Short selling",
        "A symbol's short side by `view`: `volume` (FINRA daily short sale volume and ratio, "
        "default; `venue`, `start`/`end`, default the last 20 trading days), `interest` "
        "(FINRA short interest and days to cover per settlement date, default the last "
        "year) or `fails` (SEC fails-to-deliver, `months`); newest first, 25 per page.",
        (_symbol(),
         Arg("view", selector=True, schema={
             "type": "string", "default": "volume", "enum": ["volume", "interest", "fails"]}),
         Arg("venue"), Arg("start"), Arg("end"), Arg("months"), *_page(), Arg("order"),
         _fields()),
        (Route("get_short_interest", when={"view": "interest"}),
         Route("get_fails_to_deliver", when={"view": "fails"}),
         Route("get_short_volume")),
        {"symbol": "AAPL"}, {"symbol": "AAPL", "venue": "all", "limit": 100}),
    Declared(
        "get_congressional_trades", "Congressional trades",
        "Trades of a symbol disclosed by members of the U.S. Congress, newest first; 25 per "
        "page.",
        (_symbol(), *_page(), Arg("order"), _fields()),
        (Route("get_congressional_trades"),),
        {"symbol": "AAPL"}, {"symbol": "AAPL"}),
    Declared(
        "get_feeds", "Regulatory and news feeds",
        "Latest items of the service's feeds (SEC filings, central banks, press wires), "
        "newest first; `sources` and `formType` filter; 25 per page.",
        (Arg("sources"), Arg("formType"), *_page(), Arg("order"), _fields()),
        (Route("get_feeds"),),
        {}, {}),
    # -- discovery ---------------------------------------------------------------------------
    Declared(
        "search", "Find symbols",
        "Finds symbols by name or ticker: quotes matching `query` (and news with `news`); "
        "with `type` (equity, etf, mutualfund, index, future, currency, cryptocurrency), "
        "a lookup of that kind. Default 10 matches.",
        (Arg("query", param="q", required=True), Arg("type"), Arg("region"),
         Arg("limit", doc="Matches", schema={"type": "integer", "minimum": 1, "maximum": 100,
                                             "default": 10}),
         Arg("news"), _fields()),
        (Route("lookup_v2", when={"type": PRESENT}, params={"limit": "count"}),
         Route("search_v2", params={"limit": "quotes"})),
        {"query": "apple"}, {"query": "a", "type": "all", "limit": 100}),
    Declared(
        "get_screener", "Predefined screener",
        "Symbols of a predefined screener (day gainers and losers, most actives, growth "
        "stocks, undervalued, ...; resource marketdata://screeners), with their quotes; 25 "
        "by default.",
        (Arg("screener", required=True), Arg("count", default=PAGE), *_page(),
         _fields(LIST_QUOTE_FIELDS)),
        (Route("get_screener"),),
        {"screener": "day-gainers"}, {"screener": "most-actives", "count": 100}),
    Declared(
        "run_custom_screener", "Custom screener",
        "Screens equities or funds by conditions on screen fields (price, market cap, "
        "sector, P/E, dividend yield, ...), sorted; 25 rows by default.",
        (Arg("quoteType"), Arg("size"), Arg("offset"), Arg("sortField"), Arg("sortType"),
         Arg("filters"), Arg("limit", doc=LIMIT_DOC), Arg("cursor", doc=CURSOR_DOC),
         _fields(LIST_QUOTE_FIELDS)),
        (Route("run_custom_screener"),),
        {"filters": [{"field": "sector", "operator": "eq", "value": "Technology"}]},
        {"size": 250}),
    Declared(
        "get_market_overview", "Market overview",
        "The market at a glance, by `view`: `summary` (major indices, default), `indices` "
        "(world indices), `trending` (trending symbols), `fear_and_greed` (sentiment "
        "index), `hours` (whether the market is open). `region`: a country code (US, GB, "
        "...) for summary, trending and hours; americas, europe, asia-pacific, "
        "middle-east-africa or currencies for indices.",
        (Arg("view", selector=True, schema={
            "type": "string", "default": "summary",
            "enum": ["summary", "indices", "trending", "fear_and_greed", "hours"]}),
         Arg("region", schema={"type": "string", "minLength": 2, "maxLength": 32}),
         _fields()),
        (Route("get_indices_v2", when={"view": "indices"},
               defaults={"fields": LIST_QUOTE_FIELDS}),
         Route("get_trending", when={"view": "trending"}),
         Route("get_fear_and_greed", when={"view": "fear_and_greed"}),
         Route("get_market_hours", when={"view": "hours"}),
         Route("get_market_summary", defaults={"fields": LIST_QUOTE_FIELDS})),
        {}, {"view": "indices"}),
    Declared(
        "get_sector", "Sector or industry",
        "A sector's (or, with `industry`, an industry's) overview: performance, market "
        "weight, top companies and ETFs.",
        (Arg("sector"),
         Arg("industry", schema={"type": "string", "minLength": 1, "maxLength": 64,
                                 "description": "Industry key, e.g. semiconductors"})),
        (Route("get_industry_v2", when={"industry": PRESENT}),
         Route("get_sector_v2")),
        {"sector": "technology"}, {"industry": "semiconductors"}),
    Declared(
        "get_index_constituents", "Index members",
        "The member companies of an index (^GSPC, ^DJI, ^NDX, ...) with name and sector.",
        (_symbol(), _fields("symbol,name,sector")),
        (Route("get_index_constituents"),),
        {"symbol": "^DJI"}, {"symbol": "^GSPC"}),
    # -- macro, markets ----------------------------------------------------------------------
    Declared(
        "get_macro_series", "Economic series (FRED)",
        "Observations of a FRED economic series (DGS10, CPIAUCSL, UNRATE, GDP, FEDFUNDS, ...; "
        "resource marketdata://macro-series), newest first, 25 per page, in the series' units.",
        (Arg("id", required=True, schema={"type": "string", "minLength": 1, "maxLength": 40,
                                          "description": "FRED series id, e.g. DGS10"}),
         *_page(), NEWEST_FIRST, _fields()),
        (Route("get_macro_series"),),
        {"id": "UNRATE"}, {"id": "DGS10"}),
    Declared(
        "get_treasury_yields", "Treasury yield curve",
        "Daily U.S. Treasury par yield curve (1 month to 30 years, percent), newest first; 25 "
        "days per page; `year` for another year.",
        (Arg("year"), *_page(), NEWEST_FIRST, _fields()),
        (Route("get_treasury_yields"),),
        {}, {"year": 2020}),
    Declared(
        "get_cot_positioning", "Futures positioning (CFTC)",
        "CFTC Commitments of Traders for a futures symbol (GC=F, CL=F, ES=F, ...): weekly "
        "long/short positions by trader group, newest first; 25 weeks per page.",
        (_symbol(), *_page(), NEWEST_FIRST, _fields()),
        (Route("get_cot"),),
        {"symbol": "GC=F"}, {"symbol": "ES=F"}),
    Declared(
        "get_forex", "Exchange rate",
        "The exchange rate between two currencies (ISO codes, e.g. EUR and USD).",
        (Arg("from", schema={"type": "string", "minLength": 3, "maxLength": 10,
                             "description": "Base currency, e.g. EUR"}, required=True),
         Arg("to", schema={"type": "string", "minLength": 3, "maxLength": 10,
                           "description": "Quote currency, e.g. USD"}, required=True),
         _fields()),
        (Route("get_forex"),),
        {"from": "EUR", "to": "USD"}, {"from": "EUR", "to": "USD"}),
    Declared(
        "get_futures", "Futures quote",
        "A futures contract's quote (GC=F, CL=F, ES=F, ...).",
        (_symbol(), _fields()),
        (Route("get_futures"),),
        {"symbol": "GC=F"}, {"symbol": "CL=F"}),
    Declared(
        "get_crypto", "Cryptocurrencies",
        "Crypto market data: with `id` one coin (e.g. bitcoin), with `query` a search, else "
        "by `view`: `coins` (top coins by market cap, default 25), `global` (total market "
        "cap, BTC dominance) or `trending`.",
        (Arg("id", schema={"type": "string", "minLength": 1, "maxLength": 100,
                           "description": "Coin id, e.g. bitcoin"}),
         Arg("query", schema={"type": "string", "minLength": 1, "maxLength": 200,
                              "description": "Search coins by name or symbol"}),
         Arg("view", selector=True, schema={"type": "string", "default": "coins",
                                            "enum": ["coins", "global", "trending"]}),
         Arg("vsCurrency"), Arg("limit", doc="Coins", schema={
             "type": "integer", "minimum": 1, "maximum": 250, "default": PAGE}),
         _fields()),
        (Route("get_crypto_coin", when={"id": PRESENT}),
         Route("get_crypto_search", when={"query": PRESENT},
               params={"limit": "limitResults"}),
         Route("get_crypto_global", when={"view": "global"}),
         Route("get_crypto_trending", when={"view": "trending"}),
         Route("get_crypto_coins", params={"limit": "count"})),
        {"id": "bitcoin"}, {"view": "coins", "limit": 250}),
    Declared(
        "get_service_status", "Service status",
        "Whether the service and each upstream provider answer, and whether its data is "
        "live or synthetic (sandbox).",
        (_fields(),),
        (Route("get_health"),),
        {}, {}, upstream=False),
)
