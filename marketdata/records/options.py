"""Option chains: one expiry of an underlying's listed options, whoever served it.

Units: prices in the contract's ``currency``, per share (a ``REGULAR`` contract is 100
shares); times in Unix seconds; values as the source sends them.
"""

from __future__ import annotations

from dataclasses import dataclass

from marketdata.records.members import member

_PER_SHARE = "Per share, in `currency`"


@dataclass(frozen=True)
class OptionContract:
    """One option contract, every member Yahoo sends in its order, None where the source
    sends nothing."""

    contract_symbol: str | None = member("OCC symbol, e.g. `AAPL250228C00110000`")
    strike: float | None = member(_PER_SHARE)
    currency: str | None = member("ISO 4217 code of the prices")
    last_price: float | None = member(f"Price of the last trade. {_PER_SHARE}")
    change: float | None = member("In the option's currency (premium), absolute")
    percent_change: float | None = member("Percent units: 1.5 is 1.5%")
    volume: int | None = member("Contracts traded in the session")
    open_interest: int | None = member("Contracts outstanding")
    bid: float | None = member(_PER_SHARE)
    ask: float | None = member(_PER_SHARE)
    contract_size: str | None = member("`REGULAR` (100 shares), or `MINI`")
    expiration: int | None = member("Expiry, Unix seconds (00:00 UTC of the expiry day)")
    last_trade_date: int | None = member("Unix seconds of the last trade")
    implied_volatility: float | None = member("A fraction (0.25 is 25 %), as Yahoo sends it")
    in_the_money: bool | None = member("Whether the strike is in the money at the underlying's "
                                        "price")


@dataclass(frozen=True)
class OptionChain:
    """The listed expiries of an underlying (ascending), the expiry served (None when none
    is listed) with its strikes (ascending) and its contracts by strike."""

    symbol: str = member("The underlying")
    expiration_dates: list[int] = member("Every listed expiry, Unix seconds, ascending")
    expiration_date: int | None = member("The expiry served (null when none is listed)")
    strikes: list[float] = member("The strikes of the expiry served, ascending")
    calls: list[OptionContract] = member()
    puts: list[OptionContract] = member()
