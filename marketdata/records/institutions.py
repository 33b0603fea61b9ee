"""Institutional investment managers' quarterly holdings (SEC Form 13F), whoever serves them
(today SEC EDGAR), and the rules of the form that every source must apply alike.

A manager with discretion over $100 million or more in 13(f) securities files a 13F-HR
within 45 days of each calendar quarter's end; its *information table* lists one row per
security (and per manager sharing discretion): issuer, class, CUSIP, market value, shares
or principal amount, put/call, investment discretion, voting authority. A 13F-HR/A amends
a report: a *restatement* replaces it, a *new holdings* amendment adds rows to it.

Units: the table's ``value`` column was in thousands of dollars until the amended Form 13F
took effect; every filing made on or after :data:`DOLLARS_SINCE` (2023-01-03, whatever
quarter it reports, amendments of old quarters included) gives it rounded to the dollar.
The records hold dollars whatever the filing's unit (:func:`value_unit`); each filing says
which unit it used.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

from marketdata.records.members import member

_DAY = "`YYYY-MM-DD`"

# Filings made on or after this day give values in dollars; earlier ones in thousands.
DOLLARS_SINCE = date(2023, 1, 3)
# EDGAR took information tables as XML (the only form read here) from this day on; earlier
# tables are text documents of no fixed layout.
XML_SINCE = date(2013, 5, 20)
FORMS = ("13F-HR", "13F-HR/A")
# A report quarter's last day (the ``period`` a client asks for).
PERIOD_PATTERN = r"[0-9]{4}-(?:03-31|06-30|09-30|12-31)"
_PERIOD = re.compile(PERIOD_PATTERN, re.ASCII)

ValueUnit = Literal["dollars", "thousands"]
AmendmentType = Literal["RESTATEMENT", "NEW HOLDINGS"]


def value_unit(filed: str) -> ValueUnit:
    """The unit of a filing's ``value`` column, by its filing day (``YYYY-MM-DD``)."""
    return "dollars" if filed >= DOLLARS_SINCE.isoformat() else "thousands"


def is_period(text: str) -> bool:
    """Whether ``text`` is a calendar quarter's last day, ``YYYY-MM-DD``."""
    return bool(_PERIOD.fullmatch(text))


@dataclass(frozen=True)
class Holding:
    """One row of an information table: a position in one class of one issuer's securities
    (a manager reports a position once per combination of discretion and other managers,
    so one CUSIP may have several rows), None where the filing leaves a column empty."""

    issuer: str | None = member("Name of issuer, as filed (`nameOfIssuer`)")
    cusip: str | None = member("CUSIP, 9 characters")
    figi: str | None = member("FIGI where the filer gave one (optional since 2023; null "
                              "before)")
    class_: str | None = member("Title of class, as filed (`titleOfClass`: `COM`, `CL A`, "
                                "`NOTE 1.5% 3/1`...)", name="class")
    value: int | None = member("Market value at the quarter's end, US dollars (filings "
                               "made before 2023-01-03 gave thousands: multiplied by 1,000 "
                               "here)")
    shares: int | None = member("Shares, or principal amount in dollars for `PRN` "
                                "(`sshPrnamt`)")
    shares_type: Literal["SH", "PRN"] | None = member(
        "`SH` shares or `PRN` principal amount (`sshPrnamtType`)")
    put_call: Literal["Put", "Call"] | None = member(
        "`Put` or `Call` for an option position (the underlying's shares and value), else "
        "null")
    discretion: str | None = member("Investment discretion: `SOLE`, `DFND` (shared-defined) "
                                    "or `OTR` (shared-other)")
    other_managers: str | None = member("Sequence numbers of the other managers sharing "
                                        "discretion, as filed (`1,3`), null where none")
    voting_sole: int | None = member("Shares (or principal) with sole voting authority")
    voting_shared: int | None = member("Shares with shared voting authority")
    voting_none: int | None = member("Shares with no voting authority")


@dataclass(frozen=True)
class Addition:
    """A new-holdings amendment whose rows are added to the report (a 13F-HR/A that adds
    holdings rather than restating the report)."""

    accession_number: str = member("EDGAR's id of the amendment")
    filed_at: str = member(f"Filing date, {_DAY}")
    amendment_number: int | None = member("The amendment's number (`amendmentNo`)")
    value_unit: ValueUnit = member("Unit of the amendment's value column as filed "
                                   "(`thousands` before 2023-01-03); values here are "
                                   "dollars")
    holdings_count: int = member("Rows it adds")


@dataclass(frozen=True)
class InstitutionalHoldings:
    """A manager's holdings for one report quarter: the report (the original 13F-HR, or
    the latest restatement of it) and the rows of any later new-holdings amendments."""

    cik: int = member("The manager's SEC Central Index Key", always=True)
    name: str | None = member("The manager, as EDGAR names it")
    period: str = member(f"The report quarter's last day, {_DAY}", always=True)
    filed_at: str = member(f"Filing date of the report, {_DAY}")
    accession_number: str = member("EDGAR's id of the report (`0001067983-24-000123`)")
    form: Literal["13F-HR", "13F-HR/A"] = member("`13F-HR`, or `13F-HR/A` when the report "
                                                 "is a restatement")
    amendment_number: int | None = member("The restatement's amendment number; null for "
                                          "the original report")
    amendment_type: AmendmentType | None = member(
        "`RESTATEMENT` when the report is an amendment that restates it; null for the "
        "original (later `NEW HOLDINGS` amendments are `additions`; one is the report only "
        "when no other filing of the quarter is listed)")
    value_unit: ValueUnit = member("Unit of the report's value column as filed: "
                                   "`thousands` for filings made before 2023-01-03, else "
                                   "`dollars`; every `value` here is in dollars")
    additions: list[Addition] = member("New-holdings amendments filed after the report, "
                                       "whose rows are included in `holdings`")
    total_value: int = member("Sum of the holdings' values, US dollars")
    holdings_count: int = member("Rows in `holdings`")
    periods: list[str] = member("Every report quarter the manager filed a 13F-HR for "
                                "(XML tables: from 2013 on), newest first")
    holdings: list[Holding] = member("Rows of the information table(s)")


@dataclass(frozen=True)
class InstitutionalFiler:
    """A filer of 13F holdings reports found by name."""

    cik: int = member("SEC Central Index Key", always=True)
    name: str | None = member("The filer, as EDGAR names it")
    latest_filed_at: str | None = member(
        f"The newest 13F-HR (or 13F-HR/A) filing date among the filings found, {_DAY}")


def nearest_periods(periods: list[str], wanted: str, count: int = 4) -> list[str]:
    """The ``count`` periods closest in time to ``wanted`` (``YYYY-MM-DD``), newest first:
    what a 404 for a quarter without a report suggests instead."""
    wanted_day = date.fromisoformat(wanted)
    close = sorted(periods, key=lambda p: (abs((date.fromisoformat(p) - wanted_day).days), p))
    return sorted(close[:count], reverse=True)
