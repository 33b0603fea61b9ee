"""What the GraphQL schema serves, declared once: each field is a REST operation of
``/openapi.json`` (by its ``operationId``), with its parameters as the field's arguments, its
answer as the field's type (:mod:`apps.graphql.types`) and its request as what the field
runs (:mod:`apps.graphql.execution`).

``ticker(symbol)`` fields bind the operation's ``symbol`` (or ``symbols``) to the ticker's;
root fields take every parameter. ``format`` (raw/pretty/both, or json/csv) and ``fields``
are never arguments: GraphQL asks for raw numbers, and its selection set is the ``fields``.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Served:
    """One GraphQL field over one REST operation."""

    name: str
    operation: str
    description: str | None = None  # else the operation's summary
    bind: str | None = None  # the parameter the ticker's symbol fills (ticker fields)
    batch: str | None = None  # a loader that batches this field across tickers
    body: str | None = None  # the argument that is the request's JSON body (POST)
    renamed: dict[str, str] = field(default_factory=dict)  # REST parameter -> argument
    dropped: frozenset[str] = frozenset()  # parameters that are not arguments here
    type_name: str | None = None  # the answer's type, where the field's name would clash


# Per-symbol fields of ``Ticker``: the symbol is the operation's path (or list) parameter.
TICKER: tuple[Served, ...] = (
    Served("quote", "get_quotes_v2", bind="symbols", batch="quotes",
           dropped=frozenset({"cursor", "limit"}), description=(
        "The symbol's quote from Yahoo's batch source: the quotes of every ticker of one "
        "query come from one upstream call (REST `/v2/quotes`)")),
    Served("fullQuote", "get_quote_v2", bind="symbol", description=(
        "The full quote from Yahoo's quoteSummary (REST `/v2/quote/{symbol}`): every "
        "member, one upstream call per symbol")),
    Served("quoteType", "get_quote_type_v2", bind="symbol"),
    Served("chart", "get_chart", bind="symbol"),
    Served("spark", "get_spark", bind="symbols"),
    Served("indicators", "get_indicators", bind="symbol"),
    Served("options", "get_options", bind="symbol", renamed={"date": "expiration"}),
    Served("optionGreeks", "get_option_greeks", bind="symbol"),
    Served("volatilitySurface", "get_volatility_surface", bind="symbol"),
    Served("dividends", "get_dividends", bind="symbol"),
    Served("splits", "get_splits", bind="symbol"),
    Served("capitalGains", "get_capital_gains", bind="symbol"),
    Served("calendar", "get_calendar", bind="symbols"),
    Served("financials", "get_financials_v2", bind="symbol"),
    Served("holders", "get_holders_v2", bind="symbol"),
    Served("fundHoldings", "get_etf_holdings", bind="symbol"),
    Served("analysis", "get_analysis_v2", bind="symbol"),
    Served("recommendations", "get_recommendations", bind="symbol"),
    Served("gradingActions", "get_grading_actions", bind="symbol"),
    Served("priceTargetSummary", "get_price_target_summary", bind="symbol"),
    Served("priceTargetConsensus", "get_price_target_consensus", bind="symbol"),
    Served("news", "get_symbol_news", bind="symbol"),
    Served("pressReleases", "get_press_releases", bind="symbol"),
    Served("worldNews", "get_world_news", bind="symbol"),
    Served("companyProfile", "get_company_profile", bind="symbol"),
    Served("earningsSurprises", "get_earnings_surprises", bind="symbol"),
    Served("transcript", "get_v2_earnings_transcript", bind="symbol",
           type_name="EarningsTranscript"),
    Served("transcripts", "get_v2_transcripts_all", bind="symbol"),
    Served("risk", "get_risk", bind="symbol"),
    Served("filings", "get_filings", bind="symbol"),
    Served("cik", "get_filings_cik", bind="symbol"),
    Served("facts", "get_filings_facts", bind="symbol"),
    Served("insiderTransactions", "get_filings_insiders", bind="symbol"),
    Served("failsToDeliver", "get_fails_to_deliver", bind="symbol"),
    Served("congressionalTrades", "get_congressional_trades", bind="symbol"),
    Served("shortVolume", "get_short_volume", bind="symbol"),
    Served("shortInterest", "get_short_interest", bind="symbol"),
    Served("indexConstituents", "get_index_constituents", bind="symbol"),
    Served("futures", "get_futures", bind="symbol"),
    Served("positioning", "get_cot", bind="symbol"),
    Served("backtest", "run_backtest", bind="symbol", body="input", description=(
        "A strategy backtest on the symbol's history (REST `POST /v2/backtest/{symbol}`); "
        "it changes nothing, so it is a query")),
)

# Root fields: what is not per symbol (and the batch forms, for clients porting REST calls).
ROOT: tuple[Served, ...] = (
    Served("quotes", "get_quotes_v2"),
    Served("search", "search_v2"),
    Served("lookup", "lookup_v2"),
    Served("screener", "get_screener"),
    Served("customScreener", "run_custom_screener", body="input"),
    Served("trending", "get_trending"),
    Served("marketSummary", "get_market_summary"),
    Served("indices", "get_indices_v2"),
    Served("sector", "get_sector_v2"),
    Served("industry", "get_industry_v2"),
    Served("hours", "get_market_hours"),
    Served("calendar", "get_calendar"),
    Served("earningsCalendar", "get_earnings_calendar"),
    Served("dividendsCalendar", "get_dividends_calendar"),
    Served("splitsCalendar", "get_splits_calendar"),
    Served("iposCalendar", "get_ipos_calendar"),
    Served("economicCalendar", "get_economic_calendar"),
    Served("macroSeries", "get_macro_series"),
    Served("treasuryYields", "get_treasury_yields"),
    Served("marketNews", "get_market_news"),
    Served("forex", "get_forex"),
    Served("futures", "get_futures"),
    Served("positioning", "get_cot"),
    Served("worldNews", "get_world_news"),
    Served("forexNews", "get_forex_news"),
    Served("currencies", "get_currencies"),
    Served("exchanges", "get_exchanges"),
    Served("cryptoCoins", "get_crypto_coins"),
    Served("cryptoCoin", "get_crypto_coin"),
    Served("cryptoGlobal", "get_crypto_global"),
    Served("cryptoTrending", "get_crypto_trending"),
    Served("cryptoSearch", "get_crypto_search"),
    Served("cryptoNews", "get_crypto_news"),
    Served("feeds", "get_feeds"),
    Served("fearAndGreed", "get_fear_and_greed"),
    Served("filingsSearch", "get_filings_search"),
    Served("institutionalHoldings", "get_institutional_holdings"),
    Served("institutionalFilers", "search_13f_filers"),
    Served("charts", "get_charts_batch"),
    Served("indicatorsBatch", "get_indicators_batch"),
    Served("dividendsBatch", "get_dividends_batch"),
    Served("splitsBatch", "get_splits_batch"),
    Served("capitalGainsBatch", "get_capital_gains_batch"),
    Served("optionsBatch", "get_options_batch", renamed={"date": "expiration"}),
    Served("financialsBatch", "get_financials_batch"),
    Served("recommendationsBatch", "get_recommendations_batch"),
    Served("health", "get_health"),
    Served("backtest", "run_backtest", body="input", description=(
        "A strategy backtest (REST `POST /v2/backtest/{symbol}`); it changes nothing, so "
        "it is a query")),
)

# Never arguments: GraphQL's selection set is ``fields``, and it asks for raw JSON.
DROPPED_PARAMETERS = frozenset({"fields", "format"})
# At most this many tickers in one ``tickers(symbols)`` (REST's batch limit).
MAX_TICKERS = 50
