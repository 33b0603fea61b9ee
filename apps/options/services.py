"""Option chains: one expiry of a symbol's chain from the ``options`` capability, one or many
symbols, as records (their members are declared on them: :mod:`marketdata.records.options`,
and the batch's envelope here)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from apps.core.symbols import require_symbol
from marketdata.capabilities import options
from marketdata.concurrency import batch_by_symbol
from marketdata.records.batches import Batch
from marketdata.records.members import member
from marketdata.records.options import OptionChain


@dataclass(frozen=True)
class SymbolChain:
    """One item of a batch: a symbol as asked and its chain."""

    symbol: str = member()
    options: OptionChain = member()


@dataclass(frozen=True)
class ChainBatch(Batch):
    """The batch's answer: the chains served, in request order, and the symbols left out."""

    items: list[SymbolChain] = member(name="options")


def options_for(symbol_text: str, expiration: int | None = None) -> OptionChain:
    """The chain of one path value (a malformed symbol is a 404 without an upstream call)."""
    return options.chain(require_symbol(symbol_text), expiration)


def options_batch(symbols: Sequence[str], expiration: int | None = None) -> ChainBatch:
    """The chains of ``symbols``, and the symbols that could not be served, both in request
    order."""
    chains, errors = batch_by_symbol(lambda s: SymbolChain(s, options_for(s, expiration)),
                                     symbols, None, what="options")
    return ChainBatch(chains, errors)
