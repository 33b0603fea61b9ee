"""Funds' N-PORT-P reports: ``company_tickers_mf.json``, a series' filing list (browse-edgar's
Atom) and each report's ``primary_doc.xml``, for the sandbox's ETFs and index mutual funds.

Why these funds and holdings: the sandbox's famous ETFs and mutual funds (``instruments.py``)
hold the sandbox's own companies, so a holding's name, CUSIP and ticker agree with
``company_tickers.json``, ``/v2/filings`` and the fails-to-deliver files:

- SPY (SPDR S&P 500 ETF Trust): the S&P 500 members by market value, a money market fund;
  issuers written as EDGAR writes companies (``APPLE INC``);
- VOO and VFIAX (Vanguard 500 Index Fund), VTI and VTSAX (Vanguard Total Stock Market Index
  Fund), FXAIX (Fidelity 500 Index Fund): the same members, E-mini S&P 500 futures (a
  derivative: contracts, its unrealized gain as value), cash;
- QQQ: the Nasdaq-100 members by market value; XLK: the S&P 500's technology members;
  IWM: the 300 smallest S&P 500 members (the sandbox lists no small caps);
- DIA: the Dow's 30 by price (price-weighted), with tickers and no ISINs in the filing;
- ARKK: 30 Nasdaq-100 names and Alibaba (CN), a euro-denominated listing, a restricted
  preferred at fair-value level 3, a grantor trust (asset category OTHER); every report
  restated by an N-PORT-P/A 12 days later (the preferred revalued);
- TLT: 40 Treasury bonds maturing in 20-30 years (principal amounts, coupons, maturities);
- SCHD: a registered series without any report (the service falls back to Yahoo).

GLD (a grantor trust) is not a registered fund and is not listed, as on EDGAR. Each series
reports every calendar quarter's end since 2019, filed 55-59 days later (sha256 of the
series and quarter); a filing exists once the sandbox clock reaches its filing day. Prices
are each instrument's trend level at the report date (its anchor price grown at its drift:
building the simulated series of 500 holdings would cost seconds), the fund's net assets
its size on the anchor day grown the same way; balances are whole shares, values balance
times price, weights value over net assets. CUSIPs are ``fails.cusip`` (real for a few);
ISINs, LEIs and class ids are made from sha256 with valid check digits. Every answer is a
pure function of the request and the clock.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, timedelta
from functools import lru_cache
from xml.sax.saxutils import escape, quoteattr

from marketdata.sandbox.index_members import dow30, nasdaq100, sp500
from marketdata.sandbox.instruments import (
    ANCHOR_DAY,
    USD_PER,
    Instrument,
    known_instrument,
    stable_hash,
    unit,
)
from marketdata.sandbox.sec.fails import cusip as security_cusip

FIRST_QUARTER_END = date(2019, 3, 31)
FILING_AGENT = 1752724  # the accession numbers' prefix: the filing agent's CIK
AMENDMENT_LAG_DAYS = 12
FORM_NAME = "Monthly Portfolio Investments Report on Form N-PORT (Public)"


@dataclass(frozen=True)
class Series:
    """One fund series: its trust, its share classes (ticker, class id) and portfolio."""

    index: int
    series_id: str
    cik: int
    trust: str
    name: str
    tickers: tuple[str, ...]
    portfolio: str  # sp500, nasdaq100, dow30, smallcap, tech, growth, treasury, none
    net_assets: float  # on the anchor day, USD
    fiscal_year_end: int  # month
    cash_fund: str
    futures: bool = False
    uppercase_names: bool = False  # the filer writes issuers as EDGAR does (APPLE INC)
    amended: bool = False
    file_number: str = ""

    @property
    def ticker(self) -> str:
        return self.tickers[0]

    def class_id(self, ticker: str) -> str:
        return f"C{100_000_000 + stable_hash('sandbox-class', ticker) % 900_000_000:09d}"


SERIES: tuple[Series, ...] = (
    Series(0, "S000004310", 884394, "SPDR S&P 500 ETF TRUST", "SPDR S&P 500 ETF TRUST",
           ("SPY",), "sp500", 600e9, 9,
           "State Street Institutional U.S. Government Money Market Fund",
           uppercase_names=True, file_number="811-06125"),
    Series(1, "S000002839", 36405, "VANGUARD INDEX FUNDS", "Vanguard 500 Index Fund",
           ("VOO", "VFIAX"), "sp500", 1300e9, 12, "Vanguard Market Liquidity Fund",
           futures=True, file_number="811-02652"),
    Series(2, "S000002848", 36405, "VANGUARD INDEX FUNDS",
           "Vanguard Total Stock Market Index Fund", ("VTI", "VTSAX"), "sp500", 1800e9, 12,
           "Vanguard Market Liquidity Fund", futures=True, file_number="811-02652"),
    Series(3, "S000006027", 819118, "Fidelity Concord Street Trust", "Fidelity 500 Index Fund",
           ("FXAIX",), "sp500", 600e9, 2, "Fidelity Cash Central Fund", futures=True,
           file_number="811-05251"),
    Series(4, "S000006218", 1067839, "INVESCO QQQ TRUST, SERIES 1",
           "INVESCO QQQ TRUST, SERIES 1", ("QQQ",), "nasdaq100", 320e9, 9,
           "Invesco Premier U.S. Government Money Portfolio", file_number="811-08947"),
    Series(5, "S000006335", 1041130, "SPDR DOW JONES INDUSTRIAL AVERAGE ETF TRUST",
           "SPDR DOW JONES INDUSTRIAL AVERAGE ETF TRUST", ("DIA",), "dow30", 35e9, 10,
           "State Street Institutional U.S. Government Money Market Fund",
           uppercase_names=True, file_number="811-08585"),
    Series(6, "S000004344", 1100663, "iShares Trust", "iShares Russell 2000 ETF", ("IWM",),
           "smallcap", 65e9, 3, "BlackRock Cash Funds: Treasury", file_number="811-09729"),
    Series(7, "S000004347", 1100663, "iShares Trust", "iShares 20+ Year Treasury Bond ETF",
           ("TLT",), "treasury", 55e9, 2, "BlackRock Cash Funds: Treasury",
           file_number="811-09729"),
    Series(8, "S000006408", 1064641, "SELECT SECTOR SPDR TRUST",
           "The Technology Select Sector SPDR Fund", ("XLK",), "tech", 70e9, 9,
           "State Street Institutional U.S. Government Money Market Fund",
           uppercase_names=True, file_number="811-08837"),
    Series(9, "S000042977", 1579982, "ARK ETF Trust", "ARK Innovation ETF", ("ARKK",),
           "growth", 6e9, 7, "Goldman Sachs Financial Square Government Fund", amended=True,
           file_number="811-22883"),
    Series(10, "S000033655", 1454889, "Schwab Strategic Trust",
           "Schwab U.S. Dividend Equity ETF", ("SCHD",), "none", 60e9, 8, "",
           file_number="811-22311"),
)
_BY_TICKER = {ticker: s for s in SERIES for ticker in s.tickers}
_BY_ID = {s.series_id: s for s in SERIES}


def fund_tickers() -> dict[str, object]:
    """``company_tickers_mf.json``: one row per share class, in the series' order."""
    return {"fields": ["cik", "seriesId", "classId", "symbol"],
            "data": [[s.cik, s.series_id, s.class_id(ticker), ticker]
                     for s in SERIES for ticker in s.tickers]}


def is_fund_cik(cik: int) -> bool:
    return any(s.cik == cik for s in SERIES)


# -- filings ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Report:
    """One filing: a series' report of a quarter's end, original or amendment."""

    series: Series
    period: date
    filed: date
    amendment: bool

    @property
    def form(self) -> str:
        return "NPORT-P/A" if self.amendment else "NPORT-P"

    @property
    def accession(self) -> str:
        sequence = 100_000 + self.series.index * 2_000 + _quarter_index(self.period) * 2 \
            + self.amendment
        return f"{FILING_AGENT:010d}-{self.filed.year % 100:02d}-{sequence:06d}"

    @property
    def folder(self) -> str:
        return self.accession.replace("-", "")

    @property
    def index_url(self) -> str:
        return (f"https://www.sec.gov/Archives/edgar/data/{self.series.cik}/{self.folder}/"
                f"{self.accession}-index.htm")


def _quarter_index(period: date) -> int:
    return (period.year - FIRST_QUARTER_END.year) * 4 + (period.month - 1) // 3


def _quarter_ends(until: date) -> list[date]:
    out: list[date] = []
    year, quarter = FIRST_QUARTER_END.year, 1
    while True:
        month = 3 * quarter
        end = date(year + (month // 12), month % 12 + 1, 1) - timedelta(days=1)
        if end > until:
            return out
        out.append(end)
        year, quarter = (year + 1, 1) if quarter == 4 else (year, quarter + 1)


def reports(series: Series, today: date) -> list[Report]:
    """The series' filings up to ``today``, newest first."""
    if series.portfolio == "none":
        return []
    out = []
    for period in _quarter_ends(today):
        filed = period + timedelta(days=55 + stable_hash("nport-filed", series.series_id,
                                                         period) % 5)
        out.append(Report(series, period, filed, False))
        if series.amended:
            out.append(Report(series, period, filed + timedelta(days=AMENDMENT_LAG_DAYS), True))
    return sorted((r for r in out if r.filed <= today),
                  key=lambda r: (r.filed, r.accession), reverse=True)


def find_report(cik: int, folder: str, today: date) -> Report | None:
    for series in SERIES:
        if series.cik != cik:
            continue
        for report in reports(series, today):
            if report.folder == folder:
                return report
    return None


def filing_list(series_id: str, form_type: str, count: int, today: date) -> str | None:
    """browse-edgar's Atom feed of a series' filings whose form starts with ``form_type``
    (newest first, at most ``count``); None for a series EDGAR does not know."""
    series = _BY_ID.get(series_id.upper())
    if series is None:
        return None
    found = [r for r in reports(series, today) if r.form.startswith(form_type.upper())]
    entries = "".join(_entry(r) for r in found[:count])
    query = (f"https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&amp;CIK="
             f"{series.series_id}&amp;type={escape(form_type)}&amp;dateb=&amp;owner=include"
             f"&amp;count={count}")
    updated = f"{found[0].filed.isoformat()}T17:00:00-04:00" if found else ""
    return ('<?xml version="1.0" encoding="ISO-8859-1" ?>\n'
            '<feed xmlns="http://www.w3.org/2005/Atom">\n'
            "<author>\n<email>webmaster@sec.gov</email>\n<name>Webmaster</name>\n</author>\n"
            "<company-info>\n<addresses>\n<address type=\"business\">\n"
            "<city>NEW YORK</city>\n<state>NY</state>\n</address>\n</addresses>\n"
            f"<cik>{series.cik:010d}</cik>\n"
            f"<conformed-name>{escape(series.trust.upper())}</conformed-name>\n"
            "<fiscal-year-end>1231</fiscal-year-end>\n<state-location>NY</state-location>\n"
            "</company-info>\n"
            f"{entries}<id>{query}</id>\n"
            f"<link href=\"{query}\" rel=\"alternate\" type=\"text/html\"/>\n"
            f"<title>{escape(series.trust.upper())}  ({series.cik:010d})</title>\n"
            f"<updated>{updated}</updated>\n</feed>\n")


def _entry(r: Report) -> str:
    return (f"<entry>\n<category label=\"form type\" scheme=\"https://www.sec.gov/\" "
            f"term=\"{r.form}\"/>\n<content type=\"text/xml\">\n"
            f"<accession-number>{r.accession}</accession-number>\n<act>40</act>\n"
            f"<file-number>{r.series.file_number}</file-number>\n"
            f"<filing-date>{r.filed.isoformat()}</filing-date>\n"
            f"<filing-href>{r.index_url}</filing-href>\n"
            f"<filing-type>{r.form}</filing-type>\n<form-name>{FORM_NAME}</form-name>\n"
            "<size>2 MB</size>\n</content>\n"
            f"<id>urn:tag:sec.gov,2008:accession-number={r.accession}</id>\n"
            f"<link href=\"{r.index_url}\" rel=\"alternate\" type=\"text/html\"/>\n"
            f"<summary type=\"html\"> &lt;b&gt;Filed:&lt;/b&gt; {r.filed.isoformat()} "
            f"&lt;b&gt;AccNo:&lt;/b&gt; {r.accession} &lt;b&gt;Size:&lt;/b&gt; 2 MB</summary>\n"
            f"<title>{r.form}  - {FORM_NAME}</title>\n"
            f"<updated>{r.filed.isoformat()}T16:05:12-04:00</updated>\n</entry>\n")


def index_page(r: Report) -> str:
    """The filing's index page (its document table: the XML report and its rendering)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><title>EDGAR Filing Index</title></head>"
            f"<body><div id=\"formName\"><strong>Form {r.form}</strong> - {FORM_NAME}</div>"
            f"<div class=\"formGrouping\"><div class=\"infoHead\">Filing Date</div>"
            f"<div class=\"info\">{r.filed.isoformat()}</div></div>"
            "<table class=\"tableFile\" summary=\"Document Format Files\">"
            "<tr><th>Seq</th><th>Description</th><th>Document</th><th>Type</th>"
            "<th>Size</th></tr>"
            f"<tr><td>1</td><td></td><td><a href=\"/Archives/edgar/data/{r.series.cik}/"
            f"{r.folder}/primary_doc.xml\">primary_doc.xml</a></td><td>{r.form}</td>"
            "<td>2000000</td></tr></table></body></html>\n")


# -- the report -------------------------------------------------------------------------------
def _years(day: date) -> float:
    return (day - ANCHOR_DAY).days / 365.25


def trend_price(inst: Instrument, day: date) -> float:
    """The instrument's trend level on ``day``: its anchor price grown at its drift."""
    return inst.anchor_price * math.exp(inst.growth * _years(day))


def _check_digits_mod97(text: str) -> str:
    number = int("".join(str(int(c, 36)) for c in text + "00"))
    return f"{98 - number % 97:02d}"


def lei(*parts: object) -> str:
    """An ISO 17442 LEI (18 characters and two MOD 97-10 check digits)."""
    alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    h = stable_hash("sandbox-lei", *parts)
    base = "5493" + "".join(alphabet[(h >> (5 * k)) % 36] for k in range(12)) + "00"
    return base + _check_digits_mod97(base)


def isin(country: str, cusip: str) -> str:
    """The ISIN of a national number (a US CUSIP), with its Luhn check digit."""
    digits = "".join(str(int(c, 36)) for c in country + cusip)
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = int(char) * (2 if position % 2 == 0 else 1)
        total += value // 10 + value % 10
    return f"{country}{cusip}{(10 - total % 10) % 10}"


CME_LEI = lei("exchange", "CME")
TREASURY_LEI = lei("issuer", "UST")


@dataclass(frozen=True)
class Line:
    """One holding as written: its elements' texts and where the XML differs by kind."""

    name: str
    title: str
    lei: str
    cusip: str
    identifiers: str
    balance: float
    units: str
    currency: str
    value: float
    asset: str
    issuer: str
    country: str
    restricted: bool
    level: str
    payoff: str = "Long"
    extra: str = ""
    exchange_rate: float | None = None
    asset_other: str = ""


def _members(series: Series) -> list[tuple[str, float]]:
    """(symbol, raw weight) of the equity sleeve."""
    def cap(symbol: str) -> float:
        inst = known_instrument(symbol)
        return inst.anchor_price * max(inst.shares_outstanding, 1)

    kind = series.portfolio
    if kind == "sp500":
        return [(s, cap(s)) for s in sp500()]
    if kind == "nasdaq100":
        return [(s, cap(s)) for s in nasdaq100()]
    if kind == "dow30":
        return [(s, known_instrument(s).anchor_price) for s in dow30()]
    if kind == "smallcap":
        return sorted(((s, cap(s)) for s in sp500()), key=lambda p: p[1])[:300]
    if kind == "tech":
        return [(s, cap(s)) for s in sp500() if known_instrument(s).sector == "Technology"]
    if kind == "growth":
        chosen = sorted(nasdaq100(), key=lambda s: stable_hash("ark", s))[:30]
        return [(s, 0.5 + unit("ark-weight", s)) for s in [*chosen, "BABA"]]
    return []


def _equity(series: Series, symbol: str, weight: float, net: float, day: date) -> Line:
    inst = known_instrument(symbol)
    name = inst.long_name or inst.short_name
    if series.uppercase_names:  # EDGAR's spelling: AMAZON COM INC
        name = " ".join(name.upper().replace(",", " ").replace(".", " ").split())
    price = trend_price(inst, day)
    shares = max(1, round(net * weight / price))
    number = security_cusip(symbol)
    foreign = symbol == "BABA"
    if series.portfolio == "dow30":
        identifiers = f"<ticker value={quoteattr(symbol)}/>"
    else:
        identifiers = f"<isin value=\"{isin('US', number)}\"/>"
    return Line(name, f"{name} common stock" if not series.uppercase_names else name,
                lei("company", symbol), number, identifiers, float(shares), "NS", "USD",
                round(shares * price, 2), "EC", "CORP", "CN" if foreign else "US", False, "1")


def _cash(series: Series, amount: float) -> Line:
    number = f"{stable_hash('cash-cusip', series.cash_fund) % 1_000_000_000:09d}"
    return Line(series.cash_fund, series.cash_fund, "N/A", number,
                f"<other otherDesc=\"Internal identifier\" value=\"{number[:6]}\"/>",
                round(amount, 2), "NS", "USD", round(amount, 2), "STIV", "RF", "US", False,
                "1")


def _future(series: Series, net: float, day: date) -> Line:
    es = known_instrument("ES=F")
    level = trend_price(es, day)
    contracts = round(net * 0.004 / (50 * level))
    gain = round(contracts * 50 * level * (unit("es-gain", series.series_id, day) - 0.5) * 0.02,
                 2)
    expiry = day + timedelta(days=80)
    title = f"S&P 500 E-Mini Index Future {expiry:%b %Y}"
    deriv = (f"<derivativeInfo><futrDeriv derivCat=\"FUT\"><counterparties>"
             f"<counterpartyName>Chicago Mercantile Exchange</counterpartyName>"
             f"<counterpartyLei>{CME_LEI}</counterpartyLei></counterparties>"
             f"<payOffProf>Long</payOffProf><descRefInstrmnt><indexBasketInfo>"
             f"<indexName>S&amp;P 500 Index</indexName><indexIdentifier>SPX</indexIdentifier>"
             f"</indexBasketInfo></descRefInstrmnt><expDate>{expiry.isoformat()}</expDate>"
             f"<notionalAmt>{contracts * 50 * level:.2f}</notionalAmt><curCd>USD</curCd>"
             f"<unrealizedAppr>{gain:.2f}</unrealizedAppr></futrDeriv></derivativeInfo>")
    return Line("Chicago Mercantile Exchange", title, CME_LEI, "000000000",
                f"<other otherDesc=\"Exchange symbol\" value=\"ES{expiry:%m%y}\"/>",
                float(contracts), "NC", "USD", gain, "DE", "CORP", "US", False, "1",
                payoff="N/A", extra=deriv)


def _treasuries(series: Series, net: float, day: date) -> list[Line]:
    out = []
    maturities = [date(day.year + 20 + k // 4, (2, 5, 8, 11)[k % 4], 15) for k in range(40)]
    weights = [0.6 + 0.8 * unit("ust-w", maturity) for maturity in maturities]
    for maturity, weight in zip(maturities, weights, strict=True):
        coupon = round(1.125 + 0.125 * (stable_hash("ust-coupon", maturity) % 30), 3)
        price = 100 * (1 + (coupon - 4.3) * 0.12) * (0.97 + 0.06 * unit("ust-px", maturity, day))
        principal = round(net * 0.99 * weight / sum(weights) * 100 / price, -3)
        number = f"912810{stable_hash('ust', maturity) % 1000:03d}"
        number = f"{number[:8]}{stable_hash('ust-check', number) % 10}"
        title = f"U.S. Treasury Bond {coupon:.3f}% {maturity:%m/%d/%Y}"
        debt = (f"<debtSec><maturityDt>{maturity.isoformat()}</maturityDt>"
                f"<couponKind>Fixed</couponKind><annualizedRt>{coupon:.4f}</annualizedRt>"
                "<isDefault>N</isDefault><areIntrstPmntsInArrs>N</areIntrstPmntsInArrs>"
                "<isPaidKind>N</isPaidKind></debtSec>")
        out.append(Line("United States Treasury", title, TREASURY_LEI, number,
                        f"<isin value=\"{isin('US', number)}\"/>", principal, "PA", "USD",
                        round(principal * price / 100, 2), "DBT", "UST", "US", False, "2",
                        extra=debt))
    return out


def _growth_extras(series: Series, net: float, day: date, amended: bool) -> list[Line]:
    """ARKK's other lines: a euro listing, a restricted preferred, a grantor trust."""
    sap = known_instrument("SAP.DE")
    eur_price = trend_price(sap, day)
    shares = round(net * 0.012 / (eur_price * USD_PER["EUR"]))
    national = f"{stable_hash('sap-nsin', 'SAP') % 1_000_000_000:09d}"
    private_value = round(net * (0.004 if not amended else 0.0035), 2)
    trust_price = 30.0 * math.exp(0.2 * _years(day))
    trust_shares = round(net * 0.02 / trust_price)
    return [
        Line(sap.long_name or "Sap", f"{sap.long_name} ordinary shares", lei("company", "SAP"),
             "N/A", f"<isin value=\"{isin('DE', national)}\"/>", float(shares), "NS", "EUR",
             round(shares * eur_price * USD_PER["EUR"], 2), "EC", "CORP", "DE", False, "1",
             exchange_rate=round(1 / USD_PER["EUR"], 6)),
        Line("Sandbox Robotics, Inc.", "Sandbox Robotics, Inc. Series C Preferred", "N/A",
             "N/A", "<other otherDesc=\"Private placement\" value=\"SBXROBC\"/>",
             float(round(private_value / 12.5)), "NS", "USD", private_value, "EP", "CORP",
             "US", True, "3"),
        Line("Sandbox Digital Asset Trust", "Sandbox Digital Asset Trust shares",
             lei("trust", "digital"), "N/A",
             "<other otherDesc=\"Exchange symbol\" value=\"SBDT\"/>", float(trust_shares),
             "NS", "USD", round(trust_shares * trust_price, 2), "OTHER", "CORP", "US", False,
             "1", asset_other="Grantor trust shares"),
    ]


def net_assets(series: Series, day: date) -> float:
    return round(series.net_assets * trend_price(known_instrument(series.ticker), day)
                 / known_instrument(series.ticker).anchor_price, 2)


def holdings(series: Series, day: date, amended: bool = False) -> list[Line]:
    """The report's lines, in the filer's order (by ticker; bonds by maturity)."""
    net = net_assets(series, day)
    if series.portfolio == "treasury":
        lines = _treasuries(series, net, day)
    else:
        members = _members(series)
        total = sum(w for _, w in members)
        sleeve = 0.95 if series.portfolio == "growth" else 0.995
        lines = [_equity(series, s, sleeve * w / total, net, day)
                 for s, w in sorted(members)]
        if series.portfolio == "growth":
            lines += _growth_extras(series, net, day, amended)
    if series.futures:
        lines.append(_future(series, net, day))
    invested = sum(line.value for line in lines if line.asset != "DE")
    lines.append(_cash(series, max(net * 0.001, net - invested)))
    return lines


def _holding_xml(line: Line, net: float) -> str:
    currency = (f"<currencyConditional curCd=\"{line.currency}\" "
                f"exchangeRt=\"{line.exchange_rate}\"/>" if line.exchange_rate is not None
                else f"<curCd>{line.currency}</curCd>")
    asset = (f"<assetConditional assetCat=\"OTHER\" description={quoteattr(line.asset_other)}/>"
             if line.asset_other else f"<assetCat>{line.asset}</assetCat>")
    return (f"<invstOrSec><name>{escape(line.name)}</name><lei>{line.lei}</lei>"
            f"<title>{escape(line.title)}</title><cusip>{line.cusip}</cusip>"
            f"<identifiers>{line.identifiers}</identifiers>"
            f"<balance>{line.balance:.6f}</balance><units>{line.units}</units>{currency}"
            f"<valUSD>{line.value:.2f}</valUSD><pctVal>{100 * line.value / net:.12f}</pctVal>"
            f"<payoffProfile>{line.payoff}</payoffProfile>{asset}"
            f"<issuerCat>{line.issuer}</issuerCat><invCountry>{line.country}</invCountry>"
            f"<isRestrictedSec>{'Y' if line.restricted else 'N'}</isRestrictedSec>"
            f"<fairValLevel>{line.level}</fairValLevel>{line.extra}"
            "<securityLending><isCashCollateral>N</isCashCollateral>"
            "<isNonCashCollateral>N</isNonCashCollateral><isLoanByFund>N</isLoanByFund>"
            "</securityLending></invstOrSec>\n")


def fiscal_year_end(series: Series, day: date) -> date:
    """The last day of the fund's fiscal year that ``day`` falls in."""
    year = day.year if day.month <= series.fiscal_year_end else day.year + 1
    month = series.fiscal_year_end
    return date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)


@lru_cache(maxsize=16)
def document(series_id: str, period: date, amended: bool) -> bytes:
    """A report's ``primary_doc.xml``, as an N-PORT filer's software writes it."""
    series = _BY_ID[series_id]
    net = net_assets(series, period)
    lines = holdings(series, period, amended)
    liabilities = round(net * 0.002, 2)
    classes = "".join(f"<classId>{series.class_id(t)}</classId>" for t in series.tickers)
    body = "".join(_holding_xml(line, net) for line in lines)
    text = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<edgarSubmission xmlns="http://www.sec.gov/edgar/nport" '
        'xmlns:com="http://www.sec.gov/edgar/common" '
        'xmlns:ncom="http://www.sec.gov/edgar/nportcommon" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n'
        f"<headerData><submissionType>{'NPORT-P/A' if amended else 'NPORT-P'}</submissionType>"
        "<isConfidential>false</isConfidential><filerInfo><filer><issuerCredentials>"
        f"<cik>{series.cik:010d}</cik><ccc>XXXXXXXX</ccc></issuerCredentials></filer>"
        f"<seriesClassInfo><seriesId>{series.series_id}</seriesId>{classes}"
        "</seriesClassInfo></filerInfo></headerData>\n<formData>\n"
        f"<genInfo><regName>{escape(series.trust)}</regName>"
        f"<regFileNumber>{series.file_number}</regFileNumber>"
        f"<regCik>{series.cik:010d}</regCik><regLei>{lei('trust', series.cik)}</regLei>"
        "<regStreet1>1 Sandbox Plaza</regStreet1><regCity>New York</regCity>"
        "<regStateConditional regCountry=\"US\" regState=\"US-NY\"/>"
        "<regZipOrPostalCode>10001</regZipOrPostalCode><regPhone>212-555-0100</regPhone>"
        f"<seriesName>{escape(series.name)}</seriesName>"
        f"<seriesId>{series.series_id}</seriesId>"
        f"<seriesLei>{lei('series', series.series_id)}</seriesLei>"
        f"<repPdEnd>{fiscal_year_end(series, period).isoformat()}</repPdEnd>"
        f"<repPdDate>{period.isoformat()}</repPdDate><isFinalFiling>N</isFinalFiling>"
        "</genInfo>\n"
        f"<fundInfo><totAssets>{net + liabilities:.2f}</totAssets>"
        f"<totLiabs>{liabilities:.2f}</totLiabs><netAssets>{net:.2f}</netAssets>"
        "<assetsAttrMiscSec>0.00</assetsAttrMiscSec><assetsInvested>0.00</assetsInvested>"
        "<isNonCashCollateral>N</isNonCashCollateral></fundInfo>\n"
        f"<invstOrSecs>\n{body}</invstOrSecs>\n"
        "<signature><dateSigned>"
        f"{(period + timedelta(days=50)).isoformat()}</dateSigned>"
        f"<nameOfApplicant>{escape(series.trust)}</nameOfApplicant>"
        "<signature>Sandbox Treasurer</signature><title>Treasurer</title></signature>\n"
        "</formData>\n</edgarSubmission>\n")
    return text.encode()
