"""Query declaration of GET /v2/forex/{from}/{to} and /v2/currencies; their answers are the
records :class:`~marketdata.records.quotes.ForexQuote` and
:class:`~marketdata.records.market.CurrencyInfo`."""

from __future__ import annotations

from apps.core.v2 import FieldsQuery


class V2ForexQuery(FieldsQuery):
    """Only ``fields``: the pair is the path."""


# The example of the currencies' answer (its members are the record's).
CURRENCIES_EXAMPLE = [{"symbol": "MXN", "shortName": "MXN", "longName": "Mexican Peso",
                       "localLongName": "Mexican Peso"}]
