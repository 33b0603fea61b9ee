"""Short selling: a symbol's daily short sale volume and its short interest.

Source: FINRA only, keyless (its daily Reg SHO short sale volume files, its Query API's
consolidated short interest); no keyed source serves either more completely.
"""

from __future__ import annotations

from datetime import date, datetime

from marketdata.capabilities.table import Source, declare
from marketdata.records.short import ShortInterest, ShortVolume


@declare("short_volume", "Daily short sale volume (/v2/short/{symbol}/volume)",
         Source("finra", "FINRA's daily short sale volume files (cdn.finra.org)",
                fetcher="marketdata.providers.finra:short_volume"))
def short_volume(symbol: str, venue: str, start: date, end: date,
                 at: datetime) -> ShortVolume:
    """A validated symbol's short sale volume in ``venue``'s daily files (``all``: every
    facility's) for the trading days of ``[start, end]`` closed by ``at``, newest first;
    days whose file is not out or failed are named in ``notices``."""


@declare("short_interest", "Short interest (/v2/short/{symbol}/interest)",
         Source("finra", "FINRA's consolidated short interest (Query API, api.finra.org)",
                fetcher="marketdata.providers.finra:short_interest"))
def short_interest(symbol: str, start: date, end: date) -> ShortInterest:
    """A validated symbol's short interest at each settlement date of ``[start, end]``,
    newest first; NotFound when FINRA has none."""
