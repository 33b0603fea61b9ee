"""Option chains: one expiry of an underlying's listed options, whoever served it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# The members of one contract, in the order they are shown (Yahoo's).
CONTRACT_MEMBERS = ("contractSymbol", "strike", "currency", "lastPrice", "change",
                    "percentChange", "volume", "openInterest", "bid", "ask", "contractSize",
                    "expiration", "lastTradeDate", "impliedVolatility", "inTheMoney")
CONTRACT_NUMBERS = ("strike", "lastPrice", "change", "percentChange", "bid", "ask",
                    "impliedVolatility")
CONTRACT_INTEGERS = ("volume", "openInterest", "expiration", "lastTradeDate")
CONTRACT_STRINGS = ("contractSymbol", "currency", "contractSize")
CONTRACT_BOOLEANS = ("inTheMoney",)


@dataclass(frozen=True)
class OptionChain:
    """The listed expiries of an underlying (Unix seconds, ascending), the expiry served
    (None when none is listed) with its strikes (ascending) and its contracts, each a
    mapping of :data:`CONTRACT_MEMBERS` (None where the source sends nothing)."""

    symbol: str
    expiration_dates: list[int]
    expiration_date: int | None
    strikes: list[float]
    calls: list[dict[str, Any]]
    puts: list[dict[str, Any]]
