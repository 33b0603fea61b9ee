"""CFTC Commitments of Traders (weekly positioning) from CFTC Public Reporting (Socrata).

Why Socrata's SODA API and not the weekly text files: the CFTC publishes every report as a
Socrata dataset at ``https://publicreporting.cftc.gov/resource/{dataset}.json`` that takes
SoQL in the query string (``$select``, ``$where``, ``$order``, ``$limit``), so one GET
returns exactly the weeks and columns of one contract market. No key is needed (an app
token only raises Socrata's per-IP throttle; none is sent).

Two futures-only reports are read:

- **Disaggregated** (dataset ``72hh-3qpy``): producer/merchant, swap dealer, managed money,
  other reportable and non-reportable positions. Physical commodities only (energy, metals,
  agriculture): it carries every member of the spec's Commitments observation.
- **Legacy** (dataset ``6dca-aqww``): commercial / non-commercial / non-reportable, for
  every contract. Financial futures (equity indices, rates, currencies, crypto) have no
  disaggregated rows, so they are served from here: open interest, total reportable and
  non-reportable positions map one to one; the legacy commercial and non-commercial
  categories have no spec member, so the disaggregated-only members
  (:data:`LEGACY_NULL_MEMBERS`) are null for those contracts.

Socrata numbers arrive as strings ("19404"); they become integers, and a column that is
absent or null becomes null, never 0. ``report_date_as_yyyy_mm_dd`` is a floating
timestamp (``2024-08-20T00:00:00.000``) and becomes ``YYYY-MM-DD``. Note the real double
underscore in the disaggregated ``swap__positions_short_all`` / ``swap__positions_spread_all``.

A symbol is a CFTC contract market code (six characters, ``088691``, ``13874A``) or a
futures root of the curated :data:`CONTRACTS` table (``GC=F``); the code is checked against
a strict pattern before any call, so no quote or operator ever reaches the SoQL text. The
newest :data:`WEEKS` reports are fetched (five years), cached for six hours (the report is
weekly; the cache does not follow market hours).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from marketdata.cache import TTLPolicy
from marketdata.errors import MarketDataError, NotFound
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.providers.base import Provider
from marketdata.providers.registry import get_provider

PROVIDER = ProviderConfig(name="cftc", display_name="CFTC Public Reporting",
                          connect_timeout=3.0, read_timeout=10.0,
                          hosts=("publicreporting.cftc.gov",))
BASE_URL = "https://publicreporting.cftc.gov/resource"

# The newest 260 weekly reports: five years of history. With $select the answer is
# ~90 kB (legacy) to ~190 kB (disaggregated) instead of 0.7-1.2 MB of full rows (sizes
# measured on the sandbox, whose rows have the real columns).
WEEKS = 260
# The report comes out once a week (Fridays 15:30 ET, for the Tuesday before).
COT_TTL = TTLPolicy("cot", open=21600, extended=21600, closed=21600, market_aware=False)

# A CFTC contract market code: six characters, digits and capitals, starting with a digit
# (088691, 13874A, 03565B, 1170E1, 023A55). Nothing else is ever put in a SoQL literal.
CODE_PATTERN = re.compile(r"[0-9][0-9A-Z]{5}", re.ASCII)

DATE_COLUMN = "report_date_as_yyyy_mm_dd"
CODE_COLUMN = "cftc_contract_market_code"
NAME_COLUMN = "market_and_exchange_names"

# The spec's Commitments observation, in its order.
OBSERVATION_MEMBERS = (
    "reportDate", "openInterest", "managedMoneyLong", "managedMoneyShort",
    "managedMoneySpread", "nonreportableLong", "nonreportableShort", "otherReportableLong",
    "otherReportableShort", "otherReportableSpread", "producerMerchantLong",
    "producerMerchantShort", "swapDealerLong", "swapDealerShort", "swapDealerSpread",
    "totalReportableLong", "totalReportableShort",
)
POSITION_MEMBERS = OBSERVATION_MEMBERS[1:]


@dataclass(frozen=True)
class Report:
    """One Socrata dataset of the COT family and how its columns map to spec members."""

    name: str
    dataset: str
    title: str
    columns: Mapping[str, str]  # spec member -> Socrata column

    @property
    def url(self) -> str:
        return f"{BASE_URL}/{self.dataset}.json"

    @property
    def null_members(self) -> tuple[str, ...]:
        """Spec members this report has no column for (always null when it serves)."""
        return tuple(m for m in POSITION_MEMBERS if m not in self.columns)


DISAGGREGATED = Report("disaggregated", "72hh-3qpy", "Disaggregated futures-only report", {
    "openInterest": "open_interest_all",
    "managedMoneyLong": "m_money_positions_long_all",
    "managedMoneyShort": "m_money_positions_short_all",
    "managedMoneySpread": "m_money_positions_spread",
    "nonreportableLong": "nonrept_positions_long_all",
    "nonreportableShort": "nonrept_positions_short_all",
    "otherReportableLong": "other_rept_positions_long",
    "otherReportableShort": "other_rept_positions_short",
    "otherReportableSpread": "other_rept_positions_spread",
    "producerMerchantLong": "prod_merc_positions_long",
    "producerMerchantShort": "prod_merc_positions_short",
    "swapDealerLong": "swap_positions_long_all",
    "swapDealerShort": "swap__positions_short_all",  # sic: two underscores
    "swapDealerSpread": "swap__positions_spread_all",  # sic: two underscores
    "totalReportableLong": "tot_rept_positions_long_all",
    "totalReportableShort": "tot_rept_positions_short",
})
LEGACY = Report("legacy", "6dca-aqww", "Legacy futures-only report", {
    "openInterest": "open_interest_all",
    "nonreportableLong": "nonrept_positions_long_all",
    "nonreportableShort": "nonrept_positions_short_all",
    "totalReportableLong": "tot_rept_positions_long_all",
    "totalReportableShort": "tot_rept_positions_short",
})
REPORTS = (DISAGGREGATED, LEGACY)
LEGACY_NULL_MEMBERS = LEGACY.null_members


@dataclass(frozen=True)
class Contract:
    """A futures root of the curated table: its CFTC code and the report that carries it."""

    root: str
    code: str
    report: Report
    market: str


def _table(report: Report, *rows: tuple[str, str, str]) -> list[Contract]:
    return [Contract(root, code, report, market) for root, code, market in rows]


# Yahoo-style futures roots -> CFTC contract markets (codes as the CFTC reports them; the
# full-size contract unless the root is a micro). Physical commodities are in the
# disaggregated report, financial futures only in the legacy one. NG=F is the physically
# delivered NYMEX Henry Hub contract (023651), not the financially settled Henry Hub
# look-alike (03565B), which stays reachable by its code.
CONTRACTS: dict[str, Contract] = {c.root: c for c in (
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
_BY_CODE: dict[str, Contract] = {c.code: c for c in CONTRACTS.values()}


@dataclass(frozen=True)
class Lookup:
    """What a symbol resolves to: the code and the reports to ask, in order."""

    symbol: str
    code: str
    reports: tuple[Report, ...]


@dataclass(frozen=True)
class Commitments:
    """One contract's weekly observations (oldest first) from one report."""

    report: str
    contract_market_code: str | None = None
    market_and_exchange_name: str | None = None
    observations: list[dict[str, Any]] = field(default_factory=list)


def _other(report: Report) -> Report:
    return LEGACY if report is DISAGGREGATED else DISAGGREGATED


def lookup(symbol: str) -> Lookup:
    """A canonical (upper-cased) symbol -> the code and the reports to try, or NotFound.

    A curated root or code asks its own report first; any other well-formed code asks the
    disaggregated report, then the legacy one (financial futures are only there). The other
    report is the fallback in every case, so a contract the CFTC moves is still found.
    """
    contract = CONTRACTS.get(symbol) or _BY_CODE.get(symbol)
    if contract is not None:
        return Lookup(symbol, contract.code, (contract.report, _other(contract.report)))
    if CODE_PATTERN.fullmatch(symbol):
        return Lookup(symbol, symbol, REPORTS)
    raise NotFound(f"Symbol not found: '{symbol}' is neither a CFTC contract market code nor "
                   "a known futures root")


def soda_params(code: str, report: Report, weeks: int = WEEKS) -> dict[str, str]:
    """SoQL of one fetch: the report's columns of the newest ``weeks`` reports of ``code``."""
    if not CODE_PATTERN.fullmatch(code):  # never a quote or an operator in the SoQL text
        raise NotFound(f"Symbol not found: '{code}'")
    columns = (DATE_COLUMN, CODE_COLUMN, NAME_COLUMN, *report.columns.values())
    return {
        "$select": ",".join(dict.fromkeys(columns)),
        "$where": f"{CODE_COLUMN}='{code}'",
        "$order": f"{DATE_COLUMN} DESC",
        "$limit": str(weeks),
    }


# -- parsing ---------------------------------------------------------------------------------

def socrata_int(value: Any) -> int | None:
    """A Socrata number ("19404", also "19404.0" or a bare number) -> int; absent, null,
    empty or not a whole number -> None (a missing value is never 0)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        return None
    if not number.is_finite() or number != number.to_integral_value():
        return None
    return int(number)


def report_date(value: Any) -> str | None:
    """``2024-08-20T00:00:00.000`` (Socrata floating timestamp) -> ``2024-08-20``."""
    if not isinstance(value, str):
        return None
    text = value.strip()[:10]
    try:
        return date.fromisoformat(text).isoformat() if len(text) == 10 else None
    except ValueError:
        return None


def _text(value: Any) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


def observation(row: Mapping[str, Any], report: Report, day: str) -> dict[str, Any]:
    """One Commitments observation, every spec member present (null where the report has
    no such column or the row has no value)."""
    out: dict[str, Any] = {"reportDate": day}
    for member in POSITION_MEMBERS:
        column = report.columns.get(member)
        out[member] = socrata_int(row.get(column)) if column else None
    return out


def parse_commitments(payload: Any, report: Report) -> Commitments:
    """A SODA answer (a JSON array of rows) -> observations oldest first.

    Rows without a valid report date are left out; a date seen twice keeps the first row.
    The code and the market name come from the newest row. An empty array is an empty
    result (the contract is not in this report), not an error.
    """
    if not isinstance(payload, list):
        raise PROVIDER.bad_answer("returned a body that is not a list of rows")
    dated: dict[str, Mapping[str, Any]] = {}
    for row in payload:
        if isinstance(row, dict) and (day := report_date(row.get(DATE_COLUMN))) is not None:
            dated.setdefault(day, row)
    if not dated:
        return Commitments(report.name)
    days = sorted(dated)
    newest = dated[days[-1]]
    return Commitments(
        report.name,
        contract_market_code=_text(newest.get(CODE_COLUMN)),
        market_and_exchange_name=_text(newest.get(NAME_COLUMN)),
        observations=[observation(dated[day], report, day) for day in days],
    )


# -- the provider ----------------------------------------------------------------------------
class CftcProvider(Provider):
    """Keyless. Every 4xx is a 502: our SoQL is fixed, so Socrata refusing it (400), not
    knowing the dataset (404) or refusing us (403) means the upstream changed, not that the
    symbol is unknown (that is an empty array). Socrata's body is not echoed."""

    config = PROVIDER

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        if response.status >= 400:
            return self.status_error(response, endpoint)
        return None

    def fetch(self, code: str, report: Report) -> Commitments:
        payload = self.get_json(report.name, report.url, soda_params(code, report))
        return parse_commitments(payload, report)


def commitments_in(code: str, report: Report) -> Commitments:
    """``code``'s newest :data:`WEEKS` reports in ``report``, through the cache (six hours;
    an empty result is cached like data)."""
    provider: CftcProvider = get_provider(PROVIDER.name)
    return provider.cached(report.name, {"code": code, "weeks": WEEKS},
                           lambda: provider.fetch(code, report), COT_TTL, group="cot")


def commitments(found: Lookup) -> Commitments:
    """The weekly positioning of a looked-up symbol: the first report of its order that has
    rows; NotFound when neither report has a row for the code."""
    for report in found.reports:
        result = commitments_in(found.code, report)
        if result.observations:
            return result
    named = "" if found.symbol == found.code else f" (CFTC contract market code {found.code})"
    raise NotFound(f"No weekly positioning data found for '{found.symbol}'{named}")
