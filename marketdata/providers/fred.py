"""FRED (St. Louis Fed): the observations of one economic series, two ways; and the
release calendar.

- ``fred_api`` (keyed, ``FRED_API_KEY``): ``GET https://api.stlouisfed.org/fred/series/
  observations?series_id={ID}&api_key={key}&file_type=json``, the full history as JSON
  ``{..., observations: [{realtime_start, realtime_end, date, value}]}``; a missing value is
  the string ``"."``.
- ``fred_graph`` (keyless): ``GET https://fred.stlouisfed.org/graph/fredgraph.csv?id={ID}``,
  the chart download: a CSV headed ``observation_date,{ID}`` (``DATE,{ID}`` on older
  answers); a missing value is ``.`` or an empty cell. Columns are found by header name.

- ``release_dates`` (keyed): ``GET https://api.stlouisfed.org/fred/releases/dates?
  realtime_start=&realtime_end=&include_release_dates_with_no_data=true&order_by=
  release_date&sort_order=asc&limit=1000&offset=&api_key=&file_type=json``, the dates
  every release is scheduled on, JSON ``{realtime_start, realtime_end, order_by,
  sort_order, count, offset, limit, release_dates: [{release_id, release_name, date}]}``
  (:func:`release_dates`, the ``economic_releases`` capability's keyed fetcher).

The series sources give :class:`~marketdata.records.macro.Observation` lists, oldest
first, values as floats or None: :func:`series_from_api` and :func:`series_from_graph` are
the fetchers of the ``macro_series`` capability, whose row picks the source (the API when
the key is set, the CSV when it is not or when the API fails or refuses the key).

How FRED answers trouble, and what it becomes here:
- the API says an unknown series is HTTP 400 ``{"error_code": 400, "error_message":
  "Bad Request.  The series does not exist."}`` (404 on older answers): NotFound;
- a bad or unregistered key is HTTP 400 with a message about ``api_key``, or 401/403:
  CredentialsRejected (the key is then not sent again for ``KEY_REFUSAL_MEMORY_SECONDS``,
  so a refused key costs one call, not one per request); 423 (FRED's "Locked", its rate
  limit) is a 429; other 4xx are 502;
- fredgraph.csv answers an unknown id with a 404 or an HTML page instead of a CSV: a 404
  is NotFound, and so is a page that plainly says the series does not exist or was not
  found; any other body that is not the expected CSV is a 502 (a maintenance page or a
  captive portal must not tell clients that DGS10 does not exist).

The key travels only in the query string of the API call, which the upstream client never
logs; no message built here carries a URL, the key or FRED's own text.
"""

from __future__ import annotations

import csv
import io
import math
import re
from typing import Any

from marketdata.cache import TTLPolicy
from marketdata.errors import (
    MarketDataError,
    NotFound,
    UpstreamBadResponse,
    UpstreamRateLimited,
)
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.providers.base import KeyedProvider
from marketdata.providers.registry import get_provider
from marketdata.records.calendars import EconomicRow, economic_rows
from marketdata.records.macro import (  # noqa: F401 - the id rule, re-exported
    MAX_SERIES_ID_LENGTH,
    Observation,
    normalize_series_id,
)
from marketdata.records.releases import ReleaseDate
from marketdata.symbols import display_symbol

PROVIDER = ProviderConfig(name="fred", display_name="FRED (St. Louis Fed)",
                          connect_timeout=3.0, read_timeout=10.0,
                          hosts=("api.stlouisfed.org", "fred.stlouisfed.org"))

API_URL = "https://api.stlouisfed.org/fred/series/observations"
GRAPH_URL = "https://fred.stlouisfed.org/graph/fredgraph.csv"
RELEASE_DATES_URL = "https://api.stlouisfed.org/fred/releases/dates"
API_ENDPOINT = "series_observations"
GRAPH_ENDPOINT = "fredgraph_csv"
RELEASE_DATES_ENDPOINT = "releases_dates"
# FRED's largest page of release dates, and how many pages one window may take.
RELEASE_DATES_PAGE = 1000
RELEASE_DATES_MAX_PAGES = 5

# Macro data changes at most daily (most series monthly or quarterly); markets don't matter.
MACRO_SERIES_TTL = TTLPolicy("macro_series", open=3600, extended=3600, closed=3600,
                             market_aware=False)
# Release schedules change a few times a year.
RELEASE_DATES_TTL = TTLPolicy("release_dates", open=21600, extended=21600, closed=21600,
                              market_aware=False)

_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}", re.ASCII)
# A plain decimal as FRED and Treasury write them (float() alone would take "1_0", "nan").
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?", re.ASCII)
_DATE_HEADERS = ("observation_date", "date")
# What FRED's pages say when a series is not there (fredgraph.csv for an unknown id).
_NOT_FOUND_PAGE = re.compile(
    r"series\s+(?:does\s+not\s+exist|not\s+found|could\s+not\s+be\s+found|is\s+not\s+"
    r"available)|<title>[^<]*(?:404|not\s+found)[^<]*</title>", re.IGNORECASE)


def _not_found(series_id: str) -> NotFound:
    return NotFound(f"Series not found: '{display_symbol(series_id)}'")


def parse_value(text: Any) -> float | None:
    """A value cell of FRED (or Treasury): a finite number, or None (``.``, blank, ``N/A``,
    anything else)."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        number = float(text)
    elif isinstance(text, str) and _DECIMAL.fullmatch(text.strip()):
        number = float(text.strip())
    else:
        return None
    return number if math.isfinite(number) else None


def _oldest_first(observations: list[Observation]) -> list[Observation]:
    # FRED sends ascending dates; sorting (stable) makes "oldest first" a guarantee.
    return sorted(observations, key=lambda o: o.date)


def parse_api_observations(payload: Any) -> list[Observation]:
    """The API's JSON body -> observations (oldest first). Rows without an ISO date are
    left out; a body without an ``observations`` list is a 502."""
    rows = payload.get("observations") if isinstance(payload, dict) else None
    if not isinstance(rows, list):
        raise PROVIDER.bad_answer("returned a body without an 'observations' list")
    out = [Observation(row["date"], parse_value(row.get("value")))
           for row in rows
           if isinstance(row, dict) and isinstance(row.get("date"), str)
           and _ISO_DATE.fullmatch(row["date"])]
    return _oldest_first(out)


def parse_release_dates(payload: Any) -> tuple[list[ReleaseDate], int]:
    """``/fred/releases/dates`` JSON -> (release dates in FRED's order, FRED's ``count``).

    Rows need an integer ``release_id``, a ``release_name`` and an ISO ``date``; others are
    left out. A body without a ``release_dates`` list is a 502."""
    rows = payload.get("release_dates") if isinstance(payload, dict) else None
    if not isinstance(rows, list):
        raise PROVIDER.bad_answer("returned a body without a 'release_dates' list")
    out = [ReleaseDate(row["release_id"], row["release_name"].strip(), row["date"])
           for row in rows
           if isinstance(row, dict) and isinstance(row.get("release_id"), int)
           and not isinstance(row["release_id"], bool)
           and isinstance(row.get("release_name"), str)
           and isinstance(row.get("date"), str) and _ISO_DATE.fullmatch(row["date"])]
    count = payload.get("count")
    return out, count if isinstance(count, int) and not isinstance(count, bool) else len(rows)


def _columns(header: list[str], series_id: str) -> tuple[int, int] | None:
    """(date column, value column) by header name, or None when the header is not FRED's.

    The date column is ``observation_date`` (today) or ``DATE`` (older answers); the value
    column is the one named after the series; when FRED decorates that name, the only
    other column is taken."""
    names = [name.strip().lstrip("\ufeff").lower() for name in header]
    date_at = next((names.index(n) for n in _DATE_HEADERS if n in names), None)
    if date_at is None:
        return None
    if series_id.lower() in names:
        return date_at, names.index(series_id.lower())
    others = [i for i in range(len(names)) if i != date_at]
    return (date_at, others[0]) if len(others) == 1 else None


def graph_says_not_found(text: str) -> bool:
    """Whether a fredgraph.csv answer that is not a CSV plainly says the series is unknown."""
    return bool(_NOT_FOUND_PAGE.search(text[:20000]))


def parse_graph_csv(text: str, series_id: str) -> list[Observation]:
    """fredgraph.csv -> observations (oldest first), columns by header name.

    An answer that is not FRED's CSV is NotFound when it says the series does not exist
    (see :func:`graph_says_not_found`), else a 502."""
    reader = csv.reader(io.StringIO(text.lstrip("\ufeff")))
    header = next(reader, None)
    columns = _columns(header, series_id) if header else None
    if columns is None:
        if graph_says_not_found(text):
            raise _not_found(series_id)
        raise PROVIDER.bad_answer("returned a download that is not the series' CSV")
    date_at, value_at = columns
    out: list[Observation] = []
    for row in reader:
        if len(row) <= max(date_at, value_at):
            continue
        day = row[date_at].strip()
        if _ISO_DATE.fullmatch(day):
            out.append(Observation(day, parse_value(row[value_at])))
    return _oldest_first(out)


def _api_error_message(response: UpstreamResponse) -> str:
    try:
        payload = response.json()
    except UpstreamBadResponse:
        return response.text[:2000]
    message = payload.get("error_message") if isinstance(payload, dict) else None
    return message if isinstance(message, str) else ""


class FredProvider(KeyedProvider):
    """Both FRED sources on one provider (one lane), each upstream endpoint with its own
    circuit breaker in the client. The key is sent only to the API (the graph download is
    called with ``auth=False``); its refusal is remembered by the keyed base."""

    config = PROVIDER
    key_setting = "FRED_API_KEY"

    def authenticate(self, params: dict[str, Any], headers: dict[str, str]) -> None:
        params["api_key"] = self.api_key

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        status = response.status
        if status < 400:
            return None
        if status == 423:  # FRED's "Locked": too many requests
            return UpstreamRateLimited(self.name, f"{self.display_name} rate limit exceeded",
                                       429)
        if endpoint in (API_ENDPOINT, RELEASE_DATES_ENDPOINT):
            message = _api_error_message(response).lower()
            if status in (401, 403) or (status == 400 and "api_key" in message):
                return self.key_rejected(status)
            if status == 404 or (status == 400 and "does not exist" in message):
                return NotFound(not_found or "Not found")
        elif status == 404:
            return NotFound(not_found or "Not found")
        return self.status_error(response, endpoint)

    # -- the two fetches ------------------------------------------------------------------
    def observations_from_api(self, series_id: str) -> list[Observation]:
        payload = self.get_json(API_ENDPOINT, API_URL,
                                {"series_id": series_id, "file_type": "json"},
                                not_found=_not_found(series_id).detail)
        return parse_api_observations(payload)

    def release_dates_from_api(self, start: str, end: str) -> list[ReleaseDate]:
        """Every release date FRED schedules from ``start`` to ``end`` (ISO), ascending:
        ``realtime_start``/``realtime_end`` bound the dates, pages of
        :data:`RELEASE_DATES_PAGE` followed by ``offset`` (at most
        :data:`RELEASE_DATES_MAX_PAGES`)."""
        out: list[ReleaseDate] = []
        for page in range(RELEASE_DATES_MAX_PAGES):
            payload = self.get_json(RELEASE_DATES_ENDPOINT, RELEASE_DATES_URL, {
                "realtime_start": start, "realtime_end": end,
                "include_release_dates_with_no_data": "true",
                "order_by": "release_date", "sort_order": "asc",
                "limit": RELEASE_DATES_PAGE, "offset": page * RELEASE_DATES_PAGE,
                "file_type": "json"})
            rows, count = parse_release_dates(payload)
            out += rows
            if (page + 1) * RELEASE_DATES_PAGE >= count or not rows:
                break
        return out

    def observations_from_graph(self, series_id: str) -> list[Observation]:
        response = self.get(GRAPH_ENDPOINT, GRAPH_URL, {"id": series_id}, auth=False,
                            not_found=_not_found(series_id).detail)
        return parse_graph_csv(response.text, series_id)


def fred_provider() -> FredProvider:
    return get_provider(PROVIDER.name)


def series_from_api(series_id: str) -> list[Observation]:
    """The series' observations from the keyed API, through the cache (``series_id``
    already normalised). Raises NotFound, CredentialsRejected or an UpstreamError."""
    provider = fred_provider()
    return provider.cached(API_ENDPOINT, {"id": series_id},
                           lambda: provider.observations_from_api(series_id),
                           MACRO_SERIES_TTL, group="macro")


def release_dates(start: str, end: str) -> list[ReleaseDate]:
    """FRED's release calendar from ``start`` to ``end`` (ISO dates) from the keyed API,
    through the cache (the ``economic_releases`` capability's keyed fetcher)."""
    provider = fred_provider()
    return provider.cached(RELEASE_DATES_ENDPOINT, {"start": start, "end": end},
                           lambda: provider.release_dates_from_api(start, end),
                           RELEASE_DATES_TTL, group="macro")


def series_from_graph(series_id: str) -> list[Observation]:
    """The series' observations from the keyless fredgraph.csv, through the cache."""
    provider = fred_provider()
    return provider.cached(GRAPH_ENDPOINT, {"id": series_id},
                           lambda: provider.observations_from_graph(series_id),
                           MACRO_SERIES_TTL, group="macro")


def economic_events(start: str, end: str) -> list[EconomicRow]:
    """The ``economic_calendar`` capability's keyed fallback: FRED's release calendar from
    ``start`` to ``end`` (the same cached call as ``economic_releases``), its major
    releases as the calendar's rows."""
    return economic_rows(release_dates(start, end))
