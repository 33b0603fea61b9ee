"""Which provider serves which capability, in order of preference: the one table.

A *capability* is one kind of data an endpoint needs (daily bars, macro series,
price-target consensus, press releases...). Its :class:`Capability` lists the sources in
order of preference; a keyed source (``key_setting``) takes part only when its key is set,
so **every capability has a source that needs no key** (but the ``keyed_only`` ones, whose
data no keyless source publishes: without their key, a 501 naming it). A source names its
fetcher, the function in its provider's module that maps the query to the upstream call
and its answer to a record (``"module:function"``, imported on first use: this table never
imports a provider). One table says it all, and three readers use it:

- :func:`call` runs a query through the active sources' fetchers, :func:`serve` through
  fetchers a caller supplies: the first answer wins. A source that does not serve this
  query (:class:`~marketdata.errors.NotServed`: a daily-bars source asked for minutes) is
  passed over. When a next source exists, a capability with a ``primary_share`` gives each
  source but the last that share of the time left, so a hanging first source leaves the
  next one time to answer. A keyed
  source that refuses its key (:class:`~marketdata.errors.CredentialsRejected`, a 401/403)
  is logged at WARNING once per process and provider, then the next source is asked; so
  is any other upstream failure (502/503/504/429) when a next source exists. "Not found"
  and bad requests are answers, not failures: they end the search (the keyed source is the
  better one, and a keyless source would only guess), except for a capability with
  ``not_found_passes_on``, whose sources each list only some of what exists (a currency
  pair one source lacks, another may quote): there "not found" is raised only when every
  source said it, and a failure, when any, wins over it. When every source fails, the first
  failure is raised (the preferred source's own words; the last one's for a capability
  with ``raise_last_failure``).
- :func:`notices` says, for ``/v2/health``, which source serves each capability now.
- The table of sources in `docs/api-notes.md` is written from the same rows.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from django.conf import settings
from django.utils.module_loading import import_string

from marketdata import deadline
from marketdata.errors import (
    CredentialsRejected,
    NotConfigured,
    NotFound,
    NotServed,
    UpstreamError,
)
from marketdata.logs import get_logger

log = get_logger("marketdata.capabilities")
T = TypeVar("T")


@dataclass(frozen=True)
class Source:
    """One way to serve a capability: ``name`` is the provider's (the key of its fetch in
    :func:`serve`), ``fetcher`` its function for :func:`call` (``"module:function"``)."""

    name: str
    label: str
    key_setting: str | None = None
    fetcher: str | None = None

    def active(self) -> bool:
        return self.key_setting is None or bool(getattr(settings, self.key_setting, ""))

    def described(self) -> str:
        """The label, saying which key switched the source on."""
        return f"{self.label} ({self.key_setting} set)" if self.key_setting else self.label

    def fetch_function(self) -> Callable[..., Any]:
        if self.fetcher is None:
            raise LookupError(f"source {self.name!r} has no fetcher")
        function = _fetchers.get(self.fetcher)
        if function is None:
            function = import_string(self.fetcher.replace(":", "."))
            _fetchers[self.fetcher] = function
        return function


_fetchers: dict[str, Callable[..., Any]] = {}


@dataclass(frozen=True)
class Capability:
    name: str
    title: str
    sources: tuple[Source, ...]
    # The share of the time left each source but the last gets when a next one exists.
    primary_share: float | None = None
    # When every source fails, the last one's failure is raised instead of the first's: for
    # a capability whose last source is the one its clients are told about (symbol search).
    raise_last_failure: bool = False
    # A source's "not found" passes the query on (see the module doc).
    not_found_passes_on: bool = False
    # Every source needs a key (no documented keyless source exists): without one the
    # capability is not served (NotConfigured, a 501 naming the settings) and /v2/health
    # says which setting would switch it on.
    keyed_only: bool = False

    def active_sources(self) -> tuple[Source, ...]:
        return tuple(source for source in self.sources if source.active())

    def unconfigured(self) -> str:
        """What a keyed-only capability without its key says (the 501 and /v2/health)."""
        return (f"{self.title} needs " + " or ".join(
            f"{s.key_setting} ({s.label})" for s in self.sources)
                + ": not served until one is set")

    def notice(self) -> str:
        active = self.active_sources()
        if not active:
            return self.unconfigured() + "."
        first, rest = active[0], active[1:]
        text = f"{self.title}: {first.described()}"
        if rest:
            text += "; when it fails, " + ", then ".join(s.described() for s in rest)
        order = {source.name: i for i, source in enumerate(self.sources)}
        idle = [s for s in self.sources if not s.active()]
        if idle:
            text += "; " + ", ".join(
                f"set {s.key_setting} to use {s.label} "
                + ("first" if order[s.name] < order[first.name] else "when it fails")
                for s in idle)
        last = _last_answer.get(self.name)
        if last is not None and last[0] != first.name:
            ago = time.monotonic() - last[1]
            if ago < FALLBACK_NOTICE_SECONDS:
                label = next(s.label for s in self.sources if s.name == last[0])
                text += f"; the last answer came from {label} ({int(ago)} s ago)"
        return text + "."


YAHOO = "Yahoo Finance"


def _fmp(fetcher: str) -> Source:
    """Financial Modeling Prep as the source of one capability, with that capability's
    fetcher in marketdata.providers.fmp."""
    return Source("fmp", "Financial Modeling Prep", "FMP_API_KEY",
                  fetcher=f"marketdata.providers.fmp:{fetcher}")


CAPABILITIES: dict[str, Capability] = {c.name: c for c in (
    Capability("bars", "Price history (charts, historical prices, indicators, backtests)", (
        Source("yahoo", f"{YAHOO} (every interval)",
               fetcher="marketdata.providers.yahoo.chart:bars"),
        Source("tiingo", "Tiingo end-of-day prices (daily and longer, US tickers)",
               "TIINGO_API_KEY", fetcher="marketdata.providers.tiingo:bars"),
    ), primary_share=0.5),
    Capability("security_search", "Symbol search (/v1/search)", (
        Source("algolia", "a hosted search index (an Algolia application)",
               fetcher="marketdata.providers.algolia:securities"),
        Source("yahoo", f"{YAHOO} search",
               fetcher="marketdata.providers.yahoo.search:securities"),
    ), primary_share=0.5, raise_last_failure=True),
    Capability("search", "Search: quotes, news, research reports (/v2/search)", (
        Source("yahoo", f"{YAHOO} search",
               fetcher="marketdata.providers.yahoo.search:search"),)),
    Capability("lookup", "Symbol lookup (/v2/lookup)", (
        Source("yahoo", f"{YAHOO} lookup",
               fetcher="marketdata.providers.yahoo.lookup:lookup"),)),
    Capability("macro_series", "Macro series (/v2/macro/series/{id})", (
        Source("fred_api", "the FRED API", "FRED_API_KEY",
               fetcher="marketdata.providers.fred:series_from_api"),
        Source("fred_graph", "FRED's keyless fredgraph.csv download",
               fetcher="marketdata.providers.fred:series_from_graph"))),
    Capability("economic_releases", "Economic release calendar (/v2/calendar)", (
        Source("fred_api", "FRED's release calendar (the FRED API)", "FRED_API_KEY",
               fetcher="marketdata.providers.fred:release_dates"),
        Source("release_rules", "the schedule the service computes (weekly claims, "
               "the Employment Situation, FOMC statements)",
               fetcher="marketdata.records.releases:scheduled_release_dates"))),
    Capability("treasury_yields", "Treasury yields (/v2/macro/treasury-yields)", (
        Source("treasury", "the U.S. Treasury's daily par yield curve CSV",
               fetcher="marketdata.providers.treasury:yield_curve"),)),
    Capability("cot", "Weekly positioning (/v2/positioning/cot/{symbol})", (
        Source("cftc", "CFTC Commitments of Traders (Socrata public reporting)",
               fetcher="marketdata.providers.cftc:commitments"),)),
    Capability("news", "News for a symbol (/v1/news?symbol={symbol})", (
        Source("yahoo", f"{YAHOO} search news (the articles tagged with the symbol)",
               fetcher="marketdata.providers.yahoo.news:symbol_news"),)),
    Capability("listed_news", "News for a symbol, unknown symbols told apart "
                              "(/v2/news/{symbol})", (
        Source("yahoo", f"{YAHOO} search news and quotes (the articles tagged with the "
                        "symbol; the quotes say whether it exists)",
               fetcher="marketdata.providers.yahoo.news:symbol_news_listed"),)),
    Capability("general_news", "General market news (/v1/news, /v2/news)", (
        Source("yahoo", f"{YAHOO} search news of the S&P 500, Dow Jones and Nasdaq "
                        "Composite",
               fetcher="marketdata.providers.yahoo.news:general_news"),)),
    Capability("world_news", "World news (/v2/worldnews/news/{symbol})", (
        Source("gdelt", "the GDELT DOC 2.0 API, sentiment scored locally",
               fetcher="marketdata.providers.gdelt:world_news"),)),
    Capability("feeds", "Publishers' RSS/Atom feeds (/v2/feeds)", (
        Source("feeds", "the publishers' own RSS and Atom feeds",
               fetcher="marketdata.providers.feeds:feed_entries"),)),
    Capability("crypto_news", "News of the crypto market (/v2/crypto/news)", (
        _fmp("crypto_news"),
        Source("feeds", "the CoinDesk and CoinTelegraph feeds",
               fetcher="marketdata.providers.feeds:crypto_news"))),
    Capability("forex_news", "Currency-market news (/v2/forex/news)", (
        _fmp("forex_news"),
        Source("feeds", "the Federal Reserve, ECB, Bank of England and Investing.com feeds",
               fetcher="marketdata.providers.feeds:forex_news"))),
    Capability("fear_and_greed", "The crypto Fear & Greed Index (/v2/fear-and-greed)", (
        Source("alternative", "alternative.me's Fear & Greed Index",
               fetcher="marketdata.providers.alternative:fear_and_greed"),)),
    Capability("quotes", "Simple quotes (/v1/simple-quotes, /v1/similar, /v1/stream/quotes)", (
        Source("yahoo", f"{YAHOO} v7 quote",
               fetcher="marketdata.providers.yahoo.quote:fetch_quotes"),)),
    Capability("quote_push", "Ticks pushed to the WebSocket stream (/v2/stream; the "
               "stream polls simple quotes for the symbols without pushed ticks)", (
        Source("yahoo", f"{YAHOO} price streamer (one connection per process)",
               fetcher="marketdata.providers.yahoo.streamer:open_pricing_stream"),)),
    Capability("full_quote", "Full quotes (/v1/quotes)", (
        Source("yahoo", f"{YAHOO} quoteSummary",
               fetcher="marketdata.providers.yahoo.full_quote:fetch_full_quote"),)),
    Capability("v2_quote", "Quote of one symbol (/v2/quote/{symbol})", (
        Source("yahoo", f"{YAHOO} quoteSummary",
               fetcher="marketdata.providers.yahoo.full_quote:fetch_gql_quote"),)),
    Capability("v2_quotes", "Quotes of many symbols (/v2/quotes)", (
        Source("yahoo", f"{YAHOO} v7 quote",
               fetcher="marketdata.providers.yahoo.quote:fetch_gql_quotes"),)),
    Capability("logos", "Logos (/v2/quote/{symbol} and /v2/quotes with logo=true)", (
        Source("yahoo", f"{YAHOO} v7 quote logo images",
               fetcher="marketdata.providers.yahoo.quote:fetch_logos"),)),
    Capability("quote_type", "Quote type (/v2/quote-type/{symbol})", (
        Source("yahoo", f"{YAHOO} quoteSummary quoteType",
               fetcher="marketdata.providers.yahoo.full_quote:fetch_quote_type"),)),
    Capability("indices", "Market indices (/v1/indices)", (
        Source("yahoo", f"{YAHOO} quoteSummary",
               fetcher="marketdata.providers.yahoo.indices:fetch_index"),)),
    Capability("movers", "Market movers (/v1/actives, /v1/gainers, /v1/losers)", (
        Source("yahoo", f"{YAHOO} predefined screeners",
               fetcher="marketdata.providers.yahoo.screener:movers"),)),
    Capability("predefined_screener", "Predefined screeners (/v2/screeners/{screener})", (
        Source("yahoo", f"{YAHOO} predefined screeners",
               fetcher="marketdata.providers.yahoo.screener:fetch_predefined"),)),
    Capability("custom_screener", "Custom screens (POST /v2/screeners/custom)", (
        Source("yahoo", f"{YAHOO} screener query",
               fetcher="marketdata.providers.yahoo.screener:fetch_custom"),)),
    Capability("sectors", "Sectors (/v1/sectors, /v1/sectors/details/{sector}, "
                          "/v1/sectors/symbol/{symbol})", (
        Source("yahoo", f"{YAHOO} sectors",
               fetcher="marketdata.providers.yahoo.sectors:fetch_sector"),)),
    Capability("symbol_sector", "A symbol's sector (/v1/sectors/symbol/{symbol})", (
        Source("yahoo", f"{YAHOO} quoteSummary assetProfile",
               fetcher="marketdata.providers.yahoo.sectors:sector_key_of_symbol"),)),
    Capability("sector_profiles", "A whole sector (/v2/sectors/{sector})", (
        Source("yahoo", f"{YAHOO} sectors",
               fetcher="marketdata.providers.yahoo.sectors:sector_profile"),)),
    Capability("industries", "A whole industry (/v2/industries/{industry})", (
        Source("yahoo", f"{YAHOO} industries",
               fetcher="marketdata.providers.yahoo.sectors:industry_profile"),)),
    Capability("similar", "Similar stocks (/v1/similar)", (
        Source("yahoo", f"{YAHOO} recommendations by symbol",
               fetcher="marketdata.providers.yahoo.recommendations:fetch_recommendations"),)),
    Capability("forex", "Forex (/v2/forex/{from}/{to})", (
        Source("yahoo", f"{YAHOO} (live bid/ask)",
               fetcher="marketdata.providers.yahoo.quote:forex_quote"),
        Source("frankfurter", "the ECB reference rates (Frankfurter)",
               fetcher="marketdata.providers.frankfurter:forex_quote"),
    ), not_found_passes_on=True),
    Capability("crypto_coins", "Crypto coins by market cap (/v2/crypto/coins)", (
        Source("coingecko", "CoinGecko /coins/markets",
               fetcher="marketdata.providers.coingecko:coins"),)),
    Capability("crypto_coin", "One crypto coin (/v2/crypto/coins/{id})", (
        Source("coingecko", "CoinGecko /coins/markets",
               fetcher="marketdata.providers.coingecko:coin"),)),
    Capability("crypto_global", "The crypto market (/v2/crypto/global)", (
        Source("coingecko", "CoinGecko /global",
               fetcher="marketdata.providers.coingecko:global_market"),)),
    Capability("crypto_trending", "Trending crypto coins (/v2/crypto/trending)", (
        Source("coingecko", "CoinGecko /search/trending",
               fetcher="marketdata.providers.coingecko:trending"),)),
    Capability("crypto_search", "Crypto coin search (/v2/crypto/search)", (
        Source("coingecko", "CoinGecko /search",
               fetcher="marketdata.providers.coingecko:search"),)),
    Capability("options", "Option chains (/v2/options/{symbol}, /v2/options)", (
        Source("yahoo", f"{YAHOO} v7 options",
               fetcher="marketdata.providers.yahoo.options:option_chain"),)),
    Capability("currencies", "Currencies (/v2/currencies)", (
        Source("yahoo", f"{YAHOO} currencies",
               fetcher="marketdata.providers.yahoo.currencies:currencies"),)),
    Capability("trending", "Trending symbols (/v2/trending)", (
        Source("yahoo", f"{YAHOO} trending tickers",
               fetcher="marketdata.providers.yahoo.trending:trending"),)),
    Capability("market_summary", "Market summary (/v2/market-summary)", (
        Source("yahoo", f"{YAHOO} market summary",
               fetcher="marketdata.providers.yahoo.market_summary:market_summary"),)),
    Capability("spark", "Sparklines (/v2/spark)", (
        Source("yahoo", f"{YAHOO} v7 spark",
               fetcher="marketdata.providers.yahoo.spark:sparks"),)),
    Capability("futures", "Futures (/v2/futures/{symbol})", (
        Source("yahoo", YAHOO, fetcher="marketdata.providers.yahoo.quote:futures_quote"),)),
    Capability("grading_actions", "Grading actions (/v2/grading-actions/{symbol})", (
        _fmp("grading_actions"),
        Source("yahoo", f"{YAHOO} upgradeDowngradeHistory",
               fetcher="marketdata.providers.yahoo.analysis:grading_actions"))),
    Capability("price_target_consensus",
               "Price target consensus (/v2/price-target-consensus/{symbol})", (
                   _fmp("target_consensus"),
                   Source("yahoo", f"{YAHOO} financialData targets",
                          fetcher="marketdata.providers.yahoo.analysis:target_consensus"))),
    Capability("price_target_summary",
               "Price target summary (/v2/price-target-summary/{symbol})", (
                   _fmp("target_summary"),
                   Source("yahoo", f"{YAHOO} rating-change price targets",
                          fetcher="marketdata.providers.yahoo.analysis:target_summary"))),
    Capability("earnings_surprises",
               "Earnings surprises (/v2/earnings-surprises/{symbol})", (
                   _fmp("earnings_surprises"),
                   Source("alphavantage", "Alpha Vantage EARNINGS", "ALPHAVANTAGE_API_KEY",
                          fetcher="marketdata.providers.alphavantage:earnings_surprises"),
                   Source("yahoo", f"{YAHOO} earningsHistory",
                          fetcher="marketdata.providers.yahoo.analysis:earnings_surprises"),
               ), primary_share=0.5),
    Capability("company_profile", "Company profiles (/v2/company-profile/{symbol})", (
        Source("alphavantage", "Alpha Vantage OVERVIEW", "ALPHAVANTAGE_API_KEY",
               fetcher="marketdata.providers.alphavantage:company_profile"),
        Source("yahoo", f"{YAHOO} quoteSummary profile modules",
               fetcher="marketdata.providers.yahoo.profile:company_profile"),
    ), primary_share=0.5),
    Capability("analysis",
               "Analyst data (/v1/analysis/{symbol}, /v2/analysis/{symbol}/{type})", (
                   Source("yahoo", f"{YAHOO} quoteSummary modules",
                          fetcher="marketdata.providers.yahoo.analysis:analysis_data"),)),
    Capability("holders", "Holders (/v1/holders/{symbol}, /v2/holders/{symbol}/{type})", (
        Source("yahoo", f"{YAHOO} quoteSummary modules",
               fetcher="marketdata.providers.yahoo.holders:holders_data"),)),
    Capability("calendar_events", "Earnings and dividend calendar (/v2/calendar)", (
        Source("yahoo", f"{YAHOO} quoteSummary calendarEvents",
               fetcher="marketdata.providers.yahoo.calendar_events:fetch_calendar_events"),)),
    Capability("financial_statements", "Financial statements (/v1/financials/{symbol})", (
        Source("yahoo", f"{YAHOO} fundamentals-timeseries",
               fetcher="marketdata.providers.yahoo.fundamentals:fetch_statement"),)),
    Capability("earnings_calls",
               "Earnings-call lists (/v1/earnings-transcript/{symbol}, "
               "/v2/earnings-transcript/{symbol}, /v2/transcripts/{symbol}[/all])", (
                   Source("yahoo", f"{YAHOO} earnings-calls page",
                          fetcher="marketdata.providers.yahoo.transcripts:"
                                  "fetch_earnings_calls"),)),
    Capability("transcripts",
               "Earnings-call transcripts (/v1/earnings-transcript/{symbol}, "
               "/v2/earnings-transcript/{symbol}, /v2/transcripts/{symbol}[/all])", (
                   Source("yahoo", f"{YAHOO} transcripts (Quartr)",
                          fetcher="marketdata.providers.yahoo.transcripts:"
                                  "company_transcripts"),)),
    Capability("press_releases", "Press releases (/v2/press-releases/{symbol})", (
        _fmp("company_press_releases"),
        Source("sec", "SEC EDGAR 8-K press-release exhibits (EX-99)",
               fetcher="marketdata.providers.sec:company_press_releases"))),
    Capability("filer_ciks", "Filer ids (/v2/filings/{symbol}/cik)", (
        Source("sec", "SEC EDGAR company tickers", fetcher="marketdata.providers.sec:cik_for"),)),
    Capability("filings", "Filings (/v2/filings/{symbol})", (
        Source("sec", "SEC EDGAR submissions",
               fetcher="marketdata.providers.sec:company_filings"),)),
    Capability("company_facts", "XBRL company facts (/v2/filings/{symbol}/facts)", (
        Source("sec", "SEC EDGAR XBRL company facts",
               fetcher="marketdata.providers.sec:company_facts"),)),
    Capability("filing_search", "Filing full-text search (/v2/filings/search)", (
        Source("sec", "SEC EDGAR full-text search",
               fetcher="marketdata.providers.sec:search_filings"),)),
    Capability("fails_to_deliver",
               "Fails-to-deliver (/v2/filings/{symbol}/fails-to-deliver)", (
                   _fmp("fails_to_deliver"),
                   Source("sec", "the SEC's half-monthly fails-to-deliver files",
                          fetcher="marketdata.providers.sec_fails:fails_to_deliver"),
               ), primary_share=0.5),
    Capability("congressional_trades",
               "Congressional trades (/v2/filings/{symbol}/congressional-trades)", (
                   _fmp("congressional_trades"),), keyed_only=True),
    Capability("index_constituents",
               "Index constituents (/v2/index-constituents/{symbol})", (
                   _fmp("index_members"),
                   Source("wikipedia", "the public constituent tables on Wikipedia",
                          fetcher="marketdata.providers.wikipedia:index_members"))),
)}

# capability -> (source, monotonic time) of its last answer: /v2/health says when a fallback
# answered lately (within FALLBACK_NOTICE_SECONDS).
_last_answer: dict[str, tuple[str, float]] = {}
FALLBACK_NOTICE_SECONDS = 600
_warned: set[str] = set()
_warned_lock = threading.Lock()


def capability(name: str) -> Capability:
    return CAPABILITIES[name]


def _warn_once(source: Source, capability: Capability, error: CredentialsRejected) -> None:
    with _warned_lock:
        if source.name in _warned:
            return
        _warned.add(source.name)
    # The error's own text never carries the key (the providers build it without one).
    log.warning("provider_key_rejected", provider=source.name, capability=capability.name,
                setting=source.key_setting, upstream_status=error.upstream_status,
                detail="the key was refused; falling back to the next source")


def serve(name: str, fetchers: Mapping[str, Callable[[], T]]) -> T:
    """The first answer of the capability's active sources, in order (see the module doc).

    ``fetchers`` maps each source name to the call that fetches through it; a source
    without a fetcher is skipped.
    """
    cap = CAPABILITIES[name]
    if cap.keyed_only and not cap.active_sources():
        raise NotConfigured(cap.unconfigured())
    failures: list[UpstreamError] = []
    not_served: NotServed | None = None
    not_found: NotFound | None = None
    sources = [s for s in cap.active_sources() if s.name in fetchers]
    for position, source in enumerate(sources):
        fetch = fetchers[source.name]
        try:
            if cap.primary_share is not None and position < len(sources) - 1:
                with deadline.share(cap.primary_share):
                    answer = fetch()
            else:
                answer = fetch()
            _last_answer[name] = (source.name, time.monotonic())
            return answer
        except NotServed as exc:
            not_served = not_served or exc
        except NotFound as exc:
            if not cap.not_found_passes_on:
                raise
            not_found = not_found or exc
        except CredentialsRejected as exc:
            _warn_once(source, cap, exc)
            failures.append(exc)
        except UpstreamError as exc:
            log.info("source_failed", capability=cap.name, provider=source.name,
                     status=exc.status_code)
            failures.append(exc)
    if failures:
        raise failures[-1] if cap.raise_last_failure else failures[0]
    if not_found is not None:
        raise not_found
    if not_served is not None:
        raise not_served
    raise LookupError(f"no source of {name!r} has a fetcher")  # a programming error


def call(name: str, *args: Any, **kwargs: Any) -> Any:
    """The first answer of the capability's active sources' own fetchers, each called with
    ``args`` and ``kwargs`` (see the module doc)."""
    cap = CAPABILITIES[name]
    fetchers = {source.name: _bound(source.fetch_function(), args, kwargs)
                for source in cap.active_sources() if source.fetcher is not None}
    return serve(name, fetchers)


def _bound(function: Callable[..., T], args: tuple[Any, ...],
           kwargs: dict[str, Any]) -> Callable[[], T]:
    return lambda: function(*args, **kwargs)


def active_source(name: str) -> str:
    """The name of the source that is asked first for a capability."""
    return CAPABILITIES[name].active_sources()[0].name


def notices() -> list[str]:
    """One line per capability: the source serving it now, the fallbacks, the keyed ones
    that a key would switch on (``/v2/health``)."""
    return [cap.notice() for cap in CAPABILITIES.values()]


def reset_warnings() -> None:
    """Forget which rejected keys were logged (tests; a changed key deserves a new line)
    and which sources answered last."""
    with _warned_lock:
        _warned.clear()
    _last_answer.clear()


def _on_setting_changed(setting: str, **kwargs: Any) -> None:
    if setting.endswith("_API_KEY"):
        reset_warnings()


try:
    from django.test.signals import setting_changed

    setting_changed.connect(_on_setting_changed, dispatch_uid="marketdata.capabilities")
except ImportError:  # pragma: no cover
    pass
