"""Security search: the securities whose name or symbol matches a query, and the kinds of
security ``/v1/search`` lists, whichever source answered."""

from __future__ import annotations

from dataclasses import dataclass

# The kinds of security a search lists ("trust": a mutual fund); sources map theirs to these.
SECURITY_TYPES = ("stock", "etf", "trust")


@dataclass(frozen=True)
class Security:
    """One match: ``exchange`` as its source writes it (a short name such as ``NASDAQ``, or
    Yahoo's code such as ``NMS``), ``type`` one of :data:`SECURITY_TYPES`."""

    name: str
    symbol: str
    exchange: str
    type: str


@dataclass(frozen=True)
class SecurityMatches:
    """The matches of one search, best first, and the source that answered (the client is
    told which one: the exchange spelling differs)."""

    securities: list[Security]
    source: str


# -- v2 search and lookup ---------------------------------------------------------------------
# Members of one ``/v2/search`` quote, one article, one research report (Yahoo's names,
# camel-cased where Yahoo writes ``shortname``/``longname``).
SEARCH_QUOTE_MEMBERS = ("symbol", "shortName", "longName", "quoteType", "exchange", "exchDisp",
                        "typeDisp", "industry", "industryDisp", "sector", "sectorDisp",
                        "isYahooFinance", "dispSecIndFlag", "logoUrl", "score")
SEARCH_NEWS_MEMBERS = ("uuid", "title", "publisher", "link", "providerPublishTime", "type",
                       "thumbnail", "relatedTickers")
RESEARCH_REPORT_MEMBERS = ("reportHeadline", "author", "reportDate", "id", "provider")

# The kinds of instrument ``/v2/lookup`` can be limited to (Yahoo's own ``type`` values).
LOOKUP_TYPES = ("all", "equity", "mutualfund", "etf", "index", "future", "currency",
                "cryptocurrency")
LOOKUP_MEMBERS = ("symbol", "shortName", "longName", "quoteType", "exchange", "exchDisp",
                  "typeDisp", "industry", "sector", "regularMarketPrice", "regularMarketChange",
                  "regularMarketChangePercent", "regularMarketPreviousClose", "logoUrl",
                  "companyLogoUrl")


@dataclass(frozen=True)
class SearchAnswer:
    """One search: ``quotes``, ``news`` and ``research_reports`` as lists of member dicts
    (:data:`SEARCH_QUOTE_MEMBERS`, :data:`SEARCH_NEWS_MEMBERS`,
    :data:`RESEARCH_REPORT_MEMBERS`; None where the source sent no value), in the source's
    order; ``count`` and ``total_time`` (milliseconds) as the source reported them."""

    quotes: list[dict[str, object]]
    news: list[dict[str, object]]
    research_reports: list[dict[str, object]]
    count: int | None
    total_time: int | None


@dataclass(frozen=True)
class LookupAnswer:
    """One lookup page: ``quotes`` as member dicts (:data:`LOOKUP_MEMBERS`, None where the
    source sent no value), best match first; ``start`` and ``total`` as the source reported
    them."""

    quotes: list[dict[str, object]]
    start: int
    total: int | None
