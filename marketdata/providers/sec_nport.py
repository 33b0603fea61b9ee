"""SEC N-PORT-P: a fund's whole portfolio from its latest public portfolio report, the
keyless source of ``/v2/etf/{symbol}/holdings``.

Registered funds (ETFs, mutual funds) report their holdings on Form N-PORT every month; the
report of each fiscal quarter's last month is made public (``NPORT-P``, filed within about
60 days; ``NPORT-P/A`` restates a report in full). One filing is one *series* (one
portfolio) of a registrant (a trust of one to hundreds of series), and the trust's EDGAR
submissions list does not say which series a filing is of. Three calls find and read it,
each through the SEC provider of :mod:`marketdata.providers.sec` (its declared User-Agent,
pacing at 10 calls/s, lane and status map):

1. ticker -> trust CIK, series id, class id: ``https://www.sec.gov/files/company_tickers_mf.json``
   (``{"fields": ["cik", "seriesId", "classId", "symbol"], "data": [[36405, "S000002839",
   "C000092055", "VOO"], ...]}``: every share class of a registered fund with a ticker,
   about 28,000), cached a day. A ticker it does not list has no N-PORT to read
   (:class:`~marketdata.errors.NotServed`: the capability's caller turns to Yahoo's top
   holdings).
2. the series' filings: ``https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany
   &CIK={seriesId}&type=NPORT-P&dateb=&owner=include&count=10&output=atom``. EDGAR's
   company browser takes a series id in place of a CIK and lists the filings tagged with
   that series, newest first, as Atom (``entry/content``: ``accession-number``,
   ``filing-date``, ``filing-type``, ``filing-href``); an N-PORT is tagged with its one
   series. One request whatever the trust's size. Why not the others: the trust's
   submissions JSON lists its N-PORTs without their series (Vanguard's and iShares' trusts
   file hundreds a quarter: finding one would mean opening filings until the series
   matches), and full-text search matches words of documents, not series, in relevance
   order. ``type`` is a prefix, so amendments are listed too. Cached 6 hours (a series
   files a public report a quarter). No entry: NotServed, as in 1.
3. the report: ``https://www.sec.gov/Archives/edgar/data/{cik}/{accession without
   dashes}/primary_doc.xml`` (an N-PORT filing's primary document always has this name),
   parsed by :func:`parse_nport` as it streams through expat (no tree is built: a bond
   fund's report has tens of thousands of holdings). A filing never changes: cached 30
   days in the shared cache and, parsed, in this process's memory under
   ``SEC_NPORT_MEMORY_BYTES`` (:mod:`marketdata.memo`). A report over
   :data:`MAX_DOCUMENT_BYTES` is refused (502), not parsed.

Which filing: the newest listed; when it is an amendment, the newest original report too,
and of the two the one with the later report date (the amendment when they tie): a late
amendment of an older quarter does not hide the latest quarter. A report of another series
than the one asked for is a 502 (never another fund's portfolio). A cold answer costs three
EDGAR calls (four when the newest filing is an amendment, one more a day for the tickers
below); a warm one none.

Tickers: N-PORT identifies a holding by CUSIP, ISIN and LEI, and by ticker only where a
filer adds one. For common equity without one, :func:`issuer_key` matches the issuer's name
against the titles of EDGAR's ``company_tickers.json`` (case, punctuation and legal
suffixes aside); a name that matches one company with one ticker (leaving preferred and
other dashed tickers aside) gives it, anything else leaves it null. That list is cached a
day (its own entry: the titles are kept here, the CIKs in :mod:`marketdata.providers.sec`).

Safety: the XML parser refuses any document with a DOCTYPE (so no entity is ever declared,
let alone expanded: the guarantee ``defusedxml`` gives, without the dependency), each text
is cut at :data:`MAX_TEXT_CHARS`, a report may list at most :data:`MAX_HOLDINGS`.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from marketdata import formatting as fmt
from marketdata import safexml
from marketdata.cache import TTLPolicy, note_incomplete
from marketdata.errors import NotFound, NotServed, UpstreamError
from marketdata.logs import get_logger
from marketdata.memo import SizedMemo
from marketdata.providers.sec import (
    ACCESSION,
    ARCHIVES_URL,
    PROVIDER,
    TICKERS_TTL,
    TICKERS_URL,
    sec_provider,
    ticker_spellings,
)
from marketdata.records.funds import (
    ASSET_CATEGORIES,
    DEFAULT_TOP,
    DERIVATIVE_TYPES,
    ISSUER_CATEGORIES,
    CategoryWeight,
    CountryWeight,
    FundHolding,
    FundIdentity,
    FundPortfolio,
    holding_order,
)

log = get_logger("marketdata.providers.sec_nport")

FUND_TICKERS_URL = "https://www.sec.gov/files/company_tickers_mf.json"
BROWSE_URL = "https://www.sec.gov/cgi-bin/browse-edgar"
FILINGS_LISTED = 10  # browse-edgar's smallest page; the newest report is the first

FUND_TICKERS_TTL = TICKERS_TTL  # a day, as the companies' list
SERIES_FILINGS_TTL = TTLPolicy("sec_nport_filings", open=21600, extended=21600,
                               closed=21600, market_aware=False)
REPORT_TTL = TTLPolicy("sec_nport_report", open=2592000, extended=2592000, closed=2592000,
                       market_aware=False)

# The largest report parsed: the biggest bond funds' reports are tens of MB.
MAX_DOCUMENT_BYTES = 128 * 1024 * 1024
MAX_HOLDINGS = 200_000
MAX_TEXT_CHARS = 500
_CHUNK = 1 << 20

SERIES_ID = re.compile(r"S\d{9}", re.ASCII)
CLASS_ID = re.compile(r"C\d{9}", re.ASCII)
_DAY = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
_FORMS = ("NPORT-P", "NPORT-P/A")
# Words of an issuer's name that do not tell companies apart (legal forms, articles).
_LEGAL_WORDS = frozenset({
    "INC", "INCORPORATED", "CORP", "CORPORATION", "CO", "COMPANY", "COS", "LTD", "LIMITED",
    "PLC", "LLC", "LP", "LLP", "NV", "SA", "AG", "SE", "AB", "ASA", "SPA", "THE", "DE",
    "NEW", "HOLDING", "HLDGS"})
_STATE_SUFFIX = re.compile(r"/[A-Z]{2,3}/?\s*$")


@dataclass(frozen=True)
class FundClass:
    """One row of ``company_tickers_mf.json``: a share class and the series and trust it
    belongs to."""

    cik: int
    series_id: str
    class_id: str


@dataclass(frozen=True)
class FilingRef:
    """One N-PORT filing of a series as EDGAR lists it."""

    accession: str
    form: str
    filed: str
    url: str | None


@dataclass(frozen=True)
class NportReport:
    """One parsed N-PORT report: the header members the answer shows, the holdings by
    weight (largest first) and the weights computed from them."""

    form: str | None
    series_id: str | None
    series_name: str | None
    registrant: str | None
    as_of: str | None
    fiscal_year_end: str | None
    net_assets: float | None
    total_assets: float | None
    holdings: tuple[FundHolding, ...]
    country_weights: tuple[CountryWeight, ...]
    asset_category_weights: tuple[CategoryWeight, ...]


# -- a safe, streaming XML reader -------------------------------------------------------------

def stream_xml(content: bytes, start: Callable[[str, dict[str, str]], None],
               end: Callable[[str], None], text: list[str], what: str) -> None:
    """Run expat over ``content`` in 1 MiB chunks: ``start(name, attributes)`` and
    ``end(name)`` for each element (names as written, with any namespace prefix), its
    character data appended to ``text`` (each ``start`` clears it, so at an element's end
    ``text`` holds a leaf's text). One Python call per event and none for text: the
    handlers are the parse's own. A DOCTYPE (and so any entity declaration) is refused, as
    is a document that is not well-formed: both a 502 naming ``what``."""
    try:
        safexml.parse(content, start, end, text.append, chunk=_CHUNK)
    except safexml.Refused:
        raise PROVIDER.bad_answer(f"sent {what} with a DOCTYPE (refused: no entities are "
                                  "expanded)") from None
    except safexml.ExpatError as exc:
        raise PROVIDER.bad_answer(f"sent {what} that is not well-formed XML "
                                  f"({safexml.error_text(exc)})") from None


def _local(name: str) -> str:
    return name.rpartition(":")[2] if ":" in name else name


def _leaf(text: list[str]) -> str:
    return "".join(text).strip()[:MAX_TEXT_CHARS]


# -- parsers ----------------------------------------------------------------------------------
def parse_fund_tickers(payload: Any) -> dict[str, FundClass]:
    """``company_tickers_mf.json`` -> {TICKER: FundClass}. The columns are found by name in
    ``fields``; rows without a ticker, a positive CIK or well-formed series and class ids are
    skipped; a ticker listed twice keeps its first row. A body without ``fields`` and
    ``data``, or without a usable row, is a 502."""
    fields = payload.get("fields") if isinstance(payload, dict) else None
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(fields, list) or not isinstance(data, list):
        raise PROVIDER.bad_answer("returned a fund ticker list without fields and data")
    try:
        cik_at, series_at, class_at, symbol_at = (fields.index(name) for name in (
            "cik", "seriesId", "classId", "symbol"))
    except ValueError:
        raise PROVIDER.bad_answer("returned a fund ticker list without its columns") from None
    width = max(cik_at, series_at, class_at, symbol_at) + 1
    table: dict[str, FundClass] = {}
    for row in data:
        if not isinstance(row, list) or len(row) < width:
            continue
        cik, series, klass, symbol = row[cik_at], row[series_at], row[class_at], row[symbol_at]
        if isinstance(cik, str) and cik.strip().isdigit():
            cik = int(cik)
        if not (isinstance(cik, int) and not isinstance(cik, bool) and cik > 0
                and isinstance(series, str) and SERIES_ID.fullmatch(series)
                and isinstance(klass, str) and CLASS_ID.fullmatch(klass)
                and isinstance(symbol, str) and symbol.strip()):
            continue
        table.setdefault(symbol.strip().upper(), FundClass(cik, series, klass))
    if not table:
        raise PROVIDER.bad_answer("returned an empty fund ticker list")
    return table


def parse_series_filings(content: bytes) -> list[FilingRef]:
    """browse-edgar's Atom feed -> the series' N-PORT-P and N-PORT-P/A filings, newest
    first (filing date, then accession number), each accession once. Entries of other
    forms or without a well-formed accession number or date are skipped; a body that is
    not an Atom feed is a 502."""
    found: dict[str, FilingRef] = {}
    root: list[str] = []
    text: list[str] = []
    entry: dict[str, str] | None = None

    def start(name: str, attributes: dict[str, str]) -> None:
        nonlocal entry
        text.clear()
        name = _local(name)
        if not root:
            root.append(name)
        if name == "entry":
            entry = {}
        elif name == "category" and entry is not None and attributes.get("term"):
            entry.setdefault("category", attributes["term"])

    def end(name: str) -> None:
        nonlocal entry
        if entry is None:
            return
        name = _local(name)
        if name in ("accession-number", "filing-date", "filing-type", "filing-href"):
            entry[name] = _leaf(text)
        elif name == "entry":
            form = (entry.get("filing-type") or entry.get("category") or "").upper()
            accession, filed = entry.get("accession-number", ""), entry.get("filing-date", "")
            if form in _FORMS and ACCESSION.fullmatch(accession) and _DAY.fullmatch(filed):
                href = entry.get("filing-href") or None
                found.setdefault(accession, FilingRef(accession, form, filed, href))
            entry = None

    stream_xml(content, start, end, text, "a filing list")
    if root != ["feed"]:
        raise PROVIDER.bad_answer("returned a filing list that is not an Atom feed")
    return sorted(found.values(), key=lambda f: (f.filed, f.accession), reverse=True)


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


# A CUSIP (``*``, ``@`` and ``#`` mark private placements' numbers), an ISIN, an LEI.
CUSIP = re.compile(r"[0-9A-Z*@#]{9}", re.ASCII)
ISIN = re.compile(r"[A-Z]{2}[0-9A-Z]{9}[0-9]", re.ASCII)
LEI = re.compile(r"[0-9A-Z]{18}[0-9]{2}", re.ASCII)


def _identifier(text: str | None, form: re.Pattern[str]) -> str | None:
    """A CUSIP, ISIN or LEI as filed; None for N/A, all zeros or another form."""
    value = (text or "").strip().upper()
    return value if form.fullmatch(value) and value.strip("0") else None


def _text(value: str | None) -> str | None:
    """A text member; None for blank or N/A."""
    text = fmt.text(value)
    return text if text and text.upper() != "N/A" else None


def _day(text: str | None) -> str | None:
    return text if text and _DAY.fullmatch(text) else None


def _code(text: str | None) -> str | None:
    value = (text or "").strip().upper()
    return value if value and value != "N/A" else None


def _holding(raw: dict[str, Any]) -> FundHolding:
    """One ``invstOrSec`` (its texts and attributes by name, as collected) -> the record."""
    asset = _code(raw.get("assetCat") or raw.get("assetConditional.assetCat"))
    asset_name = ASSET_CATEGORIES.get(asset or "")
    other = _text(raw.get("assetConditional.description"))
    if asset == "OTHER" and other:
        asset_name = f"Other: {other}"
    issuer = _code(raw.get("issuerCat") or raw.get("issuerConditional.issuerCat"))
    issuer_name = ISSUER_CATEGORIES.get(issuer or "")
    issuer_other = _text(raw.get("issuerConditional.desc"))
    if issuer == "OTHER" and issuer_other:
        issuer_name = f"Other: {issuer_other}"
    payoff = (raw.get("payoffProfile") or "").strip().lower()
    level = (raw.get("fairValLevel") or "").strip()
    restricted = (raw.get("isRestrictedSec") or "").strip().upper()
    currency = _code(raw.get("curCd") or raw.get("currencyConditional.curCd"))
    ticker = _text(raw.get("ticker"))
    return FundHolding(
        name=_text(raw.get("name")),
        title=_text(raw.get("title")),
        cusip=_identifier(raw.get("cusip"), CUSIP),
        isin=_identifier(raw.get("isin"), ISIN),
        ticker=ticker.upper() if ticker else None,
        lei=_identifier(raw.get("lei"), LEI),
        balance=_number(raw.get("balance") or ""),
        units=_code(raw.get("units")),
        currency=currency if currency and len(currency) == 3 else None,
        value=_number(raw.get("valUSD") or ""),
        weight_percent=_number(raw.get("pctVal") or ""),
        payoff_profile="long" if payoff == "long" else "short" if payoff == "short" else None,
        asset_category=asset,
        asset_category_name=asset_name,
        issuer_category=issuer,
        issuer_category_name=issuer_name,
        country=_code(raw.get("invCountry")),
        fair_value_level=int(level) if level in ("1", "2", "3") else None,
        restricted=True if restricted == "Y" else False if restricted == "N" else None,
        derivative_type=DERIVATIVE_TYPES.get(_code(raw.get("derivCat")) or ""),
        maturity_date=_day(raw.get("maturityDt")),
        coupon_rate=_number(raw.get("annualizedRt") or ""),
    )


# Texts collected per holding, by the element's parent: direct children of invstOrSec,
# and the debt section's two that the record shows.
_HOLDING_TEXTS = frozenset({
    "name", "lei", "title", "cusip", "balance", "units", "curCd", "valUSD", "pctVal",
    "payoffProfile", "assetCat", "issuerCat", "invCountry", "isRestrictedSec",
    "fairValLevel"})
_DEBT_TEXTS = frozenset({"maturityDt", "annualizedRt"})
_CONDITIONALS = {"currencyConditional": ("curCd",), "assetConditional": (
    "assetCat", "description"), "issuerConditional": ("issuerCat", "desc")}
_HEADER_TEXTS = {"genInfo": frozenset({"regName", "seriesName", "seriesId", "repPdEnd",
                                       "repPdDate"}),
                 "fundInfo": frozenset({"totAssets", "netAssets"})}


def parse_nport(content: bytes) -> NportReport:
    """An N-PORT ``primary_doc.xml`` -> :class:`NportReport`, read as it streams.

    Header: ``headerData/submissionType``, ``genInfo`` (``regName``, ``seriesName``,
    ``seriesId``, ``repPdEnd``, ``repPdDate``), ``fundInfo`` (``totAssets``, ``netAssets``).
    Each ``invstOrSecs/invstOrSec``: its direct texts, ``identifiers`` (``isin``,
    ``ticker``: their ``value``), the ``*Conditional`` forms of the currency, asset and
    issuer categories (attributes), a derivative's ``derivCat`` and a debt security's
    ``maturityDt`` and ``annualizedRt``; the same names nested deeper (a derivative's
    reference instrument has identifiers of its own) are not the holding's. ``N/A``,
    zeros and malformed identifiers are null. A document without ``edgarSubmission``, or
    with more than :data:`MAX_HOLDINGS` holdings, is a 502. The handlers do as little as
    they can per element: a bond fund's report has a million elements."""
    stack: list[str] = []
    root: list[str] = []
    text: list[str] = []
    header: dict[str, str] = {}
    holdings: list[FundHolding] = []
    current: dict[str, Any] | None = None

    def start(name: str, attributes: dict[str, str]) -> None:
        nonlocal current
        text.clear()
        if ":" in name:
            name = name.rpartition(":")[2]
        if stack:
            parent = stack[-1]
        else:
            parent = ""
            root.append(name)
        stack.append(name)
        if current is None:
            if name == "invstOrSec" and parent == "invstOrSecs":
                if len(holdings) >= MAX_HOLDINGS:
                    raise PROVIDER.bad_answer(f"sent an N-PORT report of over "
                                              f"{MAX_HOLDINGS:,} holdings")
                current = {}
            return
        if not attributes:
            return
        if parent == "invstOrSec":
            for attribute in _CONDITIONALS.get(name, ()):
                if attribute in attributes:
                    current[f"{name}.{attribute}"] = attributes[attribute]
        elif parent == "identifiers" and stack[-3] == "invstOrSec":
            if name in ("isin", "ticker") and "value" in attributes:
                current.setdefault(name, attributes["value"])
        elif parent == "derivativeInfo" and stack[-3] == "invstOrSec":
            if "derivCat" in attributes:
                current.setdefault("derivCat", attributes["derivCat"])

    def end(_name: str) -> None:
        nonlocal current
        name = stack.pop()
        if current is not None:
            parent = stack[-1]
            if parent == "invstOrSec":
                if name in _HOLDING_TEXTS:
                    current[name] = _leaf(text)
            elif name == "invstOrSec":
                holdings.append(_holding(current))
                current = None
            elif parent == "debtSec" and name in _DEBT_TEXTS and stack[-2] == "invstOrSec":
                current[name] = _leaf(text)
        elif name == "submissionType" or (stack and name in _HEADER_TEXTS.get(stack[-1], ())):
            header.setdefault(name, _leaf(text))

    stream_xml(content, start, end, text, "an N-PORT report")
    if root != ["edgarSubmission"]:
        raise PROVIDER.bad_answer("sent an N-PORT report without its edgarSubmission root")
    ordered = tuple(holding_order(holdings))
    form = fmt.text(header.get("submissionType"))
    return NportReport(
        form=form.upper() if form else None,
        series_id=header.get("seriesId") if SERIES_ID.fullmatch(header.get("seriesId", ""))
        else None,
        series_name=fmt.text(header.get("seriesName")),
        registrant=fmt.text(header.get("regName")),
        as_of=_day(header.get("repPdDate")),
        fiscal_year_end=_day(header.get("repPdEnd")),
        net_assets=_number(header.get("netAssets", "")),
        total_assets=_number(header.get("totAssets", "")),
        holdings=ordered,
        country_weights=tuple(country_weights(ordered)),
        asset_category_weights=tuple(asset_category_weights(ordered)),
    )


# -- weights ----------------------------------------------------------------------------------
def _sums(holdings: tuple[FundHolding, ...],
          key: Callable[[FundHolding], str | None]) -> list[tuple[str | None, float, float | None,
                                                                  int]]:
    """(key, weight, value, count) per key, largest weight first (ties: first seen). Weights
    and values are sums of the holdings' own; a value is None when no holding of the key
    has one."""
    totals: dict[str | None, list[Any]] = {}
    for h in holdings:
        row = totals.setdefault(key(h), [0.0, None, 0])
        row[0] += h.weight_percent or 0.0
        if h.value is not None:
            row[1] = (row[1] or 0.0) + h.value
        row[2] += 1
    ordered = sorted(totals.items(), key=lambda item: -item[1][0])
    return [(name, round(weight, 6), None if value is None else round(value, 2), count)
            for name, (weight, value, count) in ordered]


def country_weights(holdings: tuple[FundHolding, ...]) -> list[CountryWeight]:
    """The portfolio's weights by the holdings' country (percent of net assets)."""
    return [CountryWeight(country=name, weight_percent=weight, value=value, holdings=count)
            for name, weight, value, count in _sums(holdings, lambda h: h.country)]


def asset_category_weights(holdings: tuple[FundHolding, ...]) -> list[CategoryWeight]:
    """The portfolio's weights by asset category (percent of net assets); an ``OTHER``
    category is one row whatever the filers' descriptions."""
    return [CategoryWeight(code=name, name=ASSET_CATEGORIES.get(name or ""),
                           weight_percent=weight, value=value, holdings=count)
            for name, weight, value, count in _sums(holdings, lambda h: h.asset_category)]


# -- tickers ----------------------------------------------------------------------------------
def issuer_key(name: str | None) -> str | None:
    """A company's name as a match key: upper case, ``&`` as AND, punctuation as spaces,
    EDGAR's state suffix (``/DE/``) and leading or trailing legal words (Inc, Corp, Co,
    The, ...) dropped: ``Amazon.com, Inc.`` and EDGAR's ``AMAZON COM INC`` are both
    ``AMAZON COM``. None when nothing is left."""
    if not name:
        return None
    text = _STATE_SUFFIX.sub(" ", name.upper()).replace("&", " AND ")
    words = re.findall(r"[A-Z0-9]+", text)
    while words and words[-1] in _LEGAL_WORDS:
        words.pop()
    while words and words[0] == "THE":
        words.pop(0)
    return " ".join(words) or None


def parse_company_names(payload: Any) -> dict[str, str | None]:
    """``company_tickers.json`` -> {issuer key of the title: its ticker, or None where the
    key names several companies or a company with several common tickers}. A company's
    dashed tickers (preferred shares, units: ``JPM-PC``) are left aside when it has one
    without a dash; its only tickers being dashed ones (``BRK-A``, ``BRK-B``) is
    ambiguous too. A body without rows is a 502."""
    rows = list(payload.values()) if isinstance(payload, dict) else \
        payload if isinstance(payload, list) else None
    if rows is None:
        raise PROVIDER.bad_answer("returned a ticker list that is not an object")
    by_key: dict[str, dict[Any, list[str]]] = {}
    for row in rows:
        if not isinstance(row, dict):
            continue
        key, ticker, cik = issuer_key(fmt.text(row.get("title"))), row.get("ticker"), \
            row.get("cik_str")
        if key and isinstance(ticker, str) and ticker.strip():
            by_key.setdefault(key, {}).setdefault(cik, []).append(ticker.strip().upper())
    if not by_key:
        raise PROVIDER.bad_answer("returned an empty ticker list")
    out: dict[str, str | None] = {}
    for key, companies in by_key.items():
        if len(companies) != 1:
            out[key] = None
            continue
        tickers = next(iter(companies.values()))
        plain = list(dict.fromkeys(t for t in tickers if "-" not in t))
        out[key] = plain[0] if len(plain) == 1 else \
            (tickers[0] if not plain and len(set(tickers)) == 1 else None)
    return out


def with_tickers(holdings: tuple[FundHolding, ...],
                 names: dict[str, str | None]) -> list[FundHolding]:
    """The holdings, each common-equity holding without a ticker given the one its issuer's
    name resolves to (:func:`parse_company_names`), if any."""
    out = []
    for h in holdings:
        if h.ticker is None and h.asset_category == "EC":
            key = issuer_key(h.name)
            ticker = names.get(key) if key else None
            if ticker is not None:
                h = dataclasses.replace(h, ticker=ticker)
        out.append(h)
    return out


# -- typed fetches (through the cache) --------------------------------------------------------
def fund_classes() -> dict[str, FundClass]:
    """EDGAR's {TICKER: FundClass} of registered funds (cached a day)."""
    provider = sec_provider()
    return provider.cached(
        "fund_tickers", {},
        lambda: parse_fund_tickers(provider.get_json("fund_tickers", FUND_TICKERS_URL)),
        FUND_TICKERS_TTL, group="sec_nport")


def fund_class(symbol: str) -> FundClass:
    """The fund class of a validated ticker; NotServed when EDGAR lists no fund by it."""
    table = fund_classes()
    for spelling in ticker_spellings(symbol):
        if spelling in table:
            return table[spelling]
    raise NotServed(f"EDGAR lists no registered fund with the ticker '{symbol}'")


def series_filings(series_id: str) -> list[FilingRef]:
    """The series' N-PORT-P filings, newest first (cached 6 hours); [] when EDGAR has
    none (its 404 included)."""
    provider = sec_provider()
    params = {"action": "getcompany", "CIK": series_id, "type": "NPORT-P", "dateb": "",
              "owner": "include", "count": FILINGS_LISTED, "output": "atom"}

    def fetch() -> list[FilingRef]:
        try:
            response = provider.get("series_filings", BROWSE_URL, params,
                                    not_found="no filings")
        except NotFound:
            return []
        return parse_series_filings(response.content)

    return provider.cached("series_filings", {"series": series_id}, fetch,
                           SERIES_FILINGS_TTL, group="sec_nport")


_reports: SizedMemo[str, NportReport] = SizedMemo(
    lambda: int(getattr(settings, "SEC_NPORT_MEMORY_BYTES", 0)))


def report_url(cik: int, accession: str) -> str:
    return f"{ARCHIVES_URL}/{cik}/{accession.replace('-', '')}/primary_doc.xml"


def _download(cik: int, accession: str) -> bytes:
    response = sec_provider().get("nport_report", report_url(cik, accession))
    if len(response.content) > MAX_DOCUMENT_BYTES:
        raise PROVIDER.bad_answer(f"sent an N-PORT report over {MAX_DOCUMENT_BYTES:,} bytes "
                                  "(not parsed)")
    return response.content


def nport_report(cik: int, accession: str) -> NportReport:
    """One filing's parsed report: from this process's memory, else the shared cache (30
    days), else EDGAR. A missing document (404) is a 502: EDGAR listed the filing."""
    found = _reports.get(accession)
    if found is not None:
        return found
    report = sec_provider().cached(
        "nport_report", {"accession": accession},
        lambda: parse_nport(_download(cik, accession)), REPORT_TTL, group="sec_nport")
    _reports.put(accession, report)
    return report


def latest_report(fund: FundClass, symbol: str) -> tuple[FilingRef, NportReport]:
    """The series' latest report and its filing (see the module doc: an amendment competes
    with the newest original by report date). NotServed when EDGAR lists no N-PORT-P of
    the series; a report of another series is a 502."""
    filings = series_filings(fund.series_id)
    if not filings:
        raise NotServed(f"EDGAR lists no N-PORT-P filing of series {fund.series_id} "
                        f"('{symbol}')")
    candidates = [filings[0]]
    if filings[0].form.endswith("/A"):
        original = next((f for f in filings if not f.form.endswith("/A")), None)
        if original is not None:
            candidates.append(original)
    read = [(filing, nport_report(fund.cik, filing.accession)) for filing in candidates]
    for filing, report in read:
        if report.series_id is not None and report.series_id != fund.series_id:
            raise PROVIDER.bad_answer(
                f"listed filing {filing.accession} for series {fund.series_id}, but it "
                f"reports series {report.series_id}")
    return max(read, key=lambda pair: (pair[1].as_of or "", pair[0].filed))


def company_names() -> dict[str, str | None]:
    """{issuer key: ticker} from EDGAR's company list (cached a day)."""
    provider = sec_provider()
    return provider.cached(
        "company_names", {},
        lambda: parse_company_names(provider.get_json("company_tickers", TICKERS_URL)),
        TICKERS_TTL, group="sec_nport")


def filing_page(cik: int, filing: FilingRef) -> str:
    """The filing's index page: EDGAR's link when it is one of its own, else built."""
    if filing.url and filing.url.startswith(f"{ARCHIVES_URL}/"):
        return filing.url
    return f"{ARCHIVES_URL}/{cik}/{filing.accession.replace('-', '')}/" \
           f"{filing.accession}-index.htm"


def fund_holdings(symbol: str) -> FundPortfolio:
    """The ``fund_holdings`` fetcher: a validated ticker's portfolio from its series'
    latest N-PORT-P report, holdings by weight (largest first), the top
    :data:`~marketdata.records.funds.DEFAULT_TOP`. NotServed when EDGAR has no N-PORT for
    the ticker (not a registered fund's, or no report filed yet)."""
    fund = fund_class(symbol)
    filing, report = latest_report(fund, symbol)
    notices: list[str] = []
    try:
        holdings = with_tickers(report.holdings, company_names())
    except UpstreamError as exc:
        note_incomplete()
        log.info("fund tickers not resolved", symbol=symbol, error=exc.detail)
        holdings = list(report.holdings)
        notices.append("Tickers are the filing's own only: EDGAR's company list could "
                             f"not be read ({exc.detail})")
    notices.append("Weights are the filing's pctVal: percent of net assets as of "
                         f"{report.as_of or 'the report date'}; N-PORT reports no sectors")
    return FundPortfolio(
        symbol=symbol, source="sec",
        fund=FundIdentity(name=report.series_name, registrant=report.registrant,
                          cik=fund.cik, series_id=fund.series_id, class_id=fund.class_id),
        form=report.form if report.form in _FORMS else filing.form,
        as_of=report.as_of, fiscal_year_end=report.fiscal_year_end, filed_at=filing.filed,
        accession_number=filing.accession, filing_url=filing_page(fund.cik, filing),
        net_assets=report.net_assets, total_assets=report.total_assets,
        holdings_count=len(holdings), top=holdings[:DEFAULT_TOP],
        country_weights=list(report.country_weights),
        asset_category_weights=list(report.asset_category_weights),
        sector_weights=None, notices=notices, holdings=holdings)
