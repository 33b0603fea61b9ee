"""Short selling of one symbol: its daily short sale volume and its short interest, from the
``short_volume`` and ``short_interest`` capabilities (FINRA)."""

from __future__ import annotations

from datetime import date, datetime

from apps.core.symbols import require_symbol
from marketdata.capabilities import short
from marketdata.records.short import ShortInterest, ShortVolume


def short_volume_for(symbol_text: str, venue: str, start: date, end: date,
                     at: datetime) -> ShortVolume:
    """The rows of one path value (a malformed symbol is a 404 without an upstream call),
    newest day first."""
    return short.short_volume(require_symbol(symbol_text), venue, start, end, at)


def short_interest_for(symbol_text: str, start: date, end: date) -> ShortInterest:
    """The settlements of one path value, newest first."""
    return short.short_interest(require_symbol(symbol_text), start, end)
