from rest_framework import serializers

from apps.core.params import QuerySerializer, SymbolParam, choice
from apps.core.shapes import record_schema
from apps.historical.services import HistoricalData
from marketdata.records.bars import INTERVALS, RANGES


class HistoricalQuery(QuerySerializer):
    symbol = SymbolParam(help_text="Ticker symbol, e.g. AAPL, BRK-B, ^GSPC, EURUSD=X; "
                         "a malformed one is an unknown symbol (404)")
    range = choice(RANGES, help_text="Time range")
    interval = choice(INTERVALS, help_text="Bar interval (see the compatibility table)")
    epoch = serializers.BooleanField(required=False, default=False,
                                     help_text="Key bars by epoch seconds instead of dates")


# The response is a map keyed by date (or epoch seconds), each value a bar.
HISTORICAL_RESPONSE = {
    "type": "object",
    "description": "Bars keyed by date, wall time or epoch seconds; newest first",
    "additionalProperties": record_schema(HistoricalData),
    "example": {"2025-02-21": {"open": 245.95, "high": 248.69, "low": 245.22, "close": 245.55,
                               "adjClose": 245.55, "volume": 53197431}},
}
