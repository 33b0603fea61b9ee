"""GET https://fred.stlouisfed.org/graph/fredgraph.csv?id={ID}: FRED's keyless download.

Answers ``observation_date,{ID}`` then one ``YYYY-MM-DD,value`` line per observation,
oldest first, an empty cell where there is no value (``text/csv``). ``cosd``/``coed``
(``YYYY-MM-DD``) bound the dates, as on FRED. One id per request.

FRED's answer for an unknown id was not recorded; the sandbox answers a 404 HTML page
saying the series does not exist (what the service treats as "not found"). No ``id`` is a
400 HTML page.
"""

from __future__ import annotations

from datetime import date

from marketdata.sandbox.common import Request, text_response
from marketdata.sandbox.fred import series
from marketdata.sandbox.response import SandboxResponse

CSV_TYPE = "text/csv; charset=UTF-8"
HTML_TYPE = "text/html; charset=UTF-8"


def page(title: str, text: str, status: int) -> SandboxResponse:
    return text_response(f"<!DOCTYPE html><html><head><title>{title} | FRED | St. Louis Fed"
                         f"</title></head><body><h1>{title}</h1><p>{text}</p></body></html>",
                         status, HTML_TYPE)


def _day(text: str | None) -> date | None:
    try:
        return date.fromisoformat(text) if text else None
    except ValueError:
        return None


def handle_graph_csv(req: Request) -> SandboxResponse:
    raw_id = req.arg("id")
    if not raw_id:
        return page("Bad Request", "A series id is required.", 400)
    series_id = series.normalize_series_id(raw_id)
    if not series.is_known_series(series_id):
        return page("404 Not Found", "Sorry, the series does not exist.", 404)
    rows = series.observations(series_id, req.clock(), _day(req.arg("cosd")),
                               _day(req.arg("coed")))
    places = series.decimals(series_id)
    lines = [f"observation_date,{series_id}"]
    lines.extend(f"{day},{'' if value is None else f'{value:.{places}f}'}"
                 for day, value in rows)
    return text_response("\n".join(lines) + "\n", 200, CSV_TYPE)
