"""A fund's portfolio: the SEC's N-PORT report where EDGAR has one for the ticker, else
Yahoo's top holdings (the ``fund_holdings`` and ``fund_top_holdings`` capabilities)."""

from __future__ import annotations

import dataclasses

from apps.core.symbols import require_symbol
from marketdata.capabilities import funds
from marketdata.errors import NotServed
from marketdata.records.funds import DEFAULT_TOP, FundPortfolio


def holdings_for(symbol_text: str, top: int = DEFAULT_TOP) -> FundPortfolio:
    """The portfolio of one path value (a malformed symbol is a 404 without an upstream
    call), its ``top`` largest holdings listed apart. Yahoo is asked only when the SEC
    source has no N-PORT for the ticker (NotServed), never because EDGAR failed."""
    symbol = require_symbol(symbol_text)
    try:
        portfolio = funds.fund_holdings(symbol)
    except NotServed:
        portfolio = funds.fund_top_holdings(symbol)
    if top != DEFAULT_TOP:
        portfolio = dataclasses.replace(portfolio, top=portfolio.holdings[:top])
    return portfolio
