"""Macro and positioning data: economic series (FRED), the Treasury's par yield curve and the
CFTC's weekly Commitments of Traders, with the vocabularies the endpoints validate and
document them with (series ids, yield members, COT reports, members and futures roots).

Each capability has one publisher (FRED, the Treasury, the CFTC), so its vocabulary is the
publisher's: the reports and contract market codes are the CFTC's own names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields

from marketdata.errors import NotFound
from marketdata.records.members import member, member_names

_DATE = {"format": "date"}  # a member's schema beyond its str annotation: YYYY-MM-DD

# -- macro series (FRED) -------------------------------------------------------------------
# FRED ids are letters, digits and underscores (DGS10, CPIAUCSL, 00XALCATM086NEST,
# BAMLH0A0HYM2); the longest seen are about 30 characters, 40 leaves room.
MAX_SERIES_ID_LENGTH = 40
_SERIES_ID = re.compile(rf"[A-Za-z0-9_]{{1,{MAX_SERIES_ID_LENGTH}}}", re.ASCII)


def normalize_series_id(text: str) -> str | None:
    """The canonical (upper-case, trimmed) series id, or None when it cannot be one.

    Checked as ASCII before the case change, so no non-ASCII letter turns into an id."""
    candidate = text.strip()
    if not _SERIES_ID.fullmatch(candidate):
        return None
    return candidate.upper()


@dataclass(frozen=True)
class Observation:
    """One dated value; ``value`` is None where the series has no number that day."""

    date: str = member("Observation date (YYYY-MM-DD)", schema=_DATE)
    value: float | None = member("The value in the series' units; null where FRED has none "
                                 "(`.` or blank)")


@dataclass(frozen=True)
class MacroSeries:
    """A series' observations, oldest first, under its canonical id."""

    id: str = member("The FRED series id, upper-cased")
    observations: list[Observation] = member()


# -- Treasury par yield curve ---------------------------------------------------------------
FIRST_YEAR = 1990  # the first year of the par yield curve

_PAR_YIELD = "Par yield, percent; null where Treasury has no value for this maturity that day"


@dataclass(frozen=True)
class YieldCurveRow:
    """The par yield curve of one business day, the spec's ``{date, y1M, ..., y30}``: a par
    yield in percent per maturity (the field's name says which: ``y6m`` 6 months, ``y10``
    10 years), None where the Treasury has no value that day."""

    date: str = member("Business day (YYYY-MM-DD)", schema=_DATE)
    y1m: float | None = member(_PAR_YIELD, name="y1M", default=None)
    y2m: float | None = member(_PAR_YIELD, name="y2M", default=None)
    y3m: float | None = member(_PAR_YIELD, name="y3M", default=None)
    y4m: float | None = member(_PAR_YIELD, name="y4M", default=None)
    y6m: float | None = member(_PAR_YIELD, name="y6M", default=None)
    y1: float | None = member(_PAR_YIELD, default=None)
    y2: float | None = member(_PAR_YIELD, default=None)
    y3: float | None = member(_PAR_YIELD, default=None)
    y5: float | None = member(_PAR_YIELD, default=None)
    y7: float | None = member(_PAR_YIELD, default=None)
    y10: float | None = member(_PAR_YIELD, default=None)
    y20: float | None = member(_PAR_YIELD, default=None)
    y30: float | None = member(_PAR_YIELD, default=None)


def _maturity(name: str) -> tuple[int, str]:
    """A yield field's maturity (number, unit), off its name: ``y6m`` -> (6, "mo")."""
    months = name.endswith("m")
    return int(name[1:-1] if months else name[1:]), "mo" if months else "yr"


# The field of a row each maturity feeds (the Treasury's columns are read by maturity).
FIELD_BY_MATURITY: dict[tuple[float, str], str] = {
    _maturity(f.name): f.name for f in fields(YieldCurveRow) if f.name != "date"}


# -- Commitments of Traders (CFTC) ---------------------------------------------------------
# The newest 260 weekly reports: five years of history.
COT_WEEKS = 260

# What a member the legacy report has no value for says (LEGACY_NULL_MEMBERS, below).
_LEGACY_NULL = ("Null for contracts served from the legacy report (financial futures) and "
                "where the CFTC row has no value")


@dataclass(frozen=True)
class CommitmentsObservation:
    """One weekly report of a contract: positions in contracts as the CFTC reports them,
    None where the report has no such column or the row no value (never 0)."""

    report_date: str = member("The Tuesday the positions are as of (YYYY-MM-DD)",
                              schema=_DATE)
    open_interest: int | None = member(default=None)
    managed_money_long: int | None = member(_LEGACY_NULL, default=None)
    managed_money_short: int | None = member(_LEGACY_NULL, default=None)
    managed_money_spread: int | None = member(_LEGACY_NULL, default=None)
    nonreportable_long: int | None = member(default=None)
    nonreportable_short: int | None = member(default=None)
    other_reportable_long: int | None = member(_LEGACY_NULL, default=None)
    other_reportable_short: int | None = member(_LEGACY_NULL, default=None)
    other_reportable_spread: int | None = member(_LEGACY_NULL, default=None)
    producer_merchant_long: int | None = member(_LEGACY_NULL, default=None)
    producer_merchant_short: int | None = member(_LEGACY_NULL, default=None)
    swap_dealer_long: int | None = member(_LEGACY_NULL, default=None)
    swap_dealer_short: int | None = member(_LEGACY_NULL, default=None)
    swap_dealer_spread: int | None = member(_LEGACY_NULL, default=None)
    total_reportable_long: int | None = member(default=None)
    total_reportable_short: int | None = member(default=None)


# A Commitments observation's members, in the spec's order.
OBSERVATION_MEMBERS = member_names(CommitmentsObservation)
POSITION_MEMBERS = OBSERVATION_MEMBERS[1:]

# A CFTC contract market code: six characters, digits and capitals, starting with a digit
# (088691, 13874A, 03565B, 1170E1, 023A55).
CODE_PATTERN = re.compile(r"[0-9][0-9A-Z]{5}", re.ASCII)


@dataclass(frozen=True)
class CotReport:
    """One futures-only report of the COT family: its name here, the CFTC's dataset id
    and title, and the position members it has a value for."""

    name: str
    dataset: str
    title: str
    members: tuple[str, ...]

    @property
    def null_members(self) -> tuple[str, ...]:
        """Position members this report has no value for (always null when it serves)."""
        return tuple(m for m in POSITION_MEMBERS if m not in self.members)


# Physical commodities have every member; financial futures are only in the legacy report,
# whose commercial / non-commercial categories have no member here.
DISAGGREGATED = CotReport("disaggregated", "72hh-3qpy", "Disaggregated futures-only report",
                          POSITION_MEMBERS)
LEGACY = CotReport("legacy", "6dca-aqww", "Legacy futures-only report", (
    "openInterest", "nonreportableLong", "nonreportableShort", "totalReportableLong",
    "totalReportableShort"))
COT_REPORTS = (DISAGGREGATED, LEGACY)
LEGACY_NULL_MEMBERS = LEGACY.null_members


@dataclass(frozen=True)
class FuturesContract:
    """A futures root of the curated table: its CFTC code and the report that carries it."""

    root: str
    code: str
    report: CotReport
    market: str


def _table(report: CotReport, *rows: tuple[str, str, str]) -> list[FuturesContract]:
    return [FuturesContract(root, code, report, market) for root, code, market in rows]


# Yahoo-style futures roots -> CFTC contract markets (codes as the CFTC reports them; the
# full-size contract unless the root is a micro). Physical commodities are in the
# disaggregated report, financial futures only in the legacy one. NG=F is the physically
# delivered NYMEX Henry Hub contract (023651), not the financially settled Henry Hub
# look-alike (03565B), which stays reachable by its code.
CONTRACTS: dict[str, FuturesContract] = {c.root: c for c in (
    *_table(DISAGGREGATED,
            # metals
            ("GC=F", "088691", "Gold, COMEX"),
            ("MGC=F", "088695", "Micro gold, COMEX"),
            ("SI=F", "084691", "Silver, COMEX"),
            ("HG=F", "085692", "Copper #1, COMEX"),
            ("PL=F", "076651", "Platinum, NYMEX"),
            ("PA=F", "075651", "Palladium, NYMEX"),
            # energy
            ("CL=F", "067651", "WTI crude oil (physical), NYMEX"),
            ("BZ=F", "06765T", "Brent crude oil (last day), NYMEX"),
            ("NG=F", "023651", "Natural gas (Henry Hub), NYMEX"),
            ("HO=F", "022651", "NY Harbor ULSD (heating oil), NYMEX"),
            ("RB=F", "111659", "RBOB gasoline, NYMEX"),
            # grains and oilseeds
            ("ZC=F", "002602", "Corn, CBOT"),
            ("ZW=F", "001602", "Wheat (SRW), CBOT"),
            ("KE=F", "001612", "Wheat (HRW), CBOT"),
            ("ZS=F", "005602", "Soybeans, CBOT"),
            ("ZM=F", "026603", "Soybean meal, CBOT"),
            ("ZL=F", "007601", "Soybean oil, CBOT"),
            ("ZO=F", "004603", "Oats, CBOT"),
            ("ZR=F", "039601", "Rough rice, CBOT"),
            # livestock
            ("LE=F", "057642", "Live cattle, CME"),
            ("GF=F", "061641", "Feeder cattle, CME"),
            ("HE=F", "054642", "Lean hogs, CME"),
            # softs
            ("KC=F", "083731", "Coffee C, ICE US"),
            ("SB=F", "080732", "Sugar No. 11, ICE US"),
            ("CC=F", "073732", "Cocoa, ICE US"),
            ("CT=F", "033661", "Cotton No. 2, ICE US")),
    *_table(LEGACY,
            # equity indices
            ("ES=F", "13874A", "E-mini S&P 500, CME"),
            ("MES=F", "13874U", "Micro E-mini S&P 500, CME"),
            ("NQ=F", "209742", "E-mini Nasdaq-100, CME"),
            ("MNQ=F", "209747", "Micro E-mini Nasdaq-100, CME"),
            ("RTY=F", "239742", "E-mini Russell 2000, CME"),
            ("M2K=F", "239747", "Micro E-mini Russell 2000, CME"),
            ("YM=F", "124603", "E-mini Dow ($5), CBOT"),
            ("MYM=F", "124608", "Micro E-mini Dow, CBOT"),
            ("NKD=F", "240741", "Nikkei 225 (dollar), CME"),
            # interest rates
            ("ZT=F", "042601", "2-year T-note, CBOT"),
            ("ZF=F", "044601", "5-year T-note, CBOT"),
            ("ZN=F", "043602", "10-year T-note, CBOT"),
            ("TN=F", "043607", "Ultra 10-year T-note, CBOT"),
            ("ZB=F", "020601", "T-bond, CBOT"),
            ("UB=F", "020604", "Ultra T-bond, CBOT"),
            ("SR3=F", "134741", "3-month SOFR, CME"),
            # currencies
            ("6E=F", "099741", "Euro FX, CME"),
            ("6J=F", "097741", "Japanese yen, CME"),
            ("6B=F", "096742", "British pound, CME"),
            ("6C=F", "090741", "Canadian dollar, CME"),
            ("6A=F", "232741", "Australian dollar, CME"),
            ("6S=F", "092741", "Swiss franc, CME"),
            ("6N=F", "112741", "New Zealand dollar, CME"),
            ("6M=F", "095741", "Mexican peso, CME"),
            ("DX=F", "098662", "U.S. dollar index, ICE US"),
            # crypto
            ("BTC=F", "133741", "Bitcoin, CME"),
            ("ETH=F", "146021", "Ether, CME")),
)}
_BY_CODE: dict[str, FuturesContract] = {c.code: c for c in CONTRACTS.values()}


@dataclass(frozen=True)
class CotLookup:
    """What a symbol resolves to: the code and the reports to ask, in order."""

    symbol: str
    code: str
    reports: tuple[CotReport, ...]


def _other(report: CotReport) -> CotReport:
    return LEGACY if report is DISAGGREGATED else DISAGGREGATED


def cot_lookup(symbol: str) -> CotLookup:
    """A canonical (upper-cased) symbol -> the code and the reports to try, or NotFound.

    A curated root or code asks its own report first; any other well-formed code asks the
    disaggregated report, then the legacy one (financial futures are only there). The other
    report is the fallback in every case, so a contract the CFTC moves is still found.
    """
    contract = CONTRACTS.get(symbol) or _BY_CODE.get(symbol)
    if contract is not None:
        return CotLookup(symbol, contract.code, (contract.report, _other(contract.report)))
    if CODE_PATTERN.fullmatch(symbol):
        return CotLookup(symbol, symbol, COT_REPORTS)
    raise NotFound(f"Symbol not found: '{symbol}' is neither a CFTC contract market code nor "
                   "a known futures root")


_STRING = {"type": "string"}


@dataclass(frozen=True)
class Commitments:
    """One contract's weekly observations (oldest first) from one report. The code and
    market name are the newest row's (None when it has none); ``symbol``, the one asked
    for, is set after the cache by :func:`marketdata.capabilities.macro.cot`, which also
    falls back to the looked-up code (so the answer's code is a string)."""

    report: str
    symbol: str = member("The symbol as asked for, upper-cased", default="")
    contract_market_code: str | None = member("CFTC contract market code (newest row)",
                                              default=None, schema=_STRING)
    # A string in the document, though a row without a name (never seen) gives null.
    market_and_exchange_name: str | None = member("CFTC market and exchange name (newest row)",
                                                  default=None, schema=_STRING)
    observations: list[CommitmentsObservation] = member(default_factory=list)

