"""GET /1/indexes/{index}?query=... and POST /1/indexes/{index}/query: the primary search
provider (an Algolia application with a securities index).

Why: the search endpoint asks Algolia first and falls back to Yahoo; both paths, and the
fallback itself, must run offline. Records are the sandbox's stocks, ETFs and funds (the
same matching as the Yahoo search sandbox) as ``{name, symbol, exchangeShortName, type,
objectID}`` with ``type`` stock/etf/trust, in Algolia's documented response shape
(``hits, nbHits, page, nbPages, hitsPerPage, exhaustiveNbHits, query, params,
processingTimeMS``). Parameters come from the query string (GET) or the JSON body (POST,
either as keys or as a URL-encoded ``params`` string); arrays are comma lists or JSON
arrays. ``attributesToRetrieve``, ``hitsPerPage`` (default 20, at most 1000), ``page`` and
``facetFilters`` (top-level entries ANDed, nested lists ORed, ``-`` negates) are honoured.

Authentication: without both the ``X-Algolia-Application-Id`` and ``X-Algolia-API-Key``
headers (or their query-parameter forms), or with a key containing ``INVALID`` or
``REVOKED``, the answer is Algolia's 403 ``{"message":"Invalid Application-ID or API
key","status":403}``, so the fallback can be exercised in sandbox mode.
"""

from __future__ import annotations

import json
import math
from typing import Any
from urllib.parse import parse_qs, urlencode

from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.instruments import EQUITY, ETF, MUTUALFUND, Instrument, stable_hash
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.search import all_instruments, match_instruments

TYPES = {EQUITY: "stock", ETF: "etf", MUTUALFUND: "trust"}
# Exchange short names as a securities list (FMP-style) spells them.
_EXCHANGES = {"NMS": "NASDAQ", "NGM": "NASDAQ", "NCM": "NASDAQ", "NAS": "NASDAQ",
              "NYQ": "NYSE", "PCX": "AMEX", "LSE": "LSE", "GER": "XETRA", "TOR": "TSX",
              "HKG": "HKSE", "JPX": "JPX", "ASX": "ASX", "PAR": "EURONEXT",
              "AMS": "EURONEXT", "EBS": "SIX", "MIL": "MIL", "IST": "IST", "JKT": "JKT"}
ATTRIBUTES = ("name", "symbol", "exchangeShortName", "type")


def error(message: str, status: int) -> SandboxResponse:
    """Algolia's error body: ``{"message": ..., "status": ...}``."""
    return json_response({"message": message, "status": status}, status)


def _authorised(req: Request) -> bool:
    app_id = req.headers.get("x-algolia-application-id") or req.arg("x-algolia-application-id")
    key = req.headers.get("x-algolia-api-key") or req.arg("x-algolia-api-key")
    if not app_id or not key:
        return False
    return not any(word in key.upper() for word in ("INVALID", "REVOKED"))


def _params(req: Request) -> dict[str, str]:
    """Search parameters from the query string, or from a POST body."""
    params = {k: v[-1] for k, v in req.query.items()
              if v and not k.lower().startswith("x-algolia-")}
    if req.method == "POST" and req.body:
        try:
            body = json.loads(req.body)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise ValueError("Invalid JSON body")
        if isinstance(body.get("params"), str):
            params.update({k: v[-1] for k, v in parse_qs(body["params"]).items()})
        params.update({k: v if isinstance(v, str) else json.dumps(v)
                       for k, v in body.items() if k != "params"})
    return params


def _array(text: str | None) -> list[Any] | None:
    """An Algolia array parameter: a JSON array or a comma list."""
    if text is None:
        return None
    text = text.strip()
    if text.startswith("["):
        value = json.loads(text)
        if not isinstance(value, list):
            raise ValueError("not an array")
        return value
    return [part.strip() for part in text.split(",") if part.strip()]


def _matches(record: dict[str, Any], facet: str) -> bool:
    negate = facet.startswith("-")
    attribute, _, value = facet.lstrip("-").partition(":")
    hit = str(record.get(attribute, "")).lower() == value.lower()
    return hit != negate


def _passes(record: dict[str, Any], filters: list[Any]) -> bool:
    for entry in filters:
        if isinstance(entry, list):
            if not any(_matches(record, str(f)) for f in entry):
                return False
        elif not _matches(record, str(entry)):
            return False
    return True


def record(inst: Instrument) -> dict[str, Any]:
    return {"name": inst.long_name or inst.short_name, "symbol": inst.symbol,
            "exchangeShortName": _EXCHANGES.get(inst.exchange.code, inst.exchange.code),
            "type": TYPES[inst.kind], "objectID": inst.symbol}


def handle_algolia_query(req: Request) -> SandboxResponse:
    if not _authorised(req):
        return error("Invalid Application-ID or API key", 403)
    try:
        params = _params(req)
        hits_per_page = int(params.get("hitsPerPage", 20))
        page = int(params.get("page", 0))
        filters = _array(params.get("facetFilters")) or []
        attributes = _array(params.get("attributesToRetrieve"))
    except ValueError as exc:
        return error(f"Invalid parameters: {exc}", 400)
    if not 0 <= hits_per_page <= 1000 or page < 0:
        return error("hitsPerPage must be between 0 and 1000, page at least 0", 400)
    query = params.get("query", "")
    found = match_instruments(query) if query.strip() else all_instruments()
    records = [record(i) for i in found if i.kind in TYPES]
    records = [r for r in records if _passes(r, filters)]
    shown = records[page * hits_per_page:(page + 1) * hits_per_page]
    if attributes is not None and "*" not in attributes:
        keep = {*map(str, attributes), "objectID"}
        shown = [{k: v for k, v in r.items() if k in keep} for r in shown]
    return json_response({
        "hits": shown,
        "nbHits": len(records),
        "page": page,
        "nbPages": math.ceil(len(records) / hits_per_page) if hits_per_page else 0,
        "hitsPerPage": hits_per_page,
        "exhaustiveNbHits": True,
        "exhaustiveTypo": True,
        "exhaustive": {"nbHits": True, "typo": True},
        "query": query,
        "params": urlencode(params),
        "processingTimeMS": 1 + stable_hash("algolia-ms", query) % 5,
    })
