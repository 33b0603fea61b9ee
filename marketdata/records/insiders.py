"""Insider transactions: what directors, officers and 10 % owners reported on the SEC's
ownership forms (Forms 4 and 5 and their amendments), one row per transaction, and the
summary of a window of them.

The members are declared here once (schema, ``fields``, JSON, CSV). Units: shares are the
security's units as reported (shares for stock, the derivative's own units for options and
RSUs; fractional shares happen); prices and values are USD as reported (US issuers report in
dollars); dates are ISO days. The SEC's table of transaction codes is :data:`CODES` (the
forms' General Instructions, "Transaction Codes"), the vocabulary ``codes`` is checked
against.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Literal

from marketdata.records.members import member

# The SEC's transaction codes (Form 4 General Instructions, section 8) and their meanings.
CODES: dict[str, str] = {
    # general transaction codes
    "P": "Open market or private purchase of non-derivative or derivative security",
    "S": "Open market or private sale of non-derivative or derivative security",
    "V": "Transaction voluntarily reported earlier than required",
    # Rule 16b-3 transaction codes
    "A": "Grant, award or other acquisition pursuant to Rule 16b-3(d)",
    "D": "Disposition to the issuer of issuer equity securities pursuant to Rule 16b-3(e)",
    "F": "Payment of exercise price or tax liability by delivering or withholding securities "
         "incident to the receipt, exercise or vesting of a security issued in accordance "
         "with Rule 16b-3",
    "I": "Discretionary transaction in accordance with Rule 16b-3(f) resulting in "
         "acquisition or disposition of issuer securities",
    "M": "Exercise or conversion of derivative security exempted pursuant to Rule 16b-3",
    # derivative securities codes (except transactions exempted under Rule 16b-3)
    "C": "Conversion of derivative security",
    "E": "Expiration of short derivative position",
    "H": "Expiration (or cancellation) of long derivative position with value received",
    "O": "Exercise of out-of-the-money derivative security",
    "X": "Exercise of in-the-money or at-the-money derivative security",
    # other Section 16(b) exempt transaction and small acquisition codes
    "G": "Bona fide gift",
    "L": "Small acquisition under Rule 16a-6",
    "W": "Acquisition or disposition by will or the laws of descent and distribution",
    "Z": "Deposit into or withdrawal from voting trust",
    # other transaction codes
    "J": "Other acquisition or disposition (described in the footnotes)",
    "K": "Transaction in equity swap or instrument with similar characteristics",
    "U": "Disposition pursuant to a tender of shares in a change of control transaction",
}

# The forms whose documents hold transactions (Form 3, the initial statement, reports
# holdings only and is not read).
TRANSACTION_FORMS = ("4", "4/A", "5", "5/A")

# The window: `end` defaults to today (UTC), `start` to a year before it; at most five
# years (end - start), since each filing in it is one more EDGAR call.
DEFAULT_WINDOW_DAYS = 365
MAX_WINDOW_DAYS = 1827
# Ownership filings read for one request, newest first (each one EDGAR call unless cached);
# a window holding more is cut at the oldest and the answer says so.
MAX_FILINGS = 100

_DAY = "`YYYY-MM-DD`"
_SHARES = ("in the security's units as reported (shares; for a derivative, its own units: "
           "options, RSUs)")


def current_day() -> date:
    """Today in UTC: the default window ends on it (tests replace it)."""
    return datetime.now(UTC).date()


@dataclass(frozen=True)
class OwnerRelationship:
    """How a reporting owner is related to the issuer (the form's box 5; several may be
    checked)."""

    director: bool = member("A director of the issuer")
    officer: bool = member("An officer (`officerTitle` says which)")
    officer_title: str | None = member("The officer's title as filed, e.g. `CEO`")
    ten_percent_owner: bool = member("Beneficially owns more than 10 percent of a class of "
                                     "the issuer's equity securities")
    other: bool = member("Another relationship (`otherText` says which)")
    other_text: str | None = member("The other relationship as filed")


@dataclass(frozen=True)
class ReportingOwner:
    """One reporting person of a filing."""

    name: str | None = member("As filed, usually `LAST FIRST MIDDLE`")
    cik: int | None = member("The owner's SEC Central Index Key")
    relationship: OwnerRelationship = member("The owner's relationship to the issuer")


@dataclass(frozen=True)
class DerivativeTerms:
    """The terms of a derivative security (Table II of the form)."""

    exercise_price: float | None = member("Conversion or exercise price, USD per unit; null "
                                          "where the form gives it only in a footnote")
    exercise_date: str | None = member(f"Date exercisable, {_DAY}; null where the form says "
                                       "it only in a footnote (vesting schedules)")
    expiration_date: str | None = member(f"Expiration date, {_DAY}; null where none")
    underlying_security: str | None = member("Title of the underlying security, e.g. "
                                             "`Common Stock`")
    underlying_shares: float | None = member("Amount of underlying securities, shares")


@dataclass(frozen=True)
class InsiderTransaction:
    """One transaction row of an ownership filing (Table I non-derivative, or Table II
    derivative: then ``derivative`` holds its terms)."""

    filed_at: str = member(f"Filing date of the form, {_DAY}", always=True)
    accession_number: str = member("EDGAR's id of the filing, `0001214128-25-000004`",
                                   always=True)
    form: str = member("`4`, `4/A`, `5` or `5/A` (`/A`: an amendment)")
    original_filed_at: str | None = member(
        f"An amendment's date of the original filing, {_DAY}; null for an original")
    superseded: bool = member(
        "True when an amendment in the answer amends this row's filing (same reporting "
        "owner and period, filed on this row's `filedAt`): the row stays listed but is left "
        "out of `summary`")
    insider: ReportingOwner = member("The reporting owner (the first one of a joint filing; "
                                     "all are in `owners`)")
    owners: list[ReportingOwner] = member("Every reporting owner of the filing, in the "
                                          "filing's order (several for a joint filing)")
    transaction_date: str | None = member(f"Trade date, {_DAY}")
    deemed_execution_date: str | None = member(
        f"Deemed execution date, {_DAY}, where one applies (Rule 16a-3(g)); else null")
    code: str | None = member("The SEC's transaction code (`codeMeaning` says it): P "
                              "purchase, S sale, A award, M exercise, F tax withholding, G "
                              "gift...")
    code_meaning: str | None = member("The code's meaning in the SEC's table")
    equity_swap: bool | None = member("The transaction involved an equity swap")
    trading_plan: bool | None = member(
        "The filing checks the Rule 10b5-1(c) plan box (on forms filed since April 2023; "
        "null on older forms)")
    security_title: str | None = member("The security traded, e.g. `Common Stock`, "
                                        "`Restricted Stock Unit`")
    shares: float | None = member(f"Amount traded, {_SHARES}")
    price: float | None = member("Price per share (per unit), USD; null where the form gives "
                                 "it only in a footnote; 0 for grants and gifts")
    value: float | None = member(
        "Value traded, USD: `shares` x `price`, or the total value the form reports instead "
        "of shares; null without them")
    acquired_or_disposed: Literal["A", "D"] | None = member(
        "`A` acquired, `D` disposed of")
    shares_owned_after: float | None = member(
        f"Amount of the security owned after the transaction, {_SHARES}")
    direct: bool | None = member("True: owned directly; false: indirectly (see "
                                 "`natureOfOwnership`)")
    nature_of_ownership: str | None = member("How an indirect holding is owned, as filed "
                                             "(`By Trust`, `By Spouse`)")
    derivative: DerivativeTerms | None = member(
        "Null for a non-derivative row (Table I); a derivative row's terms (Table II)")
    footnotes: list[str] = member("The texts of the footnotes the row refers to, in the "
                                  "order it refers to them")


@dataclass(frozen=True)
class InsiderSummary:
    """Totals over the rows the filters kept, superseded rows left out. Buys and sells are
    the open-market or private purchases (code P) and sales (code S) of non-derivative
    securities; awards, exercises, tax withholding and gifts are in ``acquiredShares`` and
    ``disposedShares`` only."""

    transactions: int = member("Rows counted (every code, both tables)")
    insiders: int = member("Distinct reporting owners of those rows")
    buys: int = member("Purchases: non-derivative rows of code P")
    sells: int = member("Sales: non-derivative rows of code S")
    buy_shares: float = member("Shares bought (code P rows)")
    sell_shares: float = member("Shares sold (code S rows)")
    net_shares: float = member("`buyShares` - `sellShares`, shares")
    buy_value: float = member("USD paid for the purchases: the sum of `value` of the code P "
                              "rows that have one")
    sell_value: float = member("USD received for the sales: the sum of `value` of the code S "
                               "rows that have one")
    net_value: float = member("`buyValue` - `sellValue`, USD")
    acquired_shares: float = member("Shares acquired in non-derivative rows of every code "
                                    "(`acquiredOrDisposed` A)")
    disposed_shares: float = member("Shares disposed of in non-derivative rows of every code "
                                    "(`acquiredOrDisposed` D)")


@dataclass(frozen=True)
class InsiderActivity:
    """The answer: a company's insider transactions in a window of transaction dates,
    newest first, with their summary and what was read to find them."""

    symbol: str = member("The symbol asked for", always=True)
    cik: int = member("The issuer's SEC Central Index Key")
    start: str = member(f"First transaction date of the window, {_DAY}")
    end: str = member(f"Last transaction date of the window, {_DAY}")
    filings: int = member("Ownership filings (Forms 4, 5 and amendments) that may hold "
                          "transactions in the window")
    filings_read: int = member("Of those, the filings whose documents were read")
    truncated: bool = member(
        "True when some filings of the window were not read (the cap of "
        f"{MAX_FILINGS} filings a request, the request's time, or failures): `notices` "
        "says which and from when the rows are complete")
    notices: list[str] = member("What the answer leaves out and why; empty when complete")
    summary: InsiderSummary = member("Totals over the transactions the filters kept")
    transactions: list[InsiderTransaction] = member()


@dataclass(frozen=True)
class OwnershipFiling:
    """One ownership filing of a company as its filing list names it: what is known of it
    before its document is read."""

    accession_number: str
    form: str
    filed_at: str
    report_date: str | None
    document: str | None  # the raw XML's file name; None when the filing has none


@dataclass(frozen=True)
class InsiderWindow:
    """What the source read for a window (the ``insider_transactions`` capability's
    record): every transaction row of the filings read, and what could not be read."""

    cik: int
    filings: int
    filings_read: int
    transactions: list[InsiderTransaction]
    notices: list[str]
    truncated: bool
