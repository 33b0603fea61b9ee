"""Company fundamentals: the data modules of the analysis and holders endpoints, calendar
events, financial statements, earnings calls and their transcripts.

Sources: Yahoo Finance for each, today. Callers pass validated symbols; a source's "not
found" (unknown symbol, no data) is raised as it said it.
"""

from __future__ import annotations

from collections.abc import Callable

from marketdata.capabilities.table import YAHOO, Source, declare
from marketdata.records.fundamentals import (
    ANALYSIS_MODULES,
    HOLDERS_MODULES,
    CalendarEvents,
    CompanyTranscripts,
    EarningsCall,
    ModuleData,
    Statement,
)

YAHOO_TRANSCRIPTS = "marketdata.providers.yahoo.transcripts"


@declare("analysis", "Analyst data (/v1/analysis/{symbol}, /v2/analysis/{symbol}/{type})",
         Source("yahoo", f"{YAHOO} quoteSummary modules",
                fetcher="marketdata.providers.yahoo.analysis:analysis_data"))
def _analysis(symbol: str, module: str, *, members: bool = False) -> ModuleData:
    """One analysis module the capability serves (:func:`module_data`)."""


@declare("holders", "Holders (/v1/holders/{symbol}, /v2/holders/{symbol}/{type})",
         Source("yahoo", f"{YAHOO} quoteSummary modules",
                fetcher="marketdata.providers.yahoo.holders:holders_data"))
def _holders(symbol: str, module: str, *, members: bool = False) -> ModuleData:
    """One holders module the capability serves (:func:`module_data`)."""


# The data modules each module capability serves, and its function.
_MODULES: dict[str, tuple[tuple[str, ...], Callable[..., ModuleData]]] = {
    "analysis": (ANALYSIS_MODULES, _analysis), "holders": (HOLDERS_MODULES, _holders)}


def module_data(capability: str, symbol: str, module: str, *,
                members: bool = False) -> ModuleData:
    """One data module of a symbol from a module capability (``analysis`` or ``holders``):
    its record, and its raw members when ``members`` (v2 serves them). Modules are fetched
    one at a time, so a module without data is a "not found" of its own and each (symbol,
    module) pair is cached once for every endpoint that reads it."""
    modules, fetch = _MODULES[capability]
    if module not in modules:
        raise ValueError(f"{capability} serves no module {module!r}")
    return fetch(symbol, module, members=members)


def analysis(symbol: str, module: str, *, members: bool = False) -> ModuleData:
    """One analysis module (:data:`~marketdata.records.fundamentals.ANALYSIS_MODULES`)."""
    return module_data("analysis", symbol, module, members=members)


def holders(symbol: str, module: str, *, members: bool = False) -> ModuleData:
    """One holders module (:data:`~marketdata.records.fundamentals.HOLDERS_MODULES`)."""
    return module_data("holders", symbol, module, members=members)


@declare("calendar_events", "Earnings and dividend calendar (/v2/calendar)",
         Source("yahoo", f"{YAHOO} quoteSummary calendarEvents",
                fetcher="marketdata.providers.yahoo.calendar_events:fetch_calendar_events"))
def calendar_events(symbol: str) -> CalendarEvents:
    """A symbol's next earnings date and its dividend dates."""


@declare("financial_statements", "Financial statements (/v1/financials/{symbol})",
         Source("yahoo", f"{YAHOO} fundamentals-timeseries",
                fetcher="marketdata.providers.yahoo.fundamentals:fetch_statement"))
def financial_statement(symbol: str, statement: str, frequency: str) -> Statement:
    """One statement (:data:`~marketdata.records.fundamentals.STATEMENTS`) at one
    frequency (:data:`~marketdata.records.fundamentals.FREQUENCIES`), newest period first,
    field names as the source has them; NotFound when it has no value for any field."""


@declare("earnings_calls",
         "Earnings-call lists (/v1/earnings-transcript/{symbol}, "
         "/v2/earnings-transcript/{symbol}, /v2/transcripts/{symbol}[/all])",
         Source("yahoo", f"{YAHOO} earnings-calls page",
                fetcher=f"{YAHOO_TRANSCRIPTS}:fetch_earnings_calls"))
def earnings_calls(symbol: str) -> list[EarningsCall]:
    """A symbol's earnings calls, newest (fiscal year, quarter) first; NotFound when it has
    none."""


@declare("transcripts",
         "Earnings-call transcripts (/v1/earnings-transcript/{symbol}, "
         "/v2/earnings-transcript/{symbol}, /v2/transcripts/{symbol}[/all])",
         Source("yahoo", f"{YAHOO} transcripts (Quartr)",
                fetcher=f"{YAHOO_TRANSCRIPTS}:company_transcripts"))
def company_transcripts(symbol: str) -> CompanyTranscripts:
    """Where the company's call transcripts are read (its id at the supplier looked up
    now, once per request)."""
