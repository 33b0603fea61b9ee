"""v2 option chains (one symbol, and a batch), their greeks and their implied-volatility
surface."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.tabular import Table
from apps.core.v2 import V2ApiView, connection_schema
from apps.options.analytics import greeks_for, surface_for
from apps.options.serializers import (
    V2GreeksQuery,
    V2OptionsBatchQuery,
    V2OptionsQuery,
    V2SurfaceQuery,
)
from apps.options.services import ChainBatch, SymbolChain, options_batch, options_for
from marketdata.records.options import (
    ChainGreeks,
    ContractGreeks,
    OptionChain,
    OptionContract,
    VolatilitySurface,
)

TAG = "Options (v2)"
CONTRACT_SCHEMA = record_schema(OptionContract, "One option contract, every member Yahoo "
                                "sends (null where it sends none)")


def chain_schema(paged: bool) -> dict[str, Any]:
    """One expiry of a chain, its sides paged (connections) or bare arrays."""

    def side(what: str) -> dict[str, Any]:
        if not paged:
            return {"type": "array", "items": CONTRACT_SCHEMA,
                    "description": f"{what} by strike"}
        listed = connection_schema(CONTRACT_SCHEMA, "contracts by strike")
        return {**listed, "description": f"{what} by strike. {listed['description']}"}

    return record_schema(OptionChain, "One expiry of an option chain; `fields` selects these "
                         "members", required=False,
                         nested={"calls": side("Calls"), "puts": side("Puts")})


@route("v2/options/<str:symbol>", name="v2-options")
class V2OptionsView(V2ApiView):
    """One expiry of a symbol's option chain: `{symbol, expirationDates, expirationDate,
    strikes, calls, puts}`.

    From Yahoo's v7 options: every listed expiry (Unix seconds, 00:00 UTC of the expiry
    day), the expiry served (`date`, else the nearest), its strikes, and its calls and puts
    by strike with every member Yahoo sends, values as sent (`impliedVolatility` a
    fraction). An underlying without listed options (a currency, crypto, most indices) gives
    empty lists and a null `expirationDate`; a `date` that is not listed gives that date
    with empty sides; an unknown or malformed symbol is a 404. `cursor`/`limit` page the
    calls and the puts together (the same positions); `fields` selects members."""

    query_serializer = V2OptionsQuery
    response_schema = chain_schema(paged=True)
    output = record_output(OptionChain, paged=("calls", "puts"))
    operation_id, tag = "get_options", TAG
    summary = "Option chain of one symbol"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(options_for(symbol, self.params.get("date")))


@route("v2/options", name="v2-options-batch")
class V2OptionsBatchView(V2ApiView):
    """Option chains of many symbols, one expiry each (`date`, else each one's nearest):
    `{options: [{symbol, options}], errors}`.

    Items in request order (duplicates removed), each `options` as `/v2/options/{symbol}`
    gives it, with bare `calls` and `puts`. Symbols that cannot be served are listed in
    `errors`; when none can be served because of an upstream failure, that failure's
    status is returned. `cursor`/`limit` page over the symbols; `fields` selects the
    members of each chain (`symbol` and `options` are always present)."""

    query_serializer = V2OptionsBatchQuery
    response_schema = record_schema(ChainBatch, nested={
        "options": connection_schema(
            record_schema(SymbolChain, nested={"options": chain_schema(paged=False)}),
            "`{symbol, options}` items (request order)")})
    output = record_output(OptionChain, at=("options", "options"), paged=("options",))
    operation_id, tag = "get_options_batch", TAG
    summary = "Option chains of many symbols"

    def get(self, request: Request) -> Response:
        return self.answer(options_batch(self.params["symbols"], self.params.get("date")))


GREEKS_SCHEMA = record_schema(ChainGreeks, "Greeks of one expiry; `fields` selects these "
                              "members", required=False, nested={"contracts": connection_schema(
                                  record_schema(ContractGreeks, "One contract's greeks"),
                                  "contracts by strike, a call before the put of its strike")})


@route("v2/options/<str:symbol>/greeks", name="v2-options-greeks")
class V2OptionGreeksView(V2ApiView):
    """The greeks of one expiry of a symbol's chain: for each contract delta, gamma, theta
    (per calendar day), vega (per volatility point), rho (per rate point), the model price
    and the implied volatility used, with what they were computed from.

    Model by exercise style: Black-Scholes-Merton for European-style index options (`^`
    symbols, SPX, NDX, RUT, VIX...), Bjerksund-Stensland 2002 for American equity and ETF
    options (its greeks the model price's exact derivatives). The volatility is solved from
    the mid under the model, else Yahoo's where it is a real value, else none (null
    greeks). The rate is the Treasury par curve interpolated at the time to expiry
    (continuous), the dividend yield the quote's (continuous); time to expiry in years
    (ACT/365) to 16:00 New York on the expiry day. Conventions: README, "Options
    analytics".

    `expiration` (else the nearest), `type`, `strikes` and a `moneyness` window select the
    contracts; `cursor`/`limit` page them; `format=csv` gives the contracts as a table. A
    malformed or unknown symbol is a 404; bad parameters a 400 before any upstream call."""

    query_serializer = V2GreeksQuery
    response_schema = GREEKS_SCHEMA
    output = record_output(ChainGreeks, paged=("contracts",))
    operation_id, tag = "get_option_greeks", TAG
    summary = "Greeks of one expiry of an option chain"
    csv_table = Table("contracts")

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        window = q.get("moneyness")
        return self.answer(greeks_for(symbol, q.get("expiration"), kind=q.get("type"),
                                      strikes=q.get("strikes"),
                                      moneyness=(window[0], window[1]) if window else None))


@route("v2/options/<str:symbol>/surface", name="v2-options-surface")
class V2VolatilitySurfaceView(V2ApiView):
    """The implied-volatility surface of a symbol's options: a grid of expirations x
    moneyness (K/S), the at-the-money volatility and the 25-delta skew per expiry.

    From the first `expirations` listed expiries (one chain each). Liquidity rules: a
    contract with no bid, a crossed quote or a spread over 50 % of its mid is dropped; the
    volatility is solved from the mid (never Yahoo's). Per expiry the smile is the
    out-of-the-money side (puts below K/S = 1, calls from it), interpolated linearly in
    K/S, null outside the strikes quoted (no extrapolation); the 25-delta skew is the put's
    volatility minus the call's at 25 delta (Black-Scholes-Merton deltas). `format=csv`
    gives the grid, one row per expiry and moneyness."""

    query_serializer = V2SurfaceQuery
    response_schema = record_schema(VolatilitySurface, "The surface; `fields` selects these "
                                    "members", required=False)
    output = record_output(VolatilitySurface)
    operation_id, tag = "get_volatility_surface", TAG
    summary = "Implied-volatility surface of a symbol's options"
    csv_table = Table("grid")

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        return self.answer(surface_for(symbol, expirations=q["expirations"],
                                       moneyness=q["grid"]))
