"""v2 disclosures of a symbol: fails-to-deliver and congressional trades."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.v2 import V2ApiView, connection_schema, order_note
from apps.disclosures.serializers import V2CongressionalTradesQuery, V2FailsToDeliverQuery
from apps.disclosures.services import congressional_trades_for, fails_to_deliver_for
from marketdata.records.disclosures import CongressionalTrade, FailToDeliver

TAG = "Filings (v2)"


@route("v2/filings/<str:symbol>/fails-to-deliver", name="v2-fails-to-deliver")
class V2FailsToDeliverView(V2ApiView):
    __doc__ = """Fails-to-deliver balances of a security: `[{symbol, date, quantity, price, name,
    description, cusip}]`, newest settlement day first.

    Each item is one settlement day's aggregate balance of shares that failed to be
    delivered in NSCC's Continuous Net Settlement system (a running balance, not the day's
    new fails), with the previous day's close. Sources: Financial Modeling Prep's
    `/api/v4/fail_to_deliver` when `FMP_API_KEY` is set (when it refuses the key or fails,
    the SEC files answer); otherwise, keyless, the SEC's published files (two a month,
    each out about two weeks after its half month ends, each read once and kept a week).
    `months` (1..12, default 3) is the window: the latest `2 * months` published files, and
    FMP's rows cut to the same settlement days. A valid symbol without fails in the window
    gives `[]` (the files list only securities with a balance, so an unknown ticker cannot
    be told apart); a malformed one is a 404. `cursor`/`limit` page the items; `fields`
    applies to each item.

    """ + order_note("desc", "balances (by settlement day)")

    query_serializer = V2FailsToDeliverQuery
    response_schema = connection_schema(
        record_schema(FailToDeliver, "One settlement day's fails-to-deliver balance"),
        "balances, newest settlement day first (`order=desc`, the default) or oldest first "
        "(`order=asc`)")
    csv_table = ""
    output = record_output(FailToDeliver, paged=("",))
    operation_id, tag = "get_fails_to_deliver", TAG
    summary = "Fails-to-deliver of a security"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(fails_to_deliver_for(symbol, self.params["months"]))


@route("v2/filings/<str:symbol>/congressional-trades", name="v2-congressional-trades")
class V2CongressionalTradesView(V2ApiView):
    __doc__ = """Trades in a security disclosed by members of Congress (STOCK Act periodic
    transaction reports): `[{symbol, chamber, firstName, lastName, office, district,
    tradeType, amount, assetDescription, assetType, owner, transactionDate, disclosureDate,
    link}]`, newest transaction first.

    Source: Financial Modeling Prep's `/stable/senate-trades` and `/stable/house-trades`
    (`chamber` says which), and only with `FMP_API_KEY`: no keyless source with documented
    programmatic access publishes these trades, so without the key the answer is a 501
    naming the setting (and `/v2/health` says so). `amount` is the disclosed range as a
    string; every member but `symbol` and `chamber` may be null. A symbol without trades
    gives `[]`; a malformed one is a 404. `cursor`/`limit` page the items; `fields` applies
    to each item.

    """ + order_note("desc", "trades (by transaction date)")

    query_serializer = V2CongressionalTradesQuery
    response_schema = connection_schema(
        record_schema(CongressionalTrade, "One trade a member of Congress disclosed"),
        "trades, newest transaction first (`order=desc`, the default) or oldest first "
        "(`order=asc`)")
    extra_responses = {501: "Not configured: `FMP_API_KEY` is not set (the only source)"}
    csv_table = ""
    output = record_output(CongressionalTrade, paged=("",))
    operation_id, tag = "get_congressional_trades", TAG
    summary = "Congressional trades in a security"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(congressional_trades_for(symbol))
