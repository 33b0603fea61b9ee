"""v2 chart endpoints: one chart, a batch of charts, capital gains (one symbol or many)."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response

from apps.charts.serializers import (
    V2CapitalGainsBatchQuery,
    V2CapitalGainsQuery,
    V2ChartQuery,
    V2ChartsQuery,
    V2DividendsBatchQuery,
    V2DividendsQuery,
    V2SparkQuery,
    V2SplitsBatchQuery,
    V2SplitsQuery,
)
from apps.charts.services import (
    Candle,
    CapitalGain,
    CapitalGainsBatch,
    Chart,
    ChartEvents,
    ChartsBatch,
    DatedAmount,
    DividendAnalytics,
    Dividends,
    DividendsBatch,
    SparkBatch,
    SparkLine,
    Split,
    SplitsBatch,
    SymbolCapitalGains,
    SymbolChart,
    SymbolDividends,
    SymbolSplits,
    capital_gains_batch,
    capital_gains_for,
    chart_for,
    chart_json,
    charts_for,
    dividends_batch,
    dividends_for,
    sparks_for,
    splits_batch,
    splits_for,
)
from apps.core.routing import route
from apps.core.shapes import record_output, record_schema
from apps.core.tabular import Table
from apps.core.v2 import V2ApiView, connection_schema, order_note
from marketdata.indicators.patterns import PATTERNS

TAG = "Charts (v2)"
EVENTS_TAG = "Corporate actions (v2)"
_RANGE_RULE = ("kept when within `range` back from now (1d, 5d: days; 1mo: 30 days; 3mo: "
               "90; 6mo: 180; 1y: 365; 2y: 730; 5y: 1825; 10y: 3650; ytd: since Jan 1 UTC; "
               "max, the default: all)")
_COMPAT = ("Interval/range compatibility: 1m: 1d, 5d; 2m/5m/15m/30m/90m: 1d, 5d, 1mo; 1h: "
           "1d, 5d, 1mo, 3mo, 6mo, ytd, 1y; range max needs interval 1mo or 3mo. Other "
           "combinations: 400.")
_PATTERNS = ("Patterns (`patterns=true`), one name per candle, null for none; when several "
             "match, the first of this list wins (3-bar, then 2-bar, then 1-bar): "
             + ", ".join(PATTERNS) + ". Thresholds: marketdata/indicators/patterns.py.")

# The answers' objects (their members declared on the records, apps.charts.services).
_CAPITAL_GAIN = record_schema(CapitalGain, "One capital gain distribution", required=False)
_CAPITAL_GAINS = {"type": "array", "items": _CAPITAL_GAIN,
                  "description": "Capital gain distributions, oldest first"}
_AMOUNT = record_schema(DatedAmount)
_DIVIDEND = record_schema(DatedAmount, "One dividend: its ex-date (Unix seconds) and the "
                          "amount per share")
_PAYMENT = {**_DIVIDEND, "type": ["object", "null"]}
_SPLIT = record_schema(Split)
_SPLITS = {"type": "array", "items": _SPLIT, "description": "Stock splits, oldest first"}
_SERVED = "One entry per served symbol, in request order"
_NEWEST_FIRST = "oldest first (`order=asc`, the default) or newest first (`order=desc`)"
_CANDLE = record_schema(Candle, "One bar, values as Yahoo sent them (a null volume is 0)")
_PATTERN = {"type": ["string", "null"], "description": "Candlestick pattern completed on this "
            "candle, null for none: " + ", ".join(PATTERNS)}
_EVENTS = {**record_schema(ChartEvents, "Corporate events within the chart's window, oldest "
                           "first (only with `events=true`)",
                           nested={"dividends": {"type": "array", "items": _AMOUNT},
                                   "splits": {"type": "array", "items": _SPLIT},
                                   "capitalGains": {"type": "array", "items": _AMOUNT}}),
           "type": ["object", "null"]}


def _chart_schema(paged: bool) -> dict[str, Any]:
    """GqlChart; ``paged``: candles (and patterns) may come as connections."""
    if paged:
        candles = connection_schema(_CANDLE, f"candles, {_NEWEST_FIRST}")
        patterns = connection_schema(_PATTERN, "pattern names (same page as candles)")
    else:
        candles = {"type": "array", "items": _CANDLE}
        patterns = {"type": "array", "items": _PATTERN}
    described = "Only with `patterns=true`: one entry per candle. "
    return record_schema(Chart, "GqlChart; `fields` selects these members", required=False,
                         nested={"candles": candles, "events": _EVENTS, "patterns": {
                             **patterns, "description": described
                             + patterns.get("description", "")}})


@route("v2/chart/<str:symbol>", name="v2-chart")
class V2ChartView(V2ApiView):
    __doc__ = f"""OHLCV candles of one symbol with Yahoo's chart meta (GqlChart).

    Candles are oldest first, values exactly as Yahoo sent them: bars without an open,
    high, low or close are left out, a missing volume is 0, `adjClose` is null where Yahoo
    has none (intraday). A window without bars gives `candles: []`.

    The window is `range` back from now, or, with `start` (Unix seconds), the absolute
    window `start`..`end` (`end` defaults to now; `range` is then ignored and null in the
    answer). `end` without `start`, or `start` not before `end`, is a 400; so is an
    intraday window further back than Yahoo keeps (1m: 30 days and at most 8 days long;
    2m..90m: 60 days; 1h: 730 days). {_COMPAT}

    `events=true` adds `events: {{dividends: [{{timestamp, amount}}], splits: [{{timestamp,
    numerator, denominator, ratio}}], capitalGains: [{{timestamp, amount}}]}}`, oldest first,
    the events within the chart's window. {_PATTERNS}

    `cursor`/`limit` page the candles; `patterns` is paged the same way (the same
    positions and cursors), so `patterns.nodes[i]` belongs to `candles.nodes[i]`. Without
    either both are bare arrays. `fields` selects top-level members.

    """ + order_note("asc", "candles (and `patterns` with them)")

    query_serializer = V2ChartQuery
    response_schema = _chart_schema(paged=True)
    csv_table = Table("candles", parallel=("patterns",))
    output = record_output(Chart, paged=("candles", "patterns"))
    operation_id, tag = "get_chart", TAG
    summary = "Chart of one symbol"

    def get(self, request: Request, symbol: str) -> Response:
        q = self.params
        return self.answer(chart_json(chart_for(
            symbol, q["interval"], q["range"], start=q.get("start"), end=q.get("end"),
            events=q["events"], patterns=q["patterns"])))


@route("v2/charts", name="v2-charts")
class V2ChartsView(V2ApiView):
    __doc__ = f"""Charts of many symbols: `{{charts, errors}}`.

    `charts` holds `{{symbol, chart}}` items in request order (duplicates removed); each
    `chart` is a GqlChart as `/v2/chart/{{symbol}}` gives it for `range`/`interval`, with its
    candles (and `patterns`) always as bare arrays. Symbols that cannot be served are listed
    in `errors` (`{{symbol, message}}`, request order). When no symbol can be served because
    of an upstream failure, that failure's status is returned. `cursor`/`limit` page over
    the symbols. `fields` selects the members of each chart (`symbol` and `chart` are
    always present). No `events` here. {_COMPAT} {_PATTERNS}"""

    query_serializer = V2ChartsQuery
    response_schema = record_schema(ChartsBatch, nested={
        "charts": connection_schema(
            record_schema(SymbolChart, nested={"chart": _chart_schema(paged=False)}),
            "`{symbol, chart}` items (request order)")})
    output = record_output(Chart, at=("charts", "chart"), paged=("charts",))
    operation_id, tag = "get_charts_batch", TAG
    summary = "Charts of many symbols"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(chart_json(charts_for(q["symbols"], q["interval"], q["range"],
                                                 patterns=q["patterns"])))


@route("v2/capital-gains/<str:symbol>", name="v2-capital-gains")
class V2CapitalGainsView(V2ApiView):
    __doc__ = """Capital gain distributions of one symbol (a fund), oldest first: `[{amount,
    timestamp}]`.

    From Yahoo's chart events over the symbol's whole history, kept when within `range`
    back from now (1d, 5d: days; 1mo: 30 days; 3mo: 90; 6mo: 180; 1y: 365; 2y: 730; 5y:
    1825; 10y: 3650; ytd: since Jan 1 UTC; max: all). A symbol without capital gains (most
    stocks, many funds) gives `[]`; an unknown symbol is a 404. `fields` applies to each
    item. Not paged.

    """ + order_note("asc", "capital gains (by distribution date)")

    query_serializer = V2CapitalGainsQuery
    response_schema = {**_CAPITAL_GAINS,
                       "description": f"Capital gain distributions, {_NEWEST_FIRST}"}
    csv_table = ""
    output = record_output(CapitalGain, ordered=("",))
    operation_id, tag = "get_capital_gains", TAG
    summary = "Capital gains of one symbol"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(capital_gains_for(symbol, self.params["range"]))


@route("v2/capital-gains", name="v2-capital-gains-batch")
class V2CapitalGainsBatchView(V2ApiView):
    """Capital gain distributions of many symbols: `{capitalGains: [{symbol,
    capitalGains: [{amount, timestamp}]}], errors}`.

    Items in request order (duplicates removed), each list oldest first and cut to `range`
    as `/v2/capital-gains/{symbol}` does. Symbols that cannot be served (unknown,
    upstream failure) are listed in `errors`; when none can be served because of an
    upstream failure, that failure's status is returned. `fields` applies to each capital
    gain (`symbol` and `capitalGains` are always present). Not paged."""

    query_serializer = V2CapitalGainsBatchQuery
    response_schema = record_schema(CapitalGainsBatch, nested={
        "capitalGains": {"type": "array", "description": _SERVED,
                         "items": record_schema(SymbolCapitalGains,
                                                nested={"capitalGains": _CAPITAL_GAINS})}})
    csv_table = Table("capitalGains", each="capitalGains", carry=("symbol",))
    output = record_output(CapitalGain, at=("capitalGains", "capitalGains"))
    operation_id, tag = "get_capital_gains_batch", TAG
    summary = "Capital gains of many symbols"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(capital_gains_batch(q["symbols"], q["range"]))


@route("v2/dividends/<str:symbol>", name="v2-dividends")
class V2DividendsView(V2ApiView):
    __doc__ = f"""Dividends of one symbol and their totals: `{{dividends: [{{timestamp,
    amount}}], analytics: {{totalPaid, paymentCount, averagePayment, cagr, lastPayment,
    firstPayment}}}}`.

    From the chart's dividend events over the symbol's whole history (`timestamp`: the
    ex-date, Unix seconds; `amount` per share, adjusted for later splits as the chart
    has it), oldest first, {_RANGE_RULE}. `analytics` covers every dividend in the range,
    whatever the page: the sum and mean exact in the amounts' decimals; `cagr` is
    `(last / first) ^ (1 / years) - 1` with years of 365.25 days, null unless every amount
    is positive and the first and last are at least a year apart. A symbol that pays none
    gives `dividends: []` and zero totals; an unknown symbol is a 404. `cursor`/`limit` page
    the dividends; `fields` selects `dividends` and `analytics`.

    """ + order_note("asc", "dividends (by ex-date)")

    query_serializer = V2DividendsQuery
    response_schema = record_schema(
        Dividends, "Dividends of one symbol; `fields` selects these members", required=False,
        nested={"dividends": connection_schema(_DIVIDEND, f"dividends, {_NEWEST_FIRST}"),
                "analytics": record_schema(
                    DividendAnalytics, "Totals over the dividends within `range` (all of them, "
                    "whatever the page)",
                    nested={"lastPayment": _PAYMENT, "firstPayment": _PAYMENT})})
    csv_table = "dividends"
    output = record_output(Dividends, paged=("dividends",))
    operation_id, tag = "get_dividends", EVENTS_TAG
    summary = "Dividends of one symbol"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(dividends_for(symbol, self.params["range"]))


@route("v2/dividends", name="v2-dividends-batch")
class V2DividendsBatchView(V2ApiView):
    __doc__ = f"""Dividends of many symbols: `{{dividends: [{{symbol, dividends: [{{timestamp,
    amount}}]}}], errors}}`.

    Items in request order (duplicates removed), each list oldest first and {_RANGE_RULE}.
    Symbols that cannot be served are listed in `errors` (`{{symbol, message}}`); when none
    can be served because of an upstream failure, that failure's status is returned. No
    analytics here (`/v2/dividends/{{symbol}}` has them). `cursor`/`limit` page over the
    symbols; `fields` applies to each dividend (`symbol` and `dividends` are always
    present)."""

    query_serializer = V2DividendsBatchQuery
    response_schema = record_schema(DividendsBatch, nested={
        "dividends": connection_schema(
            record_schema(SymbolDividends,
                          nested={"dividends": {"type": "array", "items": _DIVIDEND}}),
            "`{symbol, dividends}` items (request order)")})
    csv_table = Table("dividends", each="dividends", carry=("symbol",))
    output = record_output(DatedAmount, at=("dividends", "dividends"), paged=("dividends",))
    operation_id, tag = "get_dividends_batch", EVENTS_TAG
    summary = "Dividends of many symbols"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(dividends_batch(q["symbols"], q["range"]))


@route("v2/splits/<str:symbol>", name="v2-splits")
class V2SplitsView(V2ApiView):
    __doc__ = f"""Stock splits of one symbol, oldest first: `[{{timestamp, numerator,
    denominator, ratio}}]`.

    From the chart's split events over the symbol's whole history (`timestamp`: the
    ex-date, Unix seconds; a 4-for-1 split is `numerator` 4, `denominator` 1, `ratio`
    `"4:1"`; a reverse split has the larger denominator), {_RANGE_RULE}. A symbol that never
    split gives `[]`; an unknown symbol is a 404. `fields` applies to each split. Not
    paged.

    """ + order_note("asc", "splits (by ex-date)")

    query_serializer = V2SplitsQuery
    response_schema = {**_SPLITS, "description": f"Stock splits, {_NEWEST_FIRST}"}
    csv_table = ""
    output = record_output(Split, ordered=("",))
    operation_id, tag = "get_splits", EVENTS_TAG
    summary = "Stock splits of one symbol"

    def get(self, request: Request, symbol: str) -> Response:
        return self.answer(splits_for(symbol, self.params["range"]))


@route("v2/splits", name="v2-splits-batch")
class V2SplitsBatchView(V2ApiView):
    __doc__ = f"""Stock splits of many symbols: `{{splits: [{{symbol, splits: [...]}}],
    errors}}`.

    Items in request order (duplicates removed), each list oldest first and {_RANGE_RULE}.
    Symbols that cannot be served are listed in `errors`; when none can be served because
    of an upstream failure, that failure's status is returned. `fields` applies to each
    split (`symbol` and `splits` are always present). Not paged."""

    query_serializer = V2SplitsBatchQuery
    response_schema = record_schema(SplitsBatch, nested={
        "splits": {"type": "array", "description": _SERVED,
                   "items": record_schema(SymbolSplits, nested={"splits": _SPLITS})}})
    csv_table = Table("splits", each="splits", carry=("symbol",))
    output = record_output(Split, at=("splits", "splits"))
    operation_id, tag = "get_splits_batch", EVENTS_TAG
    summary = "Stock splits of many symbols"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(splits_batch(q["symbols"], q["range"]))


@route("v2/spark", name="v2-spark")
class V2SparkView(V2ApiView):
    __doc__ = f"""Closes of many symbols over one window, for sparklines: `{{sparks: [{{symbol,
    meta, timestamps, closes, interval, range}}], errors}}`.

    From Yahoo's spark (one request per 20 symbols, the most Yahoo takes): `meta` is the
    chart meta of `/v2/chart/{{symbol}}`; `timestamps` and `closes` are oldest first and
    always the same length (a bar without a close is left out together with its
    timestamp). Items in request order (duplicates removed); symbols that are malformed or
    that Yahoo does not return are listed in `errors`; an upstream failure fails the whole
    batch (its status is the answer). `fields` selects the members of each spark. Not
    paged. {_COMPAT}"""

    query_serializer = V2SparkQuery
    response_schema = record_schema(SparkBatch, nested={
        "sparks": {"type": "array",
                   "items": record_schema(SparkLine, "Closes of one symbol; `fields` selects "
                                          "these members"), "description": _SERVED}})
    output = record_output(SparkLine, at=("sparks",))
    operation_id, tag = "get_spark", TAG
    summary = "Sparklines of many symbols"

    def get(self, request: Request) -> Response:
        q = self.params
        return self.answer(sparks_for(q["symbols"], q["interval"], q["range"]))
