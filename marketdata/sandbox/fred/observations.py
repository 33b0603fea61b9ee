"""GET https://api.stlouisfed.org/fred/series/observations: FRED's keyed API.

Parameters honoured: ``api_key`` (required), ``series_id`` (required), ``file_type``
(``json``; anything else answers FRED's XML), ``observation_start``/``observation_end``
(``YYYY-MM-DD``), ``sort_order`` (asc, desc), ``limit`` (1..100000, default 100000) and
``offset``. ``units``, ``frequency``, ``aggregation_method`` and the real-time period are
accepted and ignored (levels only, as published today).

Answers, in FRED's shapes: ``{realtime_start, realtime_end, observation_start,
observation_end, units, output_type, file_type, order_by, sort_order, count, offset,
limit, observations: [{realtime_start, realtime_end, date, value}]}`` with values as
strings (``"."`` where there is none). Errors are FRED's ``{"error_code", "error_message"}``
(XML ``<error code message/>`` for other file types), HTTP 400:
- no ``api_key``: "Bad Request.  Variable api_key has not been set.";
- a key containing ``INVALID``: "Bad Request.  The value for variable api_key is not
  registered.  Read ...": the way FRED refuses an unregistered key (any other key is
  accepted);
- no ``series_id``: "Bad Request.  Variable series_id is not set.";
- an unknown id (``series.is_known_series``): "Bad Request.  The series does not exist.";
- a malformed date, order, limit or offset: FRED's wording for that variable.
"""

from __future__ import annotations

from datetime import date
from typing import Any
from xml.sax.saxutils import quoteattr

from marketdata.sandbox.common import Request, json_response, text_response
from marketdata.sandbox.fred import series
from marketdata.sandbox.response import SandboxResponse

JSON_TYPE = "application/json; charset=UTF-8"
XML_TYPE = "text/xml; charset=UTF-8"
KEY_HELP = "Read https://fred.stlouisfed.org/docs/api/api_key.html for more information."
MAX_LIMIT = 100000


def error(message: str, status: int = 400, json: bool = True) -> SandboxResponse:
    """FRED's error body: JSON ``{error_code, error_message}`` or XML ``<error/>``."""
    if json:
        return json_response({"error_code": status, "error_message": message}, status,
                             headers={"Content-Type": JSON_TYPE})
    return text_response(f'<?xml version="1.0" encoding="utf-8" ?>\n<error code="{status}" '
                         f'message={quoteattr(message)}/>\n', status, XML_TYPE)


def _day(text: str | None) -> date | None:
    return date.fromisoformat(text) if text else None


def _value_text(value: float | None, decimals: int) -> str:
    return "." if value is None else f"{value:.{decimals}f}"


def handle_observations(req: Request) -> SandboxResponse:
    as_json = req.arg("file_type") == "json"
    key = req.arg("api_key")
    if not key:
        return error("Bad Request.  Variable api_key has not been set.", json=as_json)
    if "INVALID" in key.upper():
        return error(f"Bad Request.  The value for variable api_key is not registered.  "
                     f"{KEY_HELP}", json=as_json)
    raw_id = req.arg("series_id")
    if not raw_id:
        return error("Bad Request.  Variable series_id is not set.", json=as_json)
    series_id = series.normalize_series_id(raw_id)
    if not series.is_known_series(series_id):
        return error("Bad Request.  The series does not exist.", json=as_json)
    try:
        start = _day(req.arg("observation_start"))
        end = _day(req.arg("observation_end"))
    except ValueError:
        return error("Bad Request.  Variable observation_start or observation_end is not a "
                     "valid date in the format YYYY-MM-DD.", json=as_json)
    order = req.arg("sort_order") or "asc"
    if order not in ("asc", "desc"):
        return error("Bad Request.  Variable sort_order is not one of the values: 'asc', "
                     "'desc'.", json=as_json)
    limit = req.int_arg("limit", MAX_LIMIT)
    offset = req.int_arg("offset", 0)
    if limit is None or not 1 <= limit <= MAX_LIMIT:
        return error("Bad Request.  Variable limit is not between 1 and 100000.",
                     json=as_json)
    if offset is None or offset < 0:
        return error("Bad Request.  Variable offset is not a non-negative integer.",
                     json=as_json)
    now = req.clock()
    today = now.date().isoformat()
    rows = series.observations(series_id, now, start, end)
    if order == "desc":
        rows.reverse()
    shown = rows[offset:offset + limit]
    places = series.decimals(series_id)
    payload: dict[str, Any] = {
        "realtime_start": today, "realtime_end": today,
        "observation_start": (start or date(1776, 7, 4)).isoformat(),
        "observation_end": (end or date(9999, 12, 31)).isoformat(),
        "units": "lin", "output_type": 1, "file_type": "json" if as_json else "xml",
        "order_by": "observation_date", "sort_order": order, "count": len(rows),
        "offset": offset, "limit": limit,
        "observations": [{"realtime_start": today, "realtime_end": today, "date": day,
                          "value": _value_text(value, places)} for day, value in shown],
    }
    if as_json:
        return json_response(payload, headers={"Content-Type": JSON_TYPE})
    return text_response(_xml(payload), 200, XML_TYPE)


def _xml(payload: dict[str, Any]) -> str:
    head = " ".join(f"{k}={quoteattr(str(v))}" for k, v in payload.items()
                    if k != "observations")
    rows = "".join("  <observation " + " ".join(f"{k}={quoteattr(v)}" for k, v in o.items())
                   + "/>\n" for o in payload["observations"])
    return f'<?xml version="1.0" encoding="utf-8" ?>\n<observations {head}>\n{rows}' \
           "</observations>\n"
