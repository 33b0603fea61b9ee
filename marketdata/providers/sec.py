"""SEC EDGAR: companies' press releases as filed with the SEC, the keyless source of
``/v2/press-releases``.

A US-listed company furnishes its press releases (earnings, deals, dividends, officer
changes) on Form 8-K, the release itself as an exhibit of type ``EX-99.x``. Four calls,
all GET, each with ``User-Agent: settings.SEC_USER_AGENT`` (EDGAR answers 403 to clients
that do not declare a name and a contact address):

1. ticker -> CIK: ``https://www.sec.gov/files/company_tickers.json``
   (``{"0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."}, ...}``), about
   10,000 tickers, cached a day. EDGAR spells share classes with a dash (``BRK-B``), as
   Yahoo does; ``BRK.B`` is looked up as ``BRK-B`` too.
2. the filing list: ``https://data.sec.gov/submissions/CIK##########.json``; its
   ``filings.recent`` holds parallel arrays (``form``, ``accessionNumber``, ``filingDate``,
   ``primaryDocument``, ``items``...) of the latest 1,000 filings (at least a year). Read by
   name, tolerating absent arrays (recordings re-serialised by other tools drop ``items``
   and alphabetise the keys). Only ``8-K`` rows are kept, newest first; cached an hour.
3. the filing index: ``https://www.sec.gov/Archives/edgar/data/{cik}/{accession without
   dashes}/{accession}-index.htm``. Why the HTML index and not the folder's ``index.json``:
   only the HTML index's document table (``table.tableFile``: Seq, Description, Document,
   Type, Size) gives each document's *type*; ``index.json`` lists file names only, and
   exhibit file names follow no rule. Filings never change: cached a week.
4. the exhibit: the lowest-numbered ``EX-99`` document (``EX-99``, ``EX-99.1``, ...,
   HTML or text) of the index, reduced to ``{title, text}`` (see :func:`read_exhibit`) and
   cached a week.

EDGAR allows 10 requests per second per client: calls of this process start at least
0.1 s apart (:data:`PACER`, waited for within the request deadline) and at most 4 are in
flight (the provider's lane). Not paced in the in-process sandbox mode, where no SEC
server is involved.

EDGAR has no "press releases" call: each release is one filing's exhibit, so
:func:`company_press_releases` (the ``sec`` fetcher of ``press_releases``) gathers them
filing by filing, newest first, in rounds of at most :data:`ROUND_SIZE` concurrent filings
(two EDGAR calls each: the filing index, then the exhibit) until ``limit`` releases are
found, the 8-Ks run out, or the request deadline is near. Filings and exhibits are cached a
week, so a repeat costs one cached submissions list.

The same module serves ``/v2/filings/...``: ticker -> CIK (call 1); the filer and its
filings as a record (call 2, every form, see :func:`parse_company_submissions`; the older
pages of the list ``filings.files`` names are kept beside it, not served, for
:mod:`marketdata.providers.sec_insiders`, which reads them when a window reaches back); XBRL
company facts ``https://data.sec.gov/api/xbrl/companyfacts/CIK##########.json`` (the whole
document cached an hour, filtered per request); and full-text search
``https://efts.sec.gov/LATEST/search-index`` (a page per ``from``/``size``, cached an hour).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from bs4 import BeautifulSoup, NavigableString, Tag
from bs4.element import CData, Comment, Declaration, Doctype, ProcessingInstruction
from django.conf import settings

from marketdata import deadline, pacing
from marketdata import formatting as fmt
from marketdata.cache import TTLPolicy, note_incomplete
from marketdata.concurrency import gather_partial
from marketdata.errors import (
    DeadlineExceeded,
    MarketDataError,
    NotFound,
    UpstreamError,
    telling_failure,
)
from marketdata.http import MIN_ATTEMPT_SECONDS, ProviderConfig, UpstreamResponse
from marketdata.logs import get_logger
from marketdata.providers.base import Provider
from marketdata.providers.registry import get_provider
from marketdata.records.companies import PressRelease
from marketdata.records.filings import (
    FILER_BOOLEANS,
    FILER_STRINGS,
    CompanyFacts,
    CompanyFilings,
    Concept,
    DataPoint,
    Filing,
    FilingSearch,
    SearchHit,
    SubmissionsPage,
)
from marketdata.records.members import members_of

log = get_logger("marketdata.providers.sec")

PROVIDER = ProviderConfig(name="sec", display_name="SEC EDGAR", connect_timeout=3.0,
                          read_timeout=8.0, max_attempts=2, max_concurrency=4,
                          hosts=("www.sec.gov", "data.sec.gov", "efts.sec.gov"))

TICKERS_URL = "https://www.sec.gov/files/company_tickers.json"
SUBMISSIONS_URL = "https://data.sec.gov/submissions/CIK{cik:010d}.json"
# An older page of a filing list, by the name ``filings.files`` gives it.
PAGE_URL = "https://data.sec.gov/submissions/{name}"
ARCHIVES_URL = "https://www.sec.gov/Archives/edgar/data"
COMPANY_FACTS_URL = "https://data.sec.gov/api/xbrl/companyfacts/CIK{cik:010d}.json"
SEARCH_URL = "https://efts.sec.gov/LATEST/search-index"

TICKERS_TTL = TTLPolicy("sec_tickers", open=86400, extended=86400, closed=86400,
                        market_aware=False)
SUBMISSIONS_TTL = TTLPolicy("sec_submissions", open=3600, extended=3600, closed=3600,
                            market_aware=False)
# Facts change when the company files (a few times a quarter); a search page an hour, as
# the filings list.
FACTS_TTL = TTLPolicy("sec_facts", open=3600, extended=3600, closed=3600, market_aware=False)
SEARCH_TTL = TTLPolicy("sec_search", open=3600, extended=3600, closed=3600,
                       market_aware=False)
PAGE_TTL = TTLPolicy("sec_submissions_page", open=86400, extended=86400, closed=86400,
                     market_aware=False)
FILING_TTL = TTLPolicy("sec_filing", open=604800, extended=604800, closed=604800,
                       market_aware=False)

REQUESTS_PER_SECOND = 10
# Filings fetched at once: 16 EDGAR calls, at its 10 calls/s about 1.6 s a round; small
# enough that one request never holds many of the shared fan-out threads.
ROUND_SIZE = 8
# A new round starts only with at least this much of the request deadline left.
MIN_ROUND_SECONDS = 1.0
# A release's text is cut (at a word boundary, marked with "…") past this many characters:
# earnings releases with their statement tables run to 30-60 kB, and a 100-release answer
# must stay a reasonable size.
MAX_TEXT_CHARS = 20_000
MAX_TITLE_CHARS = 300

ACCESSION = re.compile(r"\d{10}-\d{2}-\d{6}", re.ASCII)
_EX99 = re.compile(r"EX-99(?:\.(\d{1,3}))?([A-Z]{0,3})", re.ASCII)
_DOCUMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}", re.ASCII)
_READABLE = (".htm", ".html", ".txt")


# -- pacing ---------------------------------------------------------------------------------
class RequestPacer(pacing.Pacer):
    """Start calls at least ``1 / per_second`` apart (process-wide); ``per_second`` None
    turns pacing off. A call whose turn would come after the request deadline is refused
    at once (a :class:`DeadlineExceeded`, which says nothing about EDGAR's health)."""

    def __init__(self, per_second: float | None) -> None:
        super().__init__(1.0 / per_second if per_second else 0.0, _too_late,
                         leave_seconds=MIN_ATTEMPT_SECONDS)


def _too_late() -> DeadlineExceeded:
    return DeadlineExceeded(PROVIDER.name, f"{PROVIDER.display_name} was not called: the "
                            "request deadline passed")


PACER = RequestPacer(REQUESTS_PER_SECOND)


class SecProvider(Provider):
    """The declared User-Agent on every call; calls paced (see the module doc). A 404
    means "not found" only where the caller says what was looked for (the submissions of
    a CIK); a missing filing index or exhibit is a bad upstream answer (502), and a 403 is
    EDGAR refusing this client (502, saying which setting to fix)."""

    config = PROVIDER

    def load_credentials(self) -> Mapping[str, Any]:
        return {"user_agent": settings.SEC_USER_AGENT}

    def authenticate(self, params: dict[str, Any], headers: dict[str, str]) -> None:
        headers["User-Agent"] = self.credentials["user_agent"]

    def call(self, *args: Any, **kwargs: Any) -> UpstreamResponse:
        if self.paced:
            PACER.wait()
        return super().call(*args, **kwargs)

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        if response.status < 400:
            return None
        if response.status == 404 and not_found is not None:
            return NotFound(not_found)
        if response.status == 403:
            return PROVIDER.bad_answer("refused the request (HTTP 403): EDGAR wants "
                                       "SEC_USER_AGENT to name the operator and a contact "
                                       "e-mail", 403)
        return self.status_error(response, endpoint)


def sec_provider() -> SecProvider:
    return get_provider(PROVIDER.name)


# -- parsers --------------------------------------------------------------------------------
def ticker_spellings(symbol: str) -> list[str]:
    """EDGAR's spellings to try for a (Yahoo-style, upper-case) symbol: as given, then with
    a share-class dot as a dash (``BRK.B`` -> ``BRK-B``)."""
    out = [symbol]
    if "." in symbol:
        out.append(symbol.replace(".", "-"))
    return out


def parse_company_tickers(payload: Any) -> dict[str, int]:
    """``company_tickers.json`` -> {TICKER: CIK}. Rows without a ticker or a numeric CIK
    are skipped; a body without any row is a 502."""
    if isinstance(payload, dict):
        rows = list(payload.values())
    elif isinstance(payload, list):
        rows = payload
    else:
        raise PROVIDER.bad_answer("returned a ticker list that is not an object")
    table: dict[str, int] = {}
    for row in rows:
        if not isinstance(row, dict):
            continue
        ticker, cik = row.get("ticker"), row.get("cik_str")
        if isinstance(cik, str) and cik.isdigit():
            cik = int(cik)
        if isinstance(ticker, str) and ticker.strip() and isinstance(cik, int) \
                and not isinstance(cik, bool) and cik > 0:
            table.setdefault(ticker.strip().upper(), cik)
    if not table:
        raise PROVIDER.bad_answer("returned an empty ticker list")
    return table


def _at(values: Any, index: int) -> Any:
    return values[index] if isinstance(values, list) and index < len(values) else None


def parse_submissions(payload: Any) -> list[dict[str, Any]]:
    """The submissions JSON -> the 8-K filings of ``filings.recent``, newest first, each
    ``{accession, date, document, items}`` (``items``: the 8-K item numbers, or None when
    EDGAR's row has none). Rows without a well-formed accession number or filing date are
    skipped."""
    filings = payload.get("filings") if isinstance(payload, dict) else None
    recent = filings.get("recent") if isinstance(filings, dict) else None
    if not isinstance(recent, dict):
        raise PROVIDER.bad_answer("returned submissions without filings.recent")
    forms = recent.get("form")
    if not isinstance(forms, list):
        raise PROVIDER.bad_answer("returned submissions without a form list")
    out = []
    for i, form in enumerate(forms):
        if form != "8-K":
            continue
        accession, filed = _at(recent.get("accessionNumber"), i), _at(recent.get("filingDate"), i)
        if not (isinstance(accession, str) and ACCESSION.fullmatch(accession)):
            continue
        if not (isinstance(filed, str) and re.fullmatch(r"\d{4}-\d{2}-\d{2}", filed)):
            continue
        document = _at(recent.get("primaryDocument"), i)
        items = _at(recent.get("items"), i)
        out.append({
            "accession": accession, "date": filed,
            "document": document if isinstance(document, str) else None,
            "items": [p.strip() for p in items.split(",") if p.strip()]
            if isinstance(items, str) and items.strip() else None,
        })
    out.sort(key=lambda f: (f["date"], f["accession"]), reverse=True)
    return out


def may_have_exhibits(filing: Mapping[str, Any]) -> bool:
    """Exhibits are filed under item 9.01; an 8-K whose item list lacks it has none. Rows
    without an item list are looked at."""
    items = filing.get("items")
    return items is None or "9.01" in items


def _cell_text(cell: Tag) -> str:
    return " ".join(cell.get_text(" ").split())


def _document_name(cell: Tag) -> str | None:
    """The file name a document cell links to (``/ix?doc=/Archives/...`` for inline XBRL
    documents), validated: only a plain file name of the filing's own folder is ever
    fetched, never a URL taken from the page."""
    link = cell.find("a")
    href = link.get("href") if isinstance(link, Tag) else None
    if isinstance(href, str) and href.strip():
        name = href.strip().removeprefix("/ix?doc=").split("?", 1)[0].rsplit("/", 1)[-1]
    else:
        words = _cell_text(cell).split()
        name = words[0] if words else ""
    return name if _DOCUMENT.fullmatch(name) else None


def parse_filing_index(markup: str | bytes) -> list[dict[str, str]]:
    """A filing's ``-index.htm`` -> its documents ``[{type, document}]`` in table order,
    from every ``table.tableFile`` whose header names Document and Type columns (found by
    name, not position). A page without such a table is a 502."""
    soup = BeautifulSoup(markup, "html.parser")
    out: list[dict[str, str]] = []
    found = False
    for table in soup.find_all("table", class_="tableFile"):
        rows = table.find_all("tr")
        if not rows:
            continue
        header = [_cell_text(c).lower() for c in rows[0].find_all(["th", "td"])]
        if "document" not in header or "type" not in header:
            continue
        found = True
        doc_col, type_col = header.index("document"), header.index("type")
        for row in rows[1:]:
            cells = row.find_all(["td", "th"])
            if len(cells) <= max(doc_col, type_col):
                continue
            kind = _cell_text(cells[type_col]).upper()
            name = _document_name(cells[doc_col])
            if kind and name:
                out.append({"type": kind, "document": name})
    if not found:
        raise PROVIDER.bad_answer("returned a filing index without a document table")
    return out


def press_release_document(documents: list[dict[str, str]]) -> str | None:
    """The press release of a filing: its lowest-numbered ``EX-99`` exhibit (``EX-99``,
    then ``EX-99.1``, ``EX-99.2``...) that is HTML or text; None when it has none."""
    candidates = []
    for position, doc in enumerate(documents):
        match = _EX99.fullmatch(doc["type"])
        if match and doc["document"].lower().endswith(_READABLE):
            candidates.append((int(match.group(1) or 0), match.group(2), position,
                               doc["document"]))
    return min(candidates)[3] if candidates else None


# -- exhibit text ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Block:
    """One line of a document: a paragraph, heading, table row or ``<br>``-separated line;
    ``emphasized`` when all its text is bold or in a heading."""

    text: str
    emphasized: bool


_SKIPPED = frozenset({"script", "style", "head", "title", "noscript", "template", "ix:header",
                      "xml"})
_HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_BLOCKS = _HEADINGS | frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "div",
    "dl", "dt", "figcaption", "figure", "footer", "form", "header", "hr", "html", "li",
    "main", "nav", "ol", "p", "pre", "section", "table", "tbody", "tfoot", "thead", "tr",
    "ul"})
_CELLS = frozenset({"td", "th"})
_BOLD = _HEADINGS | frozenset({"b", "strong"})
_BOLD_STYLE = re.compile(r"font-weight\s*:\s*(bold|bolder|[6-9]00)", re.I)
_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.I)
_NOT_TEXT = (Comment, CData, Declaration, Doctype, ProcessingInstruction)


def _squash(text: str) -> str:
    return " ".join(text.replace("\u200b", "").split())


def html_blocks(markup: str | bytes) -> list[Block]:
    """The document's lines in reading order (scripts, styles and ``display:none`` parts
    left out; table cells of a row joined by spaces). Iterative, so deep nesting cannot
    exhaust the stack."""
    soup = BeautifulSoup(markup, "html.parser")
    blocks: list[Block] = []
    parts: list[tuple[str, bool]] = []

    def flush() -> None:
        text = _squash("".join(t for t, _ in parts))
        if text:
            blocks.append(Block(text, all(bold for t, bold in parts if t.strip())))
        parts.clear()

    # (node, bold, closing): closing marks the end of a block element.
    stack: list[tuple[Any, bool, bool]] = [(c, False, False) for c in reversed(soup.contents)]
    while stack:
        node, bold, closing = stack.pop()
        if closing:
            flush()
            continue
        if isinstance(node, NavigableString):
            if not isinstance(node, _NOT_TEXT):
                parts.append((str(node), bold))
            continue
        if not isinstance(node, Tag):
            continue
        name = (node.name or "").lower()
        style = node.get("style")
        style = style if isinstance(style, str) else ""
        if name in _SKIPPED or _HIDDEN_STYLE.search(style):
            continue
        if name == "br":
            flush()
            continue
        inner = bold or name in _BOLD or bool(_BOLD_STYLE.search(style))
        if name in _CELLS:
            parts.append((" ", inner))
        if name in _BLOCKS:
            flush()
            stack.append((node, inner, True))
        stack.extend((child, inner, False) for child in reversed(node.contents))
    flush()
    return blocks


def text_blocks(text: str) -> list[Block]:
    """A plain-text document's paragraphs (blank-line separated; EDGAR's SGML markers
    such as ``<PAGE>`` dropped)."""
    text = re.sub(r"</?(PAGE|DOCUMENT|TYPE|SEQUENCE|FILENAME|DESCRIPTION|TEXT)\b[^>\n]*>",
                  "", text, flags=re.I)
    return [Block(_squash(p), False) for p in re.split(r"\n\s*\n", text) if _squash(p)]


_LABEL = re.compile(r"(exhibit|ex\.?)\s*(no\.?\s*)?99\b", re.I)
_BANNER = re.compile(r"(for\s+immediate\s+release|(press|news|media|earnings)\s+release|news)"
                     r"[\s:.!-]*", re.I)
_DATE_LINE = re.compile(
    r"((mon|tues|wednes|thurs|fri|satur|sun)day,?\s+)?(jan|feb|mar|apr|may|jun|jul|aug|sep|"
    r"oct|nov|dec)[a-z]*\.?\s+\d{1,2},?\s+\d{4}|\d{4}-\d{2}-\d{2}", re.I)
_CONTACT = re.compile(r"((media|investor|press)\s+)?(contacts?|inquiries|relations)\b", re.I)
_BODY_WORDS = 40
_TITLE_SCAN = 60


def boilerplate(text: str) -> bool:
    """Lines a release starts with that are not its headline: exhibit labels, "Press
    release" / "For immediate release" banners, bare dates, contact headings, lines
    without letters."""
    if not re.search(r"[A-Za-z]", text):
        return True
    if len(text) > 120:
        return False
    return bool(_LABEL.match(text) or _BANNER.fullmatch(text) or _DATE_LINE.fullmatch(text)
                or _CONTACT.match(text))


def _clip(text: str, limit: int) -> str:
    """``text`` cut at a word boundary to at most ``limit`` characters, "…" marking a cut."""
    if len(text) <= limit:
        return text
    cut = text[:limit - 1]
    space = cut.rfind(" ")
    return (cut[:space] if space > limit // 2 else cut).rstrip() + "…"


def _first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+(?=[A-Z])", text, maxsplit=1)[0]


def choose_title(blocks: list[Block]) -> str | None:
    """The release's headline: among the lines before the first body paragraph (a block of
    more than 40 words), the first emphasized one (bold or a heading) of at least three
    words that is not boilerplate; else the first such line in any style; else the first
    sentence of the first paragraph. At most 300 characters."""
    plain: str | None = None
    paragraph: Block | None = None
    for block in blocks[:_TITLE_SCAN]:
        words = len(block.text.split())
        if words > _BODY_WORDS:
            paragraph = block
            break
        if words < 3 or boilerplate(block.text):
            continue
        if block.emphasized:
            return _clip(block.text, MAX_TITLE_CHARS)
        plain = plain or block.text
    if plain:
        return _clip(plain, MAX_TITLE_CHARS)
    paragraph = paragraph or next((b for b in blocks if not boilerplate(b.text)), None)
    return _clip(_first_sentence(paragraph.text), MAX_TITLE_CHARS) if paragraph else None


_HTML_TAG = re.compile(rb"<(html|body|div|p|table|font)[\s>/]", re.I)


def _looks_like_html(content: bytes) -> bool:
    """HTML in a ``.txt`` name? (EDGAR's SGML markers such as ``<PAGE>`` are not HTML.)"""
    return bool(_HTML_TAG.search(content[:4096]))


def read_exhibit(content: bytes, document: str) -> dict[str, str | None]:
    """An exhibit -> ``{title, text}``. HTML (by file name or content) is parsed with an
    HTML parser; text documents are split into paragraphs. ``text`` is the document's lines
    joined by newlines (whitespace runs collapsed, leading "Exhibit 99.1" labels dropped),
    cut to :data:`MAX_TEXT_CHARS`; ``title`` per :func:`choose_title`. Both None for a
    document without text."""
    if document.lower().endswith((".htm", ".html")) or _looks_like_html(content):
        blocks = html_blocks(content)
    else:
        try:
            decoded = content.decode("utf-8")
        except UnicodeDecodeError:
            decoded = content.decode("cp1252", errors="replace")
        blocks = text_blocks(decoded)
    lines = [b.text for b in blocks]
    while lines and _LABEL.match(lines[0]) and len(lines[0]) <= 40:
        lines.pop(0)
    if not lines:
        return {"title": None, "text": None}
    return {"title": choose_title(blocks), "text": _clip("\n".join(lines), MAX_TEXT_CHARS)}


# -- typed fetches (through the cache) ------------------------------------------------------
def company_ciks() -> dict[str, int]:
    """EDGAR's {TICKER: CIK} table (cached a day)."""
    provider = sec_provider()
    return provider.cached(
        "company_tickers", {},
        lambda: parse_company_tickers(provider.get_json("company_tickers", TICKERS_URL)),
        TICKERS_TTL, group="sec")


def cik_for(symbol: str) -> int:
    """The CIK of a validated, upper-case ticker; NotFound when EDGAR does not list it."""
    table = company_ciks()
    for spelling in ticker_spellings(symbol):
        if spelling in table:
            return table[spelling]
    raise NotFound(f"Symbol not found: '{symbol}'")


def recent_8k_filings(cik: int, symbol: str) -> list[dict[str, Any]]:
    """The company's recent 8-K filings, newest first (cached an hour)."""
    provider = sec_provider()
    return provider.cached(
        "submissions", {"cik": cik},
        lambda: parse_submissions(provider.get_json(
            "submissions", SUBMISSIONS_URL.format(cik=cik),
            not_found=f"Symbol not found: '{symbol}'")),
        SUBMISSIONS_TTL, group="sec")


def _folder(cik: int, accession: str) -> str:
    return f"{ARCHIVES_URL}/{cik}/{accession.replace('-', '')}"


def filing_documents(cik: int, accession: str) -> list[dict[str, str]]:
    """The documents of one filing, from its index page (cached a week)."""
    provider = sec_provider()
    url = f"{_folder(cik, accession)}/{accession}-index.htm"
    return provider.cached(
        "filing_index", {"cik": cik, "accession": accession},
        lambda: parse_filing_index(provider.get("filing_index", url).content),
        FILING_TTL, group="sec")


def exhibit(cik: int, accession: str, document: str) -> dict[str, str | None]:
    """``{title, text}`` of one exhibit document (cached a week)."""
    if not _DOCUMENT.fullmatch(document):
        raise PROVIDER.bad_answer("listed a document name that is not a plain file name")
    provider = sec_provider()
    url = f"{_folder(cik, accession)}/{document}"
    return provider.cached(
        "exhibit", {"cik": cik, "accession": accession, "document": document},
        lambda: read_exhibit(provider.get("exhibit", url).content, document),
        FILING_TTL, group="sec")


def filing_release(cik: int, filing: Mapping[str, Any]) -> dict[str, str | None] | None:
    """``{date, title, text}`` of one 8-K's press release (``date``: the filing date,
    ISO), or None when the filing has no readable ``EX-99`` exhibit or it holds no text."""
    if not ACCESSION.fullmatch(str(filing.get("accession", ""))):
        return None
    document = press_release_document(filing_documents(cik, filing["accession"]))
    if document is None:
        return None
    found = exhibit(cik, filing["accession"], document)
    if not found["text"]:
        return None
    return {"date": filing["date"], "title": found["title"], "text": found["text"]}


def scan_budget(limit: int) -> int:
    """At most this many 8-Ks (that may carry exhibits) are looked at for ``limit``
    releases: a company whose 8-Ks carry no release costs a bounded number of calls."""
    return 2 * limit + 10


def time_for_a_round() -> bool:
    """Whether another round of filings may start: at least :data:`MIN_ROUND_SECONDS` of
    the request deadline left (or no deadline)."""
    left = deadline.remaining()
    return left is None or left >= MIN_ROUND_SECONDS


def company_press_releases(symbol: str, limit: int) -> list[PressRelease]:
    """The ``press_releases`` fetcher: at most ``limit`` releases from the company's recent
    8-K filings, newest first.

    404 when EDGAR does not know the ticker; ``[]`` when no recent 8-K carries a readable
    ``EX-99`` exhibit. Filings whose index or exhibit fails are left out (logged); when
    none could be read and some failed, that upstream failure is raised.
    """
    cik = cik_for(symbol)
    candidates = [f for f in recent_8k_filings(cik, symbol)
                  if may_have_exhibits(f)][:scan_budget(limit)]
    releases: list[dict[str, str | None]] = []
    failures: list[MarketDataError] = []
    position = 0
    while len(releases) < limit and position < len(candidates):
        if position and not time_for_a_round():
            # Out of time: serve what was found (never stored as a whole answer).
            note_incomplete()
            log.info("press releases cut short by the deadline", symbol=symbol,
                     found=len(releases), filings_left=len(candidates) - position)
            break
        batch = candidates[position:position + min(ROUND_SIZE, limit - len(releases))]
        position += len(batch)
        fetched = gather_partial(
            lambda filing: filing_release(cik, filing), batch,
            what="press release filing",
            log_fields=lambda filing: {"symbol": symbol, "accession": filing["accession"]})
        releases.extend(found for _, found in fetched.values if found is not None)
        failures.extend(error for _, error in fetched.left_out)
        if not fetched.values:
            break  # every filing of the round failed: EDGAR is failing, don't go on
    if not releases:
        failure = telling_failure([e for e in failures if isinstance(e, UpstreamError)])
        if failure is not None:
            raise failure
    return [PressRelease(date=found["date"], symbol=symbol, title=found["title"],
                         text=found["text"]) for found in releases[:limit]]


# -- filings, company facts and full-text search (/v2/filings) -----------------------------
# Full-text search covers filings since 2001; a one-sided date range is completed with it
# (or today), since EDGAR's search takes both ends of a custom range.
SEARCH_FIRST_DAY = "2001-01-01"


def _cik(value: Any) -> int | None:
    """EDGAR writes a CIK as a number or as zero-padded digits."""
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return fmt.integer(value)


def _flag(value: Any) -> bool | None:
    number = fmt.integer(value)
    return bool(number) if number in (0, 1) else None


# How a filing's or a reported value's cell is read (EDGAR's columns and keys are the
# members' names): text unless said here.
_FILING_READ: dict[str, Callable[[Any], Any]] = {"size": fmt.integer}
_POINT_READ: dict[str, Callable[[Any], Any]] = {"val": fmt.json_number, "fy": fmt.integer}
# The field of each member of a filer (the header's members are EDGAR's names).
_FILER_FIELD = {m.name: m.attribute for m in members_of(CompanyFilings)}


def parse_company_submissions(payload: Any) -> CompanyFilings:
    """The submissions JSON -> the filer's header and its recent filings (``filings.recent``,
    EDGAR's latest 1,000 or more, newest first, as EDGAR orders them).

    ``filings.recent`` is columnar: one array per member. Rows are read by index across the
    arrays and each cell on its own: EDGAR writes ``""`` where a filing has no value (no
    report date, no description), and that cell alone becomes None; a short or absent array
    gives None for the missing cells. Rows without an accession number are skipped. A body
    without a CIK or without ``filings.recent`` is a 502.
    """
    if not isinstance(payload, dict):
        raise PROVIDER.bad_answer("returned submissions that are not an object")
    cik = _cik(payload.get("cik"))
    if cik is None or cik <= 0:
        raise PROVIDER.bad_answer("returned submissions without a CIK")
    filings = payload.get("filings")
    recent = filings.get("recent") if isinstance(filings, dict) else None
    if not isinstance(recent, dict):
        raise PROVIDER.bad_answer("returned submissions without filings.recent")
    rows = filing_rows(recent)

    def strings(value: Any) -> list[str]:
        return [v for v in value if isinstance(v, str) and v] if isinstance(value, list) else []

    header: dict[str, Any] = {_FILER_FIELD[name]: fmt.text(payload.get(name))
                              for name in FILER_STRINGS}
    header.update({_FILER_FIELD[name]: _flag(payload.get(name)) for name in FILER_BOOLEANS})
    return CompanyFilings(cik=cik, tickers=strings(payload.get("tickers")),
                          exchanges=strings(payload.get("exchanges")), filings=rows,
                          older_pages=older_pages(filings.get("files")
                                                  if isinstance(filings, dict) else None),
                          **header)


def filing_rows(columns: Mapping[str, Any]) -> list[Filing]:
    """EDGAR's columnar filing list (``filings.recent``, or an older page of it) -> its
    rows, read by index across the arrays, each cell on its own (see
    :func:`parse_company_submissions`); rows without an accession number are skipped."""
    accessions = columns.get("accessionNumber")
    rows = []
    for i in range(len(accessions) if isinstance(accessions, list) else 0):
        row: dict[str, Any] = {m.attribute: _FILING_READ.get(m.name, fmt.text)(
            _at(columns.get(m.name), i)) for m in members_of(Filing)}
        if row["accession_number"] is not None:
            rows.append(Filing(**row))
    return rows


_PAGE_NAME = re.compile(r"CIK\d{10}-submissions-\d{3}\.json", re.ASCII)
_ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)


def older_pages(files: Any) -> tuple[SubmissionsPage, ...]:
    """``filings.files`` -> the older pages of the filing list (a filer with more filings
    than ``recent`` holds), newest first. Only EDGAR's own page names are kept (a name is
    put in a URL); a page without its date range is skipped."""
    pages = []
    for item in files if isinstance(files, list) else ():
        if not isinstance(item, dict):
            continue
        name, first, last = item.get("name"), item.get("filingFrom"), item.get("filingTo")
        if isinstance(name, str) and _PAGE_NAME.fullmatch(name) and isinstance(first, str) \
                and _ISO_DAY.fullmatch(first) and isinstance(last, str) \
                and _ISO_DAY.fullmatch(last):
            pages.append(SubmissionsPage(name=name, filing_from=first, filing_to=last))
    return tuple(sorted(pages, key=lambda page: page.filing_to, reverse=True))


def submissions_page(cik: int, page: SubmissionsPage) -> list[Filing]:
    """An older page of the filing list (cached a day): its rows, in EDGAR's columns (at
    the top level, not under ``filings.recent``)."""
    provider = sec_provider()

    def fetch() -> list[Filing]:
        payload = provider.get_json("submissions_page", PAGE_URL.format(name=page.name))
        if not isinstance(payload, dict):
            raise PROVIDER.bad_answer("returned a filing list page that is not an object")
        return filing_rows(payload)

    return provider.cached("submissions_page", {"cik": cik, "page": page.name}, fetch,
                           PAGE_TTL, group="sec")


def _data_point(point: Any) -> DataPoint | None:
    if not isinstance(point, dict):
        return None
    return DataPoint(**{m.attribute: _POINT_READ.get(m.name, fmt.text)(point.get(m.name))
                        for m in members_of(DataPoint)})


def parse_company_facts(payload: Any) -> CompanyFacts:
    """The companyfacts JSON -> taxonomy -> concept -> :class:`Concept`, values as EDGAR
    sends them (``val`` unscaled, in the unit's own terms), in EDGAR's order. Malformed
    concepts or points are skipped; a body without ``facts`` is a 502."""
    if not isinstance(payload, dict) or not isinstance(payload.get("facts"), dict):
        raise PROVIDER.bad_answer("returned company facts without facts")
    taxonomies: dict[str, dict[str, Concept]] = {}
    for taxonomy, concepts in payload["facts"].items():
        if not isinstance(concepts, dict):
            continue
        found: dict[str, Concept] = {}
        for name, concept in concepts.items():
            units = concept.get("units") if isinstance(concept, dict) else None
            if not isinstance(units, dict):
                continue
            found[name] = Concept(
                label=fmt.text(concept.get("label")),
                description=fmt.text(concept.get("description")),
                units={unit: [p for p in map(_data_point, points) if p is not None]
                       for unit, points in units.items() if isinstance(points, list)})
        taxonomies[taxonomy] = found
    return CompanyFacts(cik=_cik(payload.get("cik")) or 0,
                        name=fmt.text(payload.get("entityName")), taxonomies=taxonomies)


def parse_search(payload: Any) -> FilingSearch:
    """An EDGAR full-text search answer (Elasticsearch's ``hits``) -> the total and the
    page's hits (:class:`SearchHit`, from each hit's ``_source``), in EDGAR's order
    (relevance). A body without ``hits`` is a 502."""
    hits = payload.get("hits") if isinstance(payload, dict) else None
    if not isinstance(hits, dict) or not isinstance(hits.get("hits"), list):
        raise PROVIDER.bad_answer("returned a search answer without hits")
    total = hits.get("total")
    total_hits = fmt.integer(total.get("value") if isinstance(total, dict) else total)

    def strings(value: Any) -> list[str]:
        return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []

    out = []
    for hit in hits["hits"]:
        source = hit.get("_source") if isinstance(hit, dict) else None
        if not isinstance(source, dict):
            continue
        out.append(SearchHit(file_date=fmt.text(source.get("file_date")),
                             form=fmt.text(source.get("form")),
                             adsh=fmt.text(source.get("adsh")),
                             display_names=strings(source.get("display_names")),
                             ciks=strings(source.get("ciks"))))
    return FilingSearch(total_hits=total_hits, hits=out)


def search_params(query: str, forms: list[str], start_date: str | None, end_date: str | None,
                  offset: int, size: int, today: str) -> dict[str, Any]:
    """The query string of a full-text search (``today``: the end of a range given only a
    start)."""
    params: dict[str, Any] = {"q": query}
    if forms:
        params["forms"] = ",".join(forms)
    if start_date or end_date:
        params.update(dateRange="custom", startdt=start_date or SEARCH_FIRST_DAY,
                      enddt=end_date or today)
    if offset:
        params["from"] = offset
    params["size"] = size
    return params


def company_filings(symbol: str) -> CompanyFilings:
    """The ``filings`` fetcher: a validated ticker's filer header and recent filings
    (cached an hour); NotFound for a ticker EDGAR does not list."""
    cik = cik_for(symbol)
    provider = sec_provider()
    return provider.cached(
        "company_submissions", {"cik": cik},
        lambda: parse_company_submissions(provider.get_json(
            "submissions", SUBMISSIONS_URL.format(cik=cik),
            not_found=f"Symbol not found: '{symbol}'")),
        SUBMISSIONS_TTL, group="sec")


def company_facts(symbol: str) -> CompanyFacts:
    """The ``company_facts`` fetcher: every XBRL fact of a validated ticker's filer (the
    whole document cached an hour, filtered by the caller). A listed company without XBRL
    facts (EDGAR's 404 for its CIK) has none: an empty record, not a 404."""
    cik = cik_for(symbol)
    provider = sec_provider()

    def fetch() -> CompanyFacts:
        try:
            payload = provider.get_json("companyfacts", COMPANY_FACTS_URL.format(cik=cik),
                                        not_found="no facts")
        except NotFound:
            return CompanyFacts(cik=cik, name=None, taxonomies={})
        return parse_company_facts(payload)

    return provider.cached("companyfacts", {"cik": cik}, fetch, FACTS_TTL, group="sec")


def search_filings(query: str, forms: list[str], start_date: str | None,
                   end_date: str | None, offset: int, size: int) -> FilingSearch:
    """The ``filing_search`` fetcher: one page (``offset``, ``size``) of EDGAR's full-text
    search (cached an hour)."""
    params = search_params(query, forms, start_date, end_date, offset, size,
                           datetime.now(UTC).date().isoformat())
    provider = sec_provider()
    # Free text in a cache key: hashed (cache backends refuse spaces and control characters).
    key = {"request": hashlib.sha256(urlencode(params).encode()).hexdigest()}
    return provider.cached(
        "search", key,
        lambda: parse_search(provider.get_json("search", SEARCH_URL, params)),
        SEARCH_TTL, group="sec")
