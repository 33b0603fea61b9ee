"""Macro and positioning data: economic series (FRED), the Treasury's par yield curve and the
CFTC's weekly Commitments of Traders, with the vocabularies the endpoints validate and
document them with (series ids, yield members, COT reports, members and futures roots).

Each capability has one publisher (FRED, the Treasury, the CFTC), so its vocabulary is the
publisher's: the reports and contract market codes are the CFTC's own names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from marketdata.errors import NotFound

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

    date: str
    value: float | None


@dataclass(frozen=True)
class MacroSeries:
    """A series' observations, oldest first, under its canonical id."""

    id: str
    observations: list[Observation]


# -- Treasury par yield curve ---------------------------------------------------------------
FIRST_YEAR = 1990  # the first year of the par yield curve

# A yield curve row's members, in the spec's order, with the maturity each stands for
# (number, unit). A row is ``{date, y1M, ..., y30}``: every member present, null where the
# Treasury has no value.
ROW_MEMBERS: dict[str, tuple[float, str] | None] = {
    "date": None,
    "y1M": (1, "mo"), "y2M": (2, "mo"), "y3M": (3, "mo"), "y4M": (4, "mo"), "y6M": (6, "mo"),
    "y1": (1, "yr"), "y2": (2, "yr"), "y3": (3, "yr"), "y5": (5, "yr"), "y7": (7, "yr"),
    "y10": (10, "yr"), "y20": (20, "yr"), "y30": (30, "yr"),
}
MEMBER_BY_MATURITY = {maturity: name for name, maturity in ROW_MEMBERS.items() if maturity}
YIELD_MEMBERS = tuple(MEMBER_BY_MATURITY.values())


# -- Commitments of Traders (CFTC) ---------------------------------------------------------
# The newest 260 weekly reports: five years of history.
COT_WEEKS = 260

# A Commitments observation's members, in the spec's order.
OBSERVATION_MEMBERS = (
    "reportDate", "openInterest", "managedMoneyLong", "managedMoneyShort",
    "managedMoneySpread", "nonreportableLong", "nonreportableShort", "otherReportableLong",
    "otherReportableShort", "otherReportableSpread", "producerMerchantLong",
    "producerMerchantShort", "swapDealerLong", "swapDealerShort", "swapDealerSpread",
    "totalReportableLong", "totalReportableShort",
)
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


@dataclass(frozen=True)
class Commitments:
    """One contract's weekly observations (oldest first) from one report: each a dict of
    :data:`OBSERVATION_MEMBERS`, positions as integers, null where the report has none.
    The code and market name are the newest row's (None when it has none)."""

    report: str
    contract_market_code: str | None = None
    market_and_exchange_name: str | None = None
    observations: list[dict[str, Any]] = field(default_factory=list)

