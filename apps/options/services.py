"""Option chains: one expiry of a symbol's chain from the ``options`` capability, one or many
symbols."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from apps.core.symbols import require_symbol
from marketdata.capabilities import options
from marketdata.concurrency import batch_by_symbol
from marketdata.records.options import OptionChain

MEMBERS = ("symbol", "expirationDates", "expirationDate", "strikes", "calls", "puts")


def chain_body(chain: OptionChain) -> dict[str, Any]:
    return {"symbol": chain.symbol, "expirationDates": chain.expiration_dates,
            "expirationDate": chain.expiration_date, "strikes": chain.strikes,
            "calls": chain.calls, "puts": chain.puts}


def options_for(symbol_text: str, expiration: int | None = None) -> dict[str, Any]:
    """The chain of one path value (a malformed symbol is a 404 without an upstream call)."""
    return chain_body(options.chain(require_symbol(symbol_text), expiration))


def options_batch(symbols: Sequence[str], expiration: int | None = None,
                  ) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """``[{symbol, options}]`` and ``[{symbol, message}]``, both in request order."""
    return batch_by_symbol(lambda s: options_for(s, expiration), symbols, "options",
                           what="options")
