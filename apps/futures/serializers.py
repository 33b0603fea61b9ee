"""Query declaration of GET /v2/futures/{symbol}; its answer is the record
:class:`~marketdata.records.quotes.FuturesQuote`."""

from __future__ import annotations

from apps.core.v2 import FieldsQuery


class V2FuturesQuery(FieldsQuery):
    """Only ``fields``: the contract is the path."""
