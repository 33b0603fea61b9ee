"""GET /v1/finance/lookup?query=...&type=...&start=0&count=...: instruments by name or symbol.

Why: ``/v2/lookup`` reads this answer. No recording of it exists; the shape is the one
clients of the endpoint read: ``{"finance": {"result": [{"start", "count", "total",
"documents": [...]}], "error": null}}``, each document ``{symbol, shortName, exchange,
quoteType (lower case), rank, industryName, industryLink}`` (the last two for equities) and,
with ``fetchPricingData=true``, ``regularMarketPrice``, ``regularMarketChange`` and
``regularMarketPercentChange`` (percent units), bare numbers unless ``formatted=true``. No
``longName`` and no previous close, as on Yahoo: the service fills those from a quote batch.

Matches come from the search sandbox's universe and rules
(:func:`marketdata.sandbox.yahoo.search.match_instruments`), limited to ``type`` unless it
is ``all``; prices are the simulator's, so they agree with the quote endpoint.
"""

from __future__ import annotations

from typing import Any

from marketdata.sandbox.instruments import EQUITY, Instrument
from marketdata.sandbox.prices import get_series
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo import fmt
from marketdata.sandbox.yahoo.common import Request, finance_error, json_response
from marketdata.sandbox.yahoo.market import market_view
from marketdata.sandbox.yahoo.quote import quote_values
from marketdata.sandbox.yahoo.search import match_instruments

MAX_COUNT = 100
TYPES = {"all": None, "equity": "EQUITY", "mutualfund": "MUTUALFUND", "etf": "ETF",
         "index": "INDEX", "future": "FUTURE", "currency": "CURRENCY",
         "cryptocurrency": "CRYPTOCURRENCY"}
_PRICES = (("regularMarketPrice", "regularMarketPrice"),
           ("regularMarketChange", "regularMarketChange"),
           ("regularMarketPercentChange", "regularMarketChangePercent"))


def _document(inst: Instrument, rank: int, now: int, pricing: bool,
              formatted: bool) -> dict[str, Any]:
    doc: dict[str, Any] = {"symbol": inst.symbol, "shortName": inst.short_name,
                           "exchange": inst.exchange.code, "quoteType": inst.kind.lower(),
                           "rank": rank}
    if inst.kind == EQUITY and inst.industry:
        slug = "-".join(inst.industry.lower().replace("&", " ").replace("-", " ").split())
        doc["industryName"] = inst.industry
        doc["industryLink"] = f"https://finance.yahoo.com/sectors/{slug}"
    if pricing:
        values = quote_values(market_view(get_series(inst), now))
        for name, source in _PRICES:
            value = values.get(source)
            if value is not None:
                doc[name] = fmt.render(fmt.price(value, inst.price_hint), formatted)
    return doc


def handle_lookup(req: Request) -> SandboxResponse:
    query = req.arg("query")
    if query is None or not query.strip():
        return finance_error("Bad Request", "Missing required query parameter: query", 400)
    kind_name = (req.arg("type") or "all").lower()
    if kind_name not in TYPES:
        return finance_error("Bad Request", f"Invalid type: {kind_name}", 400)
    kind = TYPES[kind_name]
    start = max(0, req.int_arg("start", 0) or 0)
    count = max(0, min(MAX_COUNT, req.int_arg("count", 25) or 0))
    pricing = (req.arg("fetchPricingData") or "").lower() == "true"
    formatted = (req.arg("formatted") or "").lower() == "true"
    found = [inst for inst in match_instruments(query) if kind is None or inst.kind == kind]
    now = req.now()
    documents = [_document(inst, 20_000 - 10 * (start + i), now, pricing, formatted)
                 for i, inst in enumerate(found[start:start + count])]
    return json_response({"finance": {"result": [{
        "start": start, "count": len(documents), "total": len(found),
        "documents": documents}], "error": None}})
