"""The three Wikipedia articles with the real constituent tables' structure.

Why: the service finds each constituents table by its header names among the page's
``table.wikitable`` tables, so the pages have the real headers, cell markup (external
links for symbols, article links for names and cities, ``<th scope="row">`` company cells
in the Dow table, footnote ``<sup class="reference">`` markers) and a decoy table (past
changes, yearly returns) that must not be taken for the constituents.

Values, per member (:mod:`marketdata.sandbox.index_members`), all from the sandbox's
own instrument so every answer agrees with ``/v2/quote`` in sandbox mode:
- Security / Company: the instrument's long name (Alphabet's two classes say which).
- GICS Sector / Sub-Industry: the instrument's Yahoo sector and industry mapped to GICS
  names (:data:`GICS_SECTORS`, :data:`GICS_SUB_INDUSTRIES`); the Dow's Industry column
  uses :data:`DOW_INDUSTRIES`.
- Headquarters Location: the city and state of the instrument's assetProfile.
- Date added, Founded: real ones for the famous companies, else from sha256 of the
  symbol (a fifth of the S&P dates are the index's start, 1957-03-04; one founding year
  in twenty is written ``YYYY (YYYY)``, as Wikipedia does for predecessors).
- CIK: the EDGAR sandbox's CIK of the company, ten digits.
- Dow Index weighting: price-weighted, from the instruments' 2025-01-02 price levels.
Symbols are written as Wikipedia writes them: share classes with a dot (``BRK.B``).
Links point at ``*.sandbox.invalid`` hosts.
"""

from __future__ import annotations

import html
from datetime import date, timedelta
from functools import lru_cache

from marketdata.sandbox.index_members import dow30, nasdaq100, sp500
from marketdata.sandbox.instruments import Instrument, known_instrument, stable_hash
from marketdata.sandbox.sec.companies import cik_for
from marketdata.sandbox.yahoo.quote_summary import _company_header

# Decoded article paths (the sandbox sees URL-decoded paths) -> (title, builder name).
ARTICLES = {
    "List_of_S&P_500_companies": "sp500",
    "Nasdaq-100": "nasdaq100",
    "Dow_Jones_Industrial_Average": "dowjones",
}
TITLES = {"sp500": "List of S&P 500 companies", "nasdaq100": "Nasdaq-100",
          "dowjones": "Dow Jones Industrial Average"}

GICS_SECTORS = {
    "Technology": "Information Technology", "Healthcare": "Health Care",
    "Financial Services": "Financials", "Consumer Cyclical": "Consumer Discretionary",
    "Consumer Defensive": "Consumer Staples", "Industrials": "Industrials",
    "Energy": "Energy", "Communication Services": "Communication Services",
    "Utilities": "Utilities", "Real Estate": "Real Estate", "Basic Materials": "Materials",
}
GICS_SUB_INDUSTRIES = {
    "Software - Infrastructure": "Systems Software", "Semiconductors": "Semiconductors",
    "Biotechnology": "Biotechnology", "Medical Devices": "Health Care Equipment",
    "Banks - Regional": "Regional Banks",
    "Asset Management": "Asset Management & Custody Banks",
    "Specialty Retail": "Other Specialty Retail", "Packaged Foods": "Packaged Foods & Meats",
    "Specialty Industrial Machinery": "Industrial Machinery & Supplies & Components",
    "Oil & Gas E&P": "Oil & Gas Exploration & Production",
    "Internet Content & Information": "Interactive Media & Services",
    "Utilities - Regulated Electric": "Electric Utilities",
    "REIT - Specialty": "Other Specialized REITs", "Specialty Chemicals": "Specialty Chemicals",
    "Consumer Electronics": "Technology Hardware, Storage & Peripherals",
    "Internet Retail": "Broadline Retail", "Auto Manufacturers": "Automobile Manufacturers",
    "Entertainment": "Movies & Entertainment", "Banks - Diversified": "Diversified Banks",
    "Credit Services": "Transaction & Payment Processing Services",
    "Insurance - Diversified": "Multi-Sector Holdings",
    "Beverages - Non-Alcoholic": "Soft Drinks & Non-alcoholic Beverages",
}
DOW_INDUSTRIES = {
    "Technology": "Information technology", "Healthcare": "Health care",
    "Financial Services": "Financial services", "Consumer Cyclical": "Retailing",
    "Consumer Defensive": "Food and beverage", "Industrials": "Industrial machinery",
    "Energy": "Petroleum industry", "Communication Services": "Broadcasting and entertainment",
    "Utilities": "Utilities", "Real Estate": "Real estate", "Basic Materials": "Chemical industry",
}
_STATES = {"TX": "Texas", "CA": "California", "MA": "Massachusetts", "IL": "Illinois",
           "NY": "New York", "WA": "Washington", "CO": "Colorado", "GA": "Georgia"}
# symbol: (founded, S&P date added, Dow date added or None)
_REAL = {
    "AAPL": ("1977", "1982-11-30", "2015-03-19"), "MSFT": ("1975", "1994-06-01", "1999-11-01"),
    "NVDA": ("1993", "2001-11-30", "2024-11-08"), "GOOGL": ("1998", "2014-04-03", None),
    "GOOG": ("1998", "2006-04-03", None), "AMZN": ("1994", "2005-11-18", "2024-02-26"),
    "META": ("2004", "2013-12-23", None), "TSLA": ("2003", "2020-12-21", None),
    "NFLX": ("1997", "2010-12-20", None), "AMD": ("1969", "2017-03-20", None),
    "INTC": ("1968", "1976-12-31", "1999-11-01"), "JPM": ("2000 (1799)", "1975-06-30",
                                                          "1991-05-06"),
    "V": ("1958", "2009-12-21", "2013-09-20"), "BRK-B": ("1839", "2010-02-16", None),
    "KO": ("1886", "1957-03-04", "1987-03-12"), "DIS": ("1923", "1976-06-30", "1991-05-06"),
}
SP500_START = date(1957, 3, 4)


def wiki_symbol(symbol: str) -> str:
    """Wikipedia's spelling: share classes with a dot."""
    return symbol.replace("-", ".")


def _day_between(first: date, last: date, *parts: object) -> date:
    return first + timedelta(days=stable_hash(*parts) % ((last - first).days + 1))


def security_name(inst: Instrument) -> str:
    name = inst.long_name or inst.short_name
    return {"GOOGL": f"{name} (Class A)", "GOOG": f"{name} (Class C)"}.get(inst.symbol, name)


def headquarters(inst: Instrument) -> str:
    header = _company_header(inst)
    return f"{header['city']}, {_STATES.get(header.get('state', ''), header.get('state', ''))}"


def founded(symbol: str) -> str:
    if symbol in _REAL:
        return _REAL[symbol][0]
    year = 1850 + stable_hash("wiki-founded", symbol) % 166
    if stable_hash("wiki-founded-pred", symbol) % 20 == 0:
        return f"{year} ({year - 10 - stable_hash('wiki-pred', symbol) % 60})"
    return str(year)


def sp500_added(symbol: str) -> str:
    if symbol in _REAL:
        return _REAL[symbol][1]
    if stable_hash("wiki-sp-start", symbol) % 5 == 0:
        return SP500_START.isoformat()
    return _day_between(SP500_START, date(2024, 12, 23), "wiki-sp-added", symbol).isoformat()


def dow_added(symbol: str) -> str:
    real = _REAL.get(symbol)
    if real and real[2]:
        return real[2]
    return _day_between(date(1928, 10, 1), date(2024, 11, 8), "wiki-dow-added",
                        symbol).isoformat()


def esc(text: str) -> str:
    return html.escape(text, quote=True)


def _article_link(text: str) -> str:
    slug = esc(text.replace(" ", "_"))
    return f'<a href="/wiki/{slug}" title="{esc(text)}">{esc(text)}</a>'


def _symbol_link(inst: Instrument) -> str:
    wiki = wiki_symbol(inst.symbol)
    if inst.exchange.code == "NYQ":
        href = f"https://www.nyse.sandbox.invalid/quote/XNYS:{esc(wiki)}"
    else:
        href = f"https://www.nasdaq.sandbox.invalid/market-activity/stocks/{esc(wiki.lower())}"
    return f'<a rel="nofollow" class="external text" href="{href}">{esc(wiki)}</a>'


def _footnote(symbol: str, salt: str) -> str:
    """A citation marker on about one cell in 25, as the real tables have."""
    h = stable_hash("wiki-ref", salt, symbol)
    if h % 25:
        return ""
    n = 1 + h % 40
    return (f'<sup id="cite_ref-{n}" class="reference"><a href="#cite_note-{n}">'
            f'<span class="cite-bracket">&#91;</span>{n}<span class="cite-bracket">&#93;'
            f'</span></a></sup>')


def _table(table_id: str, headers: list[str], rows: list[str],
           css: str = "wikitable sortable sticky-header") -> str:
    head = "".join(f"<th>{esc(h)}\n</th>" for h in headers)
    return (f'<table class="{css}" id="{table_id}">\n<tbody><tr>\n{head}</tr>\n'
            + "".join(rows) + "</tbody></table>\n")


def _sp500_row(symbol: str) -> str:
    inst = known_instrument(symbol)
    sector = GICS_SECTORS.get(inst.sector or "", inst.sector or "")
    sub = GICS_SUB_INDUSTRIES.get(inst.industry or "", inst.industry or "")
    cik = cik_for(symbol)
    return ("<tr>\n"
            f"<td>{_symbol_link(inst)}\n</td>\n"
            f"<td>{_article_link(security_name(inst))}{_footnote(symbol, 'name')}</td>\n"
            f"<td>{esc(sector)}</td>\n<td>{esc(sub)}</td>\n"
            f"<td>{_article_link(headquarters(inst))}</td>\n"
            f"<td>{sp500_added(symbol)}{_footnote(symbol, 'added')}</td>\n"
            f"<td>{cik:010d}</td>\n<td>{esc(founded(symbol))}\n</td></tr>\n")


def _changes_table(symbols: tuple[str, ...]) -> str:
    """The decoy: "Selected changes", two header rows (Added/Removed each with Ticker and
    Security), so its first row names no symbol column."""
    rows = []
    for k, symbol in enumerate(symbols[-6:]):
        inst = known_instrument(symbol)
        day = _day_between(date(2019, 1, 1), date(2024, 12, 23), "wiki-change", symbol)
        gone = f"ZZ{chr(65 + k)}"
        rows.append(f"<tr>\n<td>{day:%B} {day.day}, {day.year}</td>\n"
                    f"<td>{esc(wiki_symbol(symbol))}</td>\n<td>{_article_link(security_name(inst))}"
                    f"</td>\n<td>{gone}</td>\n<td>Former Sandbox Co. {k + 1}</td>\n"
                    "<td>Market capitalization change.</td></tr>\n")
    return ('<table class="wikitable sortable" id="changes">\n<tbody><tr>\n'
            '<th rowspan="2">Effective Date\n</th>\n<th colspan="2">Added\n</th>\n'
            '<th colspan="2">Removed\n</th>\n<th rowspan="2">Reason\n</th></tr>\n'
            "<tr>\n<th>Ticker\n</th>\n<th>Security\n</th>\n<th>Ticker\n</th>\n"
            "<th>Security\n</th></tr>\n" + "".join(rows) + "</tbody></table>\n")


def page_html(title: str, body: str) -> str:
    return ('<!DOCTYPE html>\n<html class="client-nojs" lang="en" dir="ltr">\n<head>\n'
            f'<meta charset="UTF-8">\n<title>{esc(title)} - Wikipedia</title>\n</head>\n'
            '<body class="skin--responsive skin-vector mediawiki ltr">\n'
            '<div class="mw-page-container"><main id="content" class="mw-body">\n'
            '<header class="mw-body-header"><h1 id="firstHeading" class="firstHeading '
            f'mw-first-heading"><span class="mw-page-title-main">{esc(title)}</span></h1>'
            '</header>\n<div id="bodyContent" class="vector-body"><div id="mw-content-text" '
            'class="mw-body-content"><div class="mw-content-ltr mw-parser-output" lang="en" '
            f'dir="ltr">\n{body}</div></div></div>\n</main></div>\n</body>\n</html>\n')


def _heading(text: str) -> str:
    anchor = esc(text.replace(" ", "_"))
    return f'<div class="mw-heading mw-heading2"><h2 id="{anchor}">{esc(text)}</h2></div>\n'


def sp500_page() -> str:
    symbols = sorted(sp500(), key=wiki_symbol)
    headers = ["Symbol", "Security", "GICS Sector", "GICS Sub-Industry",
               "Headquarters Location", "Date added", "CIK", "Founded"]
    body = ("<p>The <b>S&amp;P 500</b> is a stock market index maintained by S&amp;P Dow "
            "Jones Indices. (Sandbox page: synthetic members.)</p>\n"
            + _heading("S&P 500 component stocks")
            + _table("constituents", headers, [_sp500_row(s) for s in symbols])
            + _heading("Selected changes to the list of S&P 500 components")
            + _changes_table(sp500()))
    return page_html(TITLES["sp500"], body)


def nasdaq100_page() -> str:
    symbols = sorted(nasdaq100(), key=lambda s: security_name(known_instrument(s)).lower())
    rows = []
    for symbol in symbols:
        inst = known_instrument(symbol)
        rows.append("<tr>\n"
                    f"<td>{_article_link(security_name(inst))}</td>\n"
                    f"<td>{esc(wiki_symbol(symbol))}{_footnote(symbol, 'ndx')}</td>\n"
                    f"<td>{esc(GICS_SECTORS.get(inst.sector or '', inst.sector or ''))}</td>\n"
                    f"<td>{esc(GICS_SUB_INDUSTRIES.get(inst.industry or '', inst.industry or ''))}"
                    "\n</td></tr>\n")
    returns = "".join(
        f"<tr><td>{year}</td><td>{1000 + stable_hash('ndx-level', year) % 20000:,}</td>"
        f"<td>{stable_hash('ndx-change', year) % 40 - 10}%</td></tr>\n"
        for year in range(2015, 2025))
    body = ("<p>The <b>Nasdaq-100</b> is a stock market index made up of equity securities "
            "issued by 100 of the largest non-financial companies listed on the Nasdaq. "
            "(Sandbox page: synthetic members.)</p>\n"
            + _heading("Yearly returns")
            + '<table class="wikitable"><tbody><tr><th>Year</th><th>Closing level</th>'
              "<th>Change in index (%)</th></tr>\n" + returns + "</tbody></table>\n"
            + _heading("Current components")
            + _table("constituents", ["Company", "Ticker", "GICS Sector", "GICS Sub-Industry"],
                     rows, css="wikitable sortable"))
    return page_html(TITLES["nasdaq100"], body)


def dow_page() -> str:
    symbols = sorted(dow30(), key=lambda s: security_name(known_instrument(s)).lower())
    total = sum(known_instrument(s).anchor_price for s in symbols)
    rows = []
    for symbol in symbols:
        inst = known_instrument(symbol)
        exchange = "NYSE" if inst.exchange.code == "NYQ" else "Nasdaq"
        industry = DOW_INDUSTRIES.get(inst.sector or "", "Conglomerate")
        note = "" if stable_hash("dow-note", symbol) % 6 else \
            f"As {esc(security_name(inst).split()[0])} Holdings"
        rows.append("<tr>\n"
                    f'<th scope="row">{_article_link(security_name(inst))}\n</th>\n'
                    f"<td>{_article_link(exchange)}</td>\n<td>{_symbol_link(inst)}</td>\n"
                    f"<td>{_article_link(industry)}</td>\n"
                    f"<td>{dow_added(symbol)}{_footnote(symbol, 'dow')}</td>\n"
                    f"<td>{note}</td>\n"
                    f"<td>{100 * inst.anchor_price / total:.2f}%</td></tr>\n")
    headers = ["Company", "Exchange", "Symbol", "Industry", "Date added", "Notes",
               "Index weighting"]
    returns = "".join(
        f"<tr><td>{year}</td><td>{20000 + stable_hash('dji-level', year) % 25000:,}</td>"
        f"<td>{stable_hash('dji-change', year) % 30 - 8}%</td></tr>\n"
        for year in range(2015, 2025))
    body = ("<p>The <b>Dow Jones Industrial Average</b> is a price-weighted stock market "
            "index of 30 prominent companies listed on stock exchanges in the United States. "
            "(Sandbox page: synthetic members; weights from 2025-01-02 price levels.)</p>\n"
            + _heading("Components") + _table("constituents", headers, rows)
            + _heading("Annual returns")
            + '<table class="wikitable"><tbody><tr><th>Year</th><th>Closing level</th>'
              "<th>Change in index (%)</th></tr>\n" + returns + "</tbody></table>\n")
    return page_html(TITLES["dowjones"], body)


@lru_cache(maxsize=3)
def article(index: str) -> bytes:
    """The page of ``sp500``, ``nasdaq100`` or ``dowjones`` (built once per process: it
    does not depend on the clock)."""
    build = {"sp500": sp500_page, "nasdaq100": nasdaq100_page, "dowjones": dow_page}[index]
    return build().encode()
