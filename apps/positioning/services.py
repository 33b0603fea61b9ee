"""v2 weekly positioning: the CFTC Commitments of Traders of one futures contract, through
:mod:`marketdata.capabilities.macro`."""

from __future__ import annotations

from apps.core.symbols import require_symbol
from marketdata.capabilities import macro
from marketdata.records.macro import Commitments, cot_lookup


def cot_for(symbol_text: str) -> Commitments:
    """``{symbol, contractMarketCode, marketAndExchangeName, observations}`` with the
    observations oldest first as a bare list (the view pages them).

    A malformed symbol or one that is neither a contract market code nor a curated root is
    a 404 before any upstream call; a code with no rows in either report is a 404 too.
    """
    return macro.cot(cot_lookup(require_symbol(symbol_text)))
