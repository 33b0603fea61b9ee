"""FINRA's route table and its simulated provider (hosts ``cdn.finra.org`` and
``api.finra.org``).

- ``GET /equity/regsho/daily/{PREFIX}shvol{YYYYMMDD}.txt``: a daily short sale volume file
  (``files.py``); a 403 AccessDenied when there is none (a future day, a day without a
  session, before 18:00 ET, an unknown prefix), as FINRA's CDN answers.
- ``POST /data/group/otcMarket/name/consolidatedShortInterest``: the Query API's records
  (``interest.py``), JSON with ``Accept: application/json``, else CSV; a 400 for a body it
  cannot read.

Any other path gets the CDN's 403 AccessDenied (one answer for both hosts: the service
asks the API only for the route above).
"""

from __future__ import annotations

import csv
import io
import re
from datetime import date
from typing import Any

import orjson

from marketdata.sandbox.common import BASE_HEADERS, Request, json_response, text_response
from marketdata.sandbox.finra import files, interest
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse

HOSTS = ("cdn.finra.org", "api.finra.org")
MAX_LIMIT = 5000  # the Query API's synchronous page at most


def access_denied() -> SandboxResponse:
    """S3's answer for a key that does not exist (behind FINRA's CDN: 403, not 404)."""
    body = ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code>'
            "<Message>Access Denied</Message></Error>")
    return text_response(body, 403, content_type="application/xml")


def api_error(status: int, message: str) -> SandboxResponse:
    return json_response({"statusCode": status, "message": message}, status)


def handle_daily_file(req: Request) -> SandboxResponse:
    prefix, stamp = req.params["prefix"], req.params["day"]
    try:
        day = date(int(stamp[:4]), int(stamp[4:6]), int(stamp[6:]))
    except ValueError:
        return access_denied()
    if prefix not in files.PREFIXES or not files.published(day, req.clock()):
        return access_denied()
    return SandboxResponse(200, {**BASE_HEADERS, "Content-Type": "text/plain"},
                           files.file_text(prefix, day).encode("ascii"))


def _day(value: Any) -> date | None:
    try:
        return date.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


class BadQuery(ValueError):
    pass


def _query(body: bytes) -> tuple[dict[str, str], date | None, date | None, int, int,
                                 list[str]]:
    """(EQUAL filters, range start, range end, limit, offset, fields) of a request body."""
    try:
        query = orjson.loads(body) if body.strip() else {}
    except orjson.JSONDecodeError:
        raise BadQuery("The request body is not JSON") from None
    if not isinstance(query, dict):
        raise BadQuery("The request body must be a JSON object")
    equal: dict[str, str] = {}
    for item in query.get("compareFilters") or []:
        if not isinstance(item, dict) or item.get("compareType", "").upper() != "EQUAL":
            raise BadQuery("Only EQUAL compare filters are simulated")
        equal[str(item.get("fieldName"))] = str(item.get("fieldValue"))
    start = end = None
    for item in query.get("dateRangeFilters") or []:
        if not isinstance(item, dict) or item.get("fieldName") != "settlementDate":
            raise BadQuery("Date range filters apply to settlementDate")
        start, end = _day(item.get("startDate")), _day(item.get("endDate"))
        if start is None or end is None:
            raise BadQuery("startDate and endDate must be YYYY-MM-DD")
    limit, offset = query.get("limit", MAX_LIMIT), query.get("offset", 0)
    if not isinstance(limit, int) or not isinstance(offset, int) or not 0 < limit <= MAX_LIMIT \
            or offset < 0:
        raise BadQuery(f"limit must be 1..{MAX_LIMIT} and offset not negative")
    fields = query.get("fields") or list(interest.FIELDS)
    unknown = [f for f in fields if f not in interest.FIELDS]
    if unknown:
        raise BadQuery(f"Unknown fields: {', '.join(map(str, unknown))}")
    for name in equal:
        if name not in interest.FIELDS:
            raise BadQuery(f"Unknown field: {name}")
    return equal, start, end, limit, offset, fields


def handle_short_interest(req: Request) -> SandboxResponse:
    try:
        equal, start, end, limit, offset, fields = _query(req.body)
    except BadQuery as exc:
        return api_error(400, str(exc))
    symbols = (equal["symbolCode"],) if "symbolCode" in equal else None
    rows = [row for row in interest.records(symbols, start, end, req.clock())
            if all(str(row.get(name)) == value for name, value in equal.items())]
    page = [{name: row[name] for name in fields} for row in rows[offset:offset + limit]]
    if "application/json" in req.headers.get("accept", ""):
        return json_response(page)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(fields)
    writer.writerows([["" if row[name] is None else row[name] for name in fields]
                      for row in page])
    return text_response(out.getvalue(), content_type="text/plain")


ROUTES = (
    Route(("GET",), re.compile(r"/equity/regsho/daily/(?P<prefix>[A-Z]{4})shvol"
                               r"(?P<day>\d{8})\.txt"), handle_daily_file),
    Route(("POST",), re.compile(r"/data/group/(?i:otcMarket)/name/consolidatedShortInterest"),
          handle_short_interest),
)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    """An injected fault: the CDN's plain text for a file, the API's JSON otherwise."""
    if route is not None and route.handler is handle_daily_file:
        return text_response(description, status)
    return api_error(status, description)


def _not_found() -> SandboxResponse:
    return access_denied()


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """FINRA: stateless and keyless; the clock decides what is published."""
    return SimulatedProvider(name="finra", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=_not_found)
