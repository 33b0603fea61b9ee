"""Disclosures of one symbol: fails-to-deliver balances and congressional trades, from the
``fails_to_deliver`` and ``congressional_trades`` capabilities."""

from __future__ import annotations

from apps.core.symbols import require_symbol
from marketdata.capabilities import disclosures
from marketdata.records.disclosures import CongressionalTrade, FailToDeliver


def fails_to_deliver_for(symbol_text: str, months: int) -> list[FailToDeliver]:
    """The balances of one path value (a malformed symbol is a 404 without an upstream
    call), newest settlement day first."""
    return disclosures.fails_to_deliver(require_symbol(symbol_text), months)


def congressional_trades_for(symbol_text: str) -> list[CongressionalTrade]:
    """The disclosed trades of one path value, newest transaction first."""
    return disclosures.congressional_trades(require_symbol(symbol_text))
