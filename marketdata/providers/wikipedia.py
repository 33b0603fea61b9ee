"""Wikipedia: the public constituent tables of three US indices, the keyless source of
``/v2/index-constituents``.

One article per index (GET, the rendered page):

- S&P 500: ``https://en.wikipedia.org/wiki/List_of_S%26P_500_companies`` (Symbol,
  Security, GICS Sector, GICS Sub-Industry, Headquarters Location, Date added, CIK,
  Founded);
- Nasdaq-100: ``https://en.wikipedia.org/wiki/Nasdaq-100`` (Ticker, Company, GICS
  Sector, GICS Sub-Industry);
- Dow Jones Industrial Average: ``https://en.wikipedia.org/wiki/Dow_Jones_Industrial_Average``
  (Company, Exchange, Symbol, Industry, Date added, Notes, Index weighting).

The pages are parsed with an HTML parser (BeautifulSoup over the standard library's). The
constituents table is found by its header names, never by position: of the page's
``table.wikitable`` tables, those whose first row names a symbol column (Symbol, Ticker)
and a name column (Security, Company); when several do, the one with the most rows (the
articles also carry tables of past changes). Columns are mapped by header name
(:data:`HEADER_MEMBERS`), so reordered or added columns change nothing; a member without a
column is null. Footnote markers (``[1]``) and hidden sort keys are removed, rowspans and
colspans are filled in.

Values: symbols in Yahoo's spelling (Wikipedia writes share classes with a dot, ``BRK.B``;
Yahoo, EDGAR and the rest of this API with a dash, ``BRK-B``), so a symbol can be passed to
``/v2/quote`` as it is; rows without a well-formed symbol are skipped. ``cik`` is
zero-padded to ten digits; ``dateFirstAdded`` is ``YYYY-MM-DD`` when the cell is a
readable date (else the cell's text); other members are the cell's text. The Dow's
Industry column is its ``sector``.

:func:`index_members` (the ``wikipedia`` fetcher of ``index_constituents``) gives the rows as
:class:`~marketdata.records.companies.Constituent` records.

Wikipedia asks API clients to send a descriptive User-Agent: :data:`USER_AGENT`, or the
``WIKIPEDIA_USER_AGENT`` setting when an operator sets one (with a contact). A parsed table
is cached a day (membership changes a few times a year).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from bs4 import BeautifulSoup, Tag
from django.conf import settings

import marketdata
from marketdata.cache import TTLPolicy
from marketdata.errors import MarketDataError
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.providers.base import Provider
from marketdata.providers.registry import get_provider
from marketdata.records.companies import Constituent, constituent
from marketdata.symbols import normalize_symbol

PROVIDER = ProviderConfig(name="wikipedia", display_name="Wikipedia", connect_timeout=3.0,
                          read_timeout=8.0, max_attempts=2, max_concurrency=4,
                          hosts=("en.wikipedia.org",))

USER_AGENT = (f"MarketDataService/{marketdata.__version__} (self-hosted market data API; "
              "reads index constituent tables once a day) python-requests")

# Our index names -> (article URL, page title for messages).
PAGES: dict[str, tuple[str, str]] = {
    "sp500": ("https://en.wikipedia.org/wiki/List_of_S%26P_500_companies",
              "List of S&P 500 companies"),
    "nasdaq100": ("https://en.wikipedia.org/wiki/Nasdaq-100", "Nasdaq-100"),
    "dowjones": ("https://en.wikipedia.org/wiki/Dow_Jones_Industrial_Average",
                 "Dow Jones Industrial Average"),
}

CONSTITUENTS_TTL = TTLPolicy("wikipedia_constituents", open=86400, extended=86400,
                             closed=86400, market_aware=False)

MEMBERS = ("symbol", "name", "sector", "subSector", "headquarters", "dateFirstAdded", "cik",
           "founded")
# Header text (lower case, footnotes removed) -> member.
HEADER_MEMBERS: dict[str, str] = {
    "symbol": "symbol", "ticker": "symbol", "ticker symbol": "symbol",
    "security": "name", "company": "name",
    "gics sector": "sector", "sector": "sector", "industry": "sector",
    "gics sub-industry": "subSector", "gics sub industry": "subSector",
    "sub-industry": "subSector",
    "headquarters location": "headquarters", "headquarters": "headquarters",
    "date added": "dateFirstAdded", "date first added": "dateFirstAdded",
    "cik": "cik", "founded": "founded",
}
_FOOTNOTE = re.compile(r"\[(?:\d+|[a-z]|note \d+|citation needed)\]", re.I)
_SPAN_LIMIT = 1000
_DATE_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%Y-%m-%d")


class WikipediaProvider(Provider):
    """A descriptive User-Agent on every call. Any 4xx is a bad upstream answer (502): a
    missing article means it moved, not that the index is unknown (which the caller
    decides before any call)."""

    config = PROVIDER

    def load_credentials(self) -> Mapping[str, Any]:
        configured = getattr(settings, "WIKIPEDIA_USER_AGENT", "") or ""
        return {"user_agent": configured.strip() or USER_AGENT}

    def authenticate(self, params: dict[str, Any], headers: dict[str, str]) -> None:
        headers["User-Agent"] = self.credentials["user_agent"]

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        if response.status >= 400:
            return self.status_error(response, endpoint)
        return None


def wikipedia_provider() -> WikipediaProvider:
    return get_provider(PROVIDER.name)


# -- parsing --------------------------------------------------------------------------------
def _clean(text: str) -> str:
    return " ".join(_FOOTNOTE.sub("", text).replace("\u200b", "").split())


def _cell_text(cell: Tag) -> str:
    return _clean(cell.get_text(" "))


def _span(cell: Tag, name: str) -> int:
    value = cell.get(name)
    text = value.strip() if isinstance(value, str) else ""
    return min(int(text), _SPAN_LIMIT) if text.isdigit() and int(text) > 0 else 1


def table_rows(table: Tag) -> list[list[str]]:
    """The table's rows as text grids, rowspans and colspans filled in (rows of nested
    tables are not this table's)."""
    grid: list[list[str]] = []
    carried: dict[int, tuple[int, str]] = {}  # column -> (rows still covered, text)
    for row in table.find_all("tr"):
        if row.find_parent("table") is not table:
            continue
        cells = list(row.find_all(["td", "th"], recursive=False))
        out: list[str] = []
        column = 0
        while cells or any(c >= column for c in carried):
            if column in carried:
                left, text = carried[column]
                out.append(text)
                if left > 1:
                    carried[column] = (left - 1, text)
                else:
                    del carried[column]
                column += 1
                continue
            if not cells:
                column += 1
                continue
            cell = cells.pop(0)
            text = _cell_text(cell)
            rowspan = _span(cell, "rowspan")
            for _ in range(_span(cell, "colspan")):
                out.append(text)
                if rowspan > 1:
                    carried[column] = (rowspan - 1, text)
                column += 1
        grid.append(out)
    return grid


def _symbol(text: str) -> str | None:
    """``NYSE: BRK.B`` / ``BRK.B`` -> ``BRK-B``; None when no well-formed symbol is left."""
    words = text.rsplit(":", 1)[-1].split()
    if not words:
        return None
    return normalize_symbol(words[0].replace(".", "-"))


def _date(text: str) -> str:
    head = re.match(r"\d{4}-\d{2}-\d{2}", text)
    if head:
        return head.group(0)
    for pattern in _DATE_FORMATS:
        try:
            return datetime.strptime(text, pattern).date().isoformat()  # noqa: DTZ007 - a date
        except ValueError:
            continue
    return text


def _member_value(member: str, text: str) -> str | None:
    if not text:
        return None
    if member == "cik":
        return text.zfill(10) if text.isdigit() else text
    if member == "dateFirstAdded":
        return _date(text)
    return text


def _columns(header: list[str]) -> dict[str, int]:
    """member -> column index, from the header texts (the first column naming a member)."""
    columns: dict[str, int] = {}
    for index, name in enumerate(header):
        member = HEADER_MEMBERS.get(name.lower())
        if member is not None and member not in columns:
            columns[member] = index
    return columns


def parse_constituents(markup: str | bytes,
                       title: str = "of the index") -> list[dict[str, str | None]]:
    """An article's constituents table -> ``{symbol, name, sector, subSector,
    headquarters, dateFirstAdded, cik, founded}`` rows in the table's order. A page
    without such a table (or with an empty one) is a 502."""
    soup = BeautifulSoup(markup, "html.parser")
    for hidden in soup.select("sup.reference, .sortkey, [style*='display:none'], "
                              "[style*='display: none']"):
        hidden.decompose()
    best: list[dict[str, str | None]] | None = None
    for table in soup.find_all("table", class_="wikitable"):
        grid = table_rows(table)
        if not grid:
            continue
        columns = _columns(grid[0])
        if "symbol" not in columns or "name" not in columns:
            continue
        found = []
        for cells in grid[1:]:
            symbol = _symbol(cells[columns["symbol"]]) if columns["symbol"] < len(cells) \
                else None
            if symbol is None:
                continue
            row: dict[str, str | None] = {}
            for member in MEMBERS:
                index = columns.get(member)
                text = cells[index] if index is not None and index < len(cells) else ""
                row[member] = symbol if member == "symbol" else _member_value(member, text)
            found.append(row)
        if best is None or len(found) > len(best):
            best = found
    if not best:
        raise PROVIDER.bad_answer(f"page '{title}' has no constituents table")
    return best


# -- typed fetch (through the cache) --------------------------------------------------------
def constituents(index: str) -> list[dict[str, str | None]]:
    """The members of ``index`` (``sp500``, ``nasdaq100`` or ``dowjones``; the caller has
    resolved it) from its Wikipedia table, cached a day."""
    url, title = PAGES[index]
    provider = wikipedia_provider()
    return provider.cached(
        "constituents", {"index": index},
        lambda: parse_constituents(provider.get(f"{index}_page", url).content, title),
        CONSTITUENTS_TTL, group="wikipedia")


def index_members(index: str) -> list[Constituent]:
    """The ``index_constituents`` fetcher: :func:`constituents` as records."""
    return [constituent(row) for row in constituents(index)]
