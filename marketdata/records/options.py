"""Option chains: one expiry of an underlying's listed options, whoever served it.

Units: prices in the contract's ``currency``, per share (a ``REGULAR`` contract is 100
shares); times in Unix seconds; values as the source sends them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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


# -- analytics: greeks and the implied-volatility surface (apps.options.analytics) ---------
_FRACTION = "A fraction (0.25 is 25 %)"


@dataclass(frozen=True)
class ContractGreeks:
    """One contract's greeks at the implied volatility used (null where it has none)."""

    contract_symbol: str | None = member("OCC symbol, e.g. `AAPL250228C00110000`")
    type: Literal["call", "put"] = member("Call or put", always=True)
    strike: float | None = member(_PER_SHARE, always=True)
    moneyness: float | None = member("Strike over the underlying's price, K/S")
    bid: float | None = member(_PER_SHARE)
    ask: float | None = member(_PER_SHARE)
    mid: float | None = member(f"(bid + ask) / 2, null without a two-sided quote. {_PER_SHARE}")
    last_price: float | None = member(f"Price of the last trade. {_PER_SHARE}")
    implied_volatility: float | None = member(
        f"The volatility the greeks are computed at. {_FRACTION}, annualised (ACT/365)")
    iv_source: Literal["mid", "yahoo"] | None = member(
        "`mid`: solved from the mid under the model; `yahoo`: Yahoo's when the mid cannot "
        "be solved; null: neither (the greeks are null)")
    model_price: float | None = member(
        f"The model's price at that volatility. {_PER_SHARE}")
    delta: float | None = member("Change in price per 1 unit of the underlying's price")
    gamma: float | None = member("Change in delta per 1 unit of the underlying's price")
    theta: float | None = member(f"Change in price per calendar day (ACT/365). {_PER_SHARE}")
    vega: float | None = member(f"Change in price per 1 volatility point (0.01). {_PER_SHARE}")
    rho: float | None = member(f"Change in price per 1 rate point (0.01). {_PER_SHARE}")
    open_interest: int | None = member("Contracts outstanding")
    volume: int | None = member("Contracts traded in the session")


@dataclass(frozen=True)
class ChainGreeks:
    """The greeks of one expiry of a chain and what they were computed from."""

    symbol: str = member("The underlying", always=True)
    expiration: int | None = member(
        "The expiry served, Unix seconds (00:00 UTC of the expiry day); null when none is "
        "listed", always=True)
    expiration_dates: list[int] = member("Every listed expiry, Unix seconds, ascending")
    underlying_price: float | None = member("The underlying's last price (Yahoo's quote)")
    time_to_expiry: float | None = member(
        "Years (ACT/365) from `asOf` to 16:00 America/New_York on the expiry day")
    risk_free_rate: float | None = member(
        f"Continuously compounded, {_FRACTION}: the Treasury par curve of `rateDate` "
        "interpolated linearly in tenor at `timeToExpiry` (README, options analytics)")
    rate_date: str | None = member("Business day of the Treasury par curve used (YYYY-MM-DD)")
    dividend_yield: float | None = member(
        f"Continuous, {_FRACTION}: ln(1 + the quote's annual dividend yield)")
    style: Literal["european", "american"] = member(
        "Exercise style: European for index options, American for equities and ETFs")
    model: Literal["black-scholes-merton", "bjerksund-stensland-2002"] = member(
        "The pricing model of the style")
    as_of: int = member("When the greeks were computed, Unix seconds")
    contracts: list[ContractGreeks] = member()


@dataclass(frozen=True)
class SurfacePoint:
    """One point of the implied-volatility grid."""

    expiration: int = member("Unix seconds (00:00 UTC of the expiry day)")
    time_to_expiry: float = member("Years (ACT/365) to 16:00 America/New_York on that day")
    moneyness: float = member("Strike over the underlying's price, K/S")
    implied_volatility: float | None = member(
        f"{_FRACTION}; null outside the strikes the expiry quotes (no extrapolation)")


@dataclass(frozen=True)
class SurfaceExpiry:
    """One expiry of the surface: its at-the-money volatility and 25-delta skew."""

    expiration: int = member("Unix seconds (00:00 UTC of the expiry day)")
    time_to_expiry: float = member("Years (ACT/365) to 16:00 America/New_York on that day")
    risk_free_rate: float | None = member(f"Continuously compounded at that expiry, {_FRACTION}")
    contracts: int = member("Contracts of the expiry the liquidity rules kept, solved")
    atm_volatility: float | None = member(
        f"Implied volatility at K/S = 1, {_FRACTION}; null when the strikes do not straddle it")
    skew_25_delta: float | None = member(
        "IV of the 25-delta put minus IV of the 25-delta call, in volatility (0.03 is 3 "
        "points); null when either side does not straddle its 25 delta",
        name="skew25Delta")


@dataclass(frozen=True)
class VolatilitySurface:
    """Implied volatility over expirations x moneyness from a chain's liquid contracts."""

    symbol: str = member("The underlying", always=True)
    underlying_price: float | None = member("The underlying's last price (Yahoo's quote)")
    dividend_yield: float | None = member(
        f"Continuous, {_FRACTION}: ln(1 + the quote's annual dividend yield)")
    rate_date: str | None = member("Business day of the Treasury par curve used (YYYY-MM-DD)")
    style: Literal["european", "american"] = member(
        "Exercise style: European for index options, American for equities and ETFs")
    model: Literal["black-scholes-merton", "bjerksund-stensland-2002"] = member(
        "The model the volatilities are implied under")
    as_of: int = member("When the surface was computed, Unix seconds")
    moneyness: list[float] = member("The grid's columns, K/S ascending")
    expirations: list[SurfaceExpiry] = member()
    grid: list[SurfacePoint] = member()
