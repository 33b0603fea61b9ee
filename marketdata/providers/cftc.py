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
futures root of the curated :data:`~marketdata.records.macro.CONTRACTS` table (``GC=F``),
resolved by :func:`~marketdata.records.macro.cot_lookup`; the code is checked against a
strict pattern before any call, so no quote or operator ever reaches the SoQL text. The
newest :data:`WEEKS` reports are fetched (five years), cached for six hours (the report is
weekly; the cache does not follow market hours).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date
from decimal import Decimal, InvalidOperation
from typing import Any

from marketdata.cache import TTLPolicy
from marketdata.errors import MarketDataError, NotFound
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.providers.base import Provider
from marketdata.providers.registry import get_provider
from marketdata.records.macro import (  # noqa: F401 - the vocabulary, re-exported
    CODE_PATTERN,
    CONTRACTS,
    COT_WEEKS,
    DISAGGREGATED,
    LEGACY,
    LEGACY_NULL_MEMBERS,
    OBSERVATION_MEMBERS,
    POSITION_MEMBERS,
    Commitments,
    CommitmentsObservation,
    CotLookup,
    CotReport,
    cot_lookup,
)
from marketdata.records.members import members_of

PROVIDER = ProviderConfig(name="cftc", display_name="CFTC Public Reporting",
                          connect_timeout=3.0, read_timeout=10.0,
                          hosts=("publicreporting.cftc.gov",))
BASE_URL = "https://publicreporting.cftc.gov/resource"

WEEKS = COT_WEEKS
# The report comes out once a week (Fridays 15:30 ET, for the Tuesday before).
COT_TTL = TTLPolicy("cot", open=21600, extended=21600, closed=21600, market_aware=False)

DATE_COLUMN = "report_date_as_yyyy_mm_dd"
CODE_COLUMN = "cftc_contract_market_code"
NAME_COLUMN = "market_and_exchange_names"

# Each report's Socrata columns: spec member -> column (a member a report has no column for
# is null when it serves, see CotReport.null_members).
COLUMNS: dict[str, Mapping[str, str]] = {
    DISAGGREGATED.name: {
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
    },
    LEGACY.name: {
        "openInterest": "open_interest_all",
        "nonreportableLong": "nonrept_positions_long_all",
        "nonreportableShort": "nonrept_positions_short_all",
        "totalReportableLong": "tot_rept_positions_long_all",
        "totalReportableShort": "tot_rept_positions_short",
    },
}
lookup = cot_lookup  # the old name


def report_url(report: CotReport) -> str:
    """The SODA resource of a report's dataset."""
    return f"{BASE_URL}/{report.dataset}.json"


def soda_params(code: str, report: CotReport, weeks: int = WEEKS) -> dict[str, str]:
    """SoQL of one fetch: the report's columns of the newest ``weeks`` reports of ``code``."""
    if not CODE_PATTERN.fullmatch(code):  # never a quote or an operator in the SoQL text
        raise NotFound(f"Symbol not found: '{code}'")
    columns = (DATE_COLUMN, CODE_COLUMN, NAME_COLUMN, *COLUMNS[report.name].values())
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


# The observation's field of each spec member (COLUMNS is by member).
_FIELD = {m.name: m.attribute for m in members_of(CommitmentsObservation)}


def observation(row: Mapping[str, Any], report: CotReport, day: str) -> CommitmentsObservation:
    """One Commitments observation (null where the report has no such column or the row has
    no value)."""
    return CommitmentsObservation(day, **{_FIELD[member]: socrata_int(row.get(column))
                                          for member, column in COLUMNS[report.name].items()})


def parse_commitments(payload: Any, report: CotReport) -> Commitments:
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

    def fetch(self, code: str, report: CotReport) -> Commitments:
        payload = self.get_json(report.name, report_url(report), soda_params(code, report))
        return parse_commitments(payload, report)


def commitments_in(code: str, report: CotReport) -> Commitments:
    """``code``'s newest :data:`WEEKS` reports in ``report``, through the cache (six hours;
    an empty result is cached like data)."""
    provider: CftcProvider = get_provider(PROVIDER.name)
    return provider.cached(report.name, {"code": code, "weeks": WEEKS},
                           lambda: provider.fetch(code, report), COT_TTL, group="cot")


def commitments(found: CotLookup) -> Commitments:
    """The ``cot`` fetcher: the weekly positioning of a looked-up symbol, from the first
    report of its order that has rows; NotFound when neither report has a row for the
    code."""
    for report in found.reports:
        result = commitments_in(found.code, report)
        if result.observations:
            return result
    named = "" if found.symbol == found.code else f" (CFTC contract market code {found.code})"
    raise NotFound(f"No weekly positioning data found for '{found.symbol}'{named}")
