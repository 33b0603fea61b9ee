"""Security search: the securities whose name or symbol matches a query, and the kinds of
security ``/v1/search`` lists, whichever source answered; the v2 search and lookup answers,
whose records declare their members (Yahoo's names)."""

from __future__ import annotations

from dataclasses import dataclass, field

from marketdata.records.members import member

# The kinds of security a search lists ("trust": a mutual fund); sources map theirs to these.
SECURITY_TYPES = ("stock", "etf", "trust")


@dataclass(frozen=True)
class Security:
    """One match (v1's SearchResult): ``exchange`` as its source writes it (a short name such
    as ``NASDAQ``, or Yahoo's code such as ``NMS``), ``type`` one of :data:`SECURITY_TYPES`."""

    name: str = member("Full company or fund name")
    symbol: str = member()
    exchange: str = member("Exchange: short name from the primary provider (NASDAQ), Yahoo's "
                           "code from the secondary one (NMS)")
    type: str = member("stock, etf or trust (mutual fund)",
                       schema={"enum": list(SECURITY_TYPES)})


@dataclass(frozen=True)
class SecurityMatches:
    """The matches of one search, best first, and the source that answered (the client is
    told which one: the exchange spelling differs)."""

    securities: list[Security]
    source: str


# -- v2 search and lookup ---------------------------------------------------------------------
# The kinds of instrument ``/v2/lookup`` can be limited to (Yahoo's own ``type`` values).
LOOKUP_TYPES = ("all", "equity", "mutualfund", "etf", "index", "future", "currency",
                "cryptocurrency")
_NULLABLE_TEXT = {"type": ["string", "null"]}  # the spec's: a symbol the source always sends


@dataclass(frozen=True)
class SearchQuote:
    """One instrument a search matched, with Yahoo's members (its ``shortname``/``longname``
    camel-cased; None where Yahoo sends no value)."""

    symbol: str = member("Yahoo symbol (`AAPL`, `BMW.DE`, `EURUSD=X`)", schema=_NULLABLE_TEXT)
    short_name: str | None = member()
    long_name: str | None = member()
    quote_type: str | None = member("Yahoo's kind: EQUITY, ETF, MUTUALFUND, INDEX, CURRENCY, "
                                    "CRYPTOCURRENCY, FUTURE, OPTION...")
    exchange: str | None = member("Yahoo's exchange code (`NMS`)")
    exch_disp: str | None = member("Exchange name for display (`NASDAQ`)")
    type_disp: str | None = member()
    industry: str | None = member()
    industry_disp: str | None = member()
    sector: str | None = member()
    sector_disp: str | None = member()
    is_yahoo_finance: bool | None = member()
    disp_sec_ind_flag: bool | None = member()
    logo_url: str | None = member("Brand logo URL (with `logo=true`, when Yahoo has one)")
    score: float | None = member("Yahoo's relevance score, higher is better")


@dataclass(frozen=True)
class ThumbnailSize:
    """One size of an article's image."""

    url: str = member()
    width: int | None = member()
    height: int | None = member()
    tag: str | None = member()


@dataclass(frozen=True)
class Thumbnail:
    """An article's images: the sizes that have a URL."""

    resolutions: list[ThumbnailSize] = member()


@dataclass(frozen=True)
class SearchArticle:
    """One article a search found (it has a title and a link)."""

    uuid: str | None = member()
    title: str | None = member()
    publisher: str | None = member("The publisher")
    link: str | None = member()
    provider_publish_time: int | None = member("Publication time, Unix seconds")
    type: str | None = member("`STORY` or `VIDEO`")
    thumbnail: Thumbnail | None = member("The article's images (`tag` `original` is the full "
                                         "size); null when none")
    related_tickers: list[str] | None = member("Symbols Yahoo tagged the article with")


@dataclass(frozen=True)
class ResearchReport:
    """One research report on a search's best match."""

    report_headline: str | None = member()
    author: str | None = member()
    report_date: int | None = member("Report date, an integer timestamp as Yahoo sends it")
    id: str | None = member()
    provider: str | None = member()


@dataclass(frozen=True)
class SearchAnswer:
    """One search: ``count`` (everything the source matched) and ``total_time``
    (milliseconds) as the source reported them, its instruments, articles and research
    reports in the source's order."""

    count: int | None = member("Yahoo's count of everything it matched")
    quotes: list[SearchQuote] = member()
    news: list[SearchArticle] = member()
    research_reports: list[ResearchReport] = member()
    total_time: int | None = member("Yahoo's time to answer, milliseconds")


@dataclass(frozen=True)
class LookupQuote:
    """One instrument a lookup found, with its prices (None where the source has no value;
    a lookup leaves ``long_name`` and the previous close out, a quote batch may fill them)."""

    symbol: str = member(schema=_NULLABLE_TEXT)
    short_name: str | None = member()
    long_name: str | None = member("From Yahoo's quote when the lookup has none")
    quote_type: str | None = member("Yahoo's kind, upper case (EQUITY, ETF, MUTUALFUND, INDEX, "
                                    "FUTURE, CURRENCY, CRYPTOCURRENCY)")
    exchange: str | None = member()
    exch_disp: str | None = member()
    type_disp: str | None = member()
    industry: str | None = member("Yahoo's industry name (equities)")
    sector: str | None = member()
    regular_market_price: float | None = member()
    regular_market_change: float | None = member()
    regular_market_change_percent: float | None = member("Percent units: 1.5 is 1.5 %")
    regular_market_previous_close: float | None = member("From Yahoo's quote")
    logo_url: str | None = member("With `logo=true`: 50x50 logo")
    company_logo_url: str | None = member("With `logo=true`: 50x50 company logo")


@dataclass(frozen=True)
class LookupAnswer:
    """One lookup page: its instruments, best match first, the position of the first in
    the source's list (``start``) and how many came back (``count``); ``total`` is the
    source's count of every match, when it says."""

    quotes: list[LookupQuote] = member()
    start: int = member("Position of the first instrument in Yahoo's list (0)")
    count: int = member("How many instruments came back")
    total: int | None = field(default=None, kw_only=True)
