"""Company fundamentals: the data modules of the analysis and holders endpoints, calendar
events, financial statements, earnings calls and their transcripts.

Sources: the rows ``analysis``, ``holders``, ``calendar_events``, ``financial_statements``,
``earnings_calls`` and ``transcripts`` of :mod:`marketdata.capabilities.table` (Yahoo
Finance for each, today). Callers pass validated symbols; a source's "not found" (unknown
symbol, no data) is raised as it said it.
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.records.fundamentals import (
    ANALYSIS_MODULES,
    HOLDERS_MODULES,
    CalendarEvents,
    CompanyTranscripts,
    EarningsCall,
    ModuleData,
    Statement,
)

# The data modules each module capability serves.
_MODULES = {"analysis": ANALYSIS_MODULES, "holders": HOLDERS_MODULES}


def module_data(capability: str, symbol: str, module: str, *,
                members: bool = False) -> ModuleData:
    """One data module of a symbol from a module capability (``analysis`` or ``holders``):
    its record, and its raw members when ``members`` (v2 serves them). Modules are fetched
    one at a time, so a module without data is a "not found" of its own and each (symbol,
    module) pair is cached once for every endpoint that reads it."""
    if module not in _MODULES[capability]:
        raise ValueError(f"{capability} serves no module {module!r}")
    data: ModuleData = call(capability, symbol, module, members=members)
    return data


def analysis(symbol: str, module: str, *, members: bool = False) -> ModuleData:
    """One analysis module (:data:`~marketdata.records.fundamentals.ANALYSIS_MODULES`)."""
    return module_data("analysis", symbol, module, members=members)


def holders(symbol: str, module: str, *, members: bool = False) -> ModuleData:
    """One holders module (:data:`~marketdata.records.fundamentals.HOLDERS_MODULES`)."""
    return module_data("holders", symbol, module, members=members)


def calendar_events(symbol: str) -> CalendarEvents:
    """A symbol's next earnings date and its dividend dates."""
    events: CalendarEvents = call("calendar_events", symbol)
    return events


def financial_statement(symbol: str, statement: str, frequency: str) -> Statement:
    """One statement (:data:`~marketdata.records.fundamentals.STATEMENTS`) at one
    frequency (:data:`~marketdata.records.fundamentals.FREQUENCIES`), newest period first,
    field names as the source has them; NotFound when it has no value for any field."""
    periods: Statement = call("financial_statements", symbol, statement, frequency)
    return periods


def earnings_calls(symbol: str) -> list[EarningsCall]:
    """A symbol's earnings calls, newest (fiscal year, quarter) first; NotFound when it has
    none."""
    calls: list[EarningsCall] = call("earnings_calls", symbol)
    return calls


def company_transcripts(symbol: str) -> CompanyTranscripts:
    """Where the company's call transcripts are read (its id at the supplier looked up
    now, once per request)."""
    transcripts: CompanyTranscripts = call("transcripts", symbol)
    return transcripts
