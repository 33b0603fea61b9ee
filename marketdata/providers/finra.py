"""FINRA: the keyless source of ``/v2/short/{symbol}/volume`` and
``/v2/short/{symbol}/interest``.

**Daily short sale volume files** (``cdn.finra.org``). One text file per trading day and
facility (:data:`~marketdata.records.short.VENUES`), public and keyless:
``https://cdn.finra.org/equity/regsho/daily/{PREFIX}shvol{YYYYMMDD}.txt``. Pipe-delimited:
a header ``Date|Symbol|ShortVolume|ShortExemptVolume|TotalVolume|Market`` (before
2011-02-28 without ShortExemptVolume: columns are read by the header's names), one line
per security, and a last line giving the number of records (a trailer, skipped, as is any
line without an 8-digit date or a symbol). Dates are ``YYYYMMDD``; volumes are shares,
with decimals where fractional shares traded; Market is the facility code, or the codes of
every facility that reported, comma-separated, in the consolidated file (``B,Q,N``).
Symbols are written as the exchanges list them, dots and dashes included (``BRK.B``), so a
symbol is looked up as asked and with the other separator (``BRK-B`` finds ``BRK.B``).

Each file lists every security that traded that day (the consolidated one about 11,000
lines, ~330 KB), so it is fetched once per day and venue, whoever asks, and parsed in one
pass over its lines (no data frame). A published file does not change (FINRA marks the rare
correction "Updated"), so the cache keeps it: as one entry of its rows only
(``SYMBOL|short|exempt|total|market``, zlib-compressed: :func:`pack_rows`), about a third of
the file: 131 KB for a generated consolidated file of 11,000 securities (387 KB), 158 KB
when a third of its volumes are fractional (433 KB); kept :data:`FILE_TTL` (a week;
:data:`RECENT_FILE_TTL`, six hours, for the last five days, in case of an update). The byte
budget: a body over :data:`MAX_FILE_BYTES` is refused (a 502, never parsed), which bounds an
entry too; the windows' caps bound what one request brings in (90 days of one
venue: at most 63 entries, ~8-10 MB; 30 days of every facility: at most 5 x 22 entries,
the facility files being smaller). A request reads an entry and finds the symbol's line in
it (:func:`find_row`: one decompression and one search, never the file as objects).

FINRA's CDN answers a file that does not exist, which is today's until FINRA posts it (by 6
pm ET) or a day without trading, with **403** (S3's AccessDenied) or 404: both mean "not
published" (a NotFound), remembered only briefly by the cache, and the day is
left out of the answer with a notice. Weekends and exchange holidays are never asked for
(the NYSE calendar, :func:`marketdata.records.short.volume_sessions`). Files are fetched
concurrently, at most :data:`FILE_FAN_OUT` at a time, within the request deadline; days
whose file fails are left out with a notice, and when every file failed that failure is the
answer (502/503/504 naming FINRA).

**Short interest** (``api.finra.org``, FINRA's Query API, dataset ``otcMarket`` /
``consolidatedShortInterest``: every exchange-listed and OTC security). Its public datasets
need no credentials. One POST with a JSON body: the symbol as an ``EQUAL`` compare filter
on ``symbolCode``, the window as a date range filter on ``settlementDate``, the fields, a
``limit`` and an ``offset`` (pages of :data:`INTEREST_PAGE` rows until a short page);
``Accept: application/json`` (FINRA answers CSV otherwise). Sorting is not asked for
(FINRA refuses ``sortFields`` unless every partition field is pinned): rows are sorted
here. No rows (a ``[]`` or an empty 204) for the symbol as asked and with the other
separator is a 404.
"""

from __future__ import annotations

import io
import zlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

import orjson

from marketdata import markets
from marketdata.cache import TTLPolicy
from marketdata.concurrency import gather_partial
from marketdata.errors import MarketDataError, NotFound
from marketdata.http import ProviderConfig, UpstreamResponse
from marketdata.logs import get_logger
from marketdata.providers.base import Provider
from marketdata.providers.registry import get_provider
from marketdata.records import short as records
from marketdata.records.short import (
    FACILITIES,
    VENUES,
    ShortInterest,
    ShortInterestRow,
    ShortVolume,
    ShortVolumeRow,
    Venue,
)

log = get_logger("marketdata.providers.finra")

PROVIDER = ProviderConfig(name="finra", display_name="FINRA", connect_timeout=3.0,
                          read_timeout=8.0, max_attempts=2, max_concurrency=6,
                          hosts=("cdn.finra.org", "api.finra.org"))

FILE_URL = "https://cdn.finra.org/equity/regsho/daily/{prefix}shvol{day:%Y%m%d}.txt"
INTEREST_URL = "https://api.finra.org/data/group/otcMarket/name/consolidatedShortInterest"
FILE_ENDPOINT = "daily_file"
INTEREST_ENDPOINT = "short_interest"

# A file older than this is as published for good; a newer one may still be updated.
RECENT_FILE_DAYS = 5
FILE_TTL = TTLPolicy("finra_file", open=604800, extended=604800, closed=604800,
                     market_aware=False)
RECENT_FILE_TTL = TTLPolicy("finra_recent_file", open=21600, extended=21600, closed=21600,
                            market_aware=False)
# Published twice a month; six hours keeps a new publication's delay short.
INTEREST_TTL = TTLPolicy("finra_interest", open=21600, extended=21600, closed=21600,
                         market_aware=False)
# The consolidated file is ~330 KB, the ORF's the largest; a body 50x that is no such file.
MAX_FILE_BYTES = 16 * 1024 * 1024
# Files in flight at once for one request (the provider's lane allows as many).
FILE_FAN_OUT = 6
INTEREST_PAGE = 1000
INTEREST_MAX_PAGES = 5
INTEREST_FIELDS = ("settlementDate", "symbolCode", "issueName", "marketClassCode",
                   "currentShortPositionQuantity", "previousShortPositionQuantity",
                   "changePreviousNumber", "changePercent", "averageDailyVolumeQuantity",
                   "daysToCoverQuantity", "stockSplitFlag", "revisionFlag")
# Header names (case, spaces and underscores aside) -> the row's columns.
_COLUMNS = {"date": "date", "symbol": "symbol", "shortvolume": "short",
            "shortexemptvolume": "exempt", "totalvolume": "total", "market": "market"}
_REQUIRED = ("date", "symbol", "short", "total")
# A day's rows with venue=all, in the order of VENUES.
FACILITY_ORDER = {name: place for place, name in enumerate(VENUES)}


# -- parsing the daily files ---------------------------------------------------------------------
def _number(text: str) -> int | float | None:
    """A volume cell -> int when whole, else float; blank, negative or not a number ->
    None. Digits only is the common case, read without a detour."""
    text = text.strip()
    if text.isdigit() and text.isascii():
        return int(text)
    text = text.replace(",", "")
    try:
        value = float(text)
    except ValueError:
        return None
    if value != value or value in (float("inf"), float("-inf")) or value < 0:
        return None
    return int(value) if value.is_integer() and "." not in text else value


def _columns(header: str) -> dict[str, int] | None:
    """The header's columns by name, or None when the line is no header (a data line: the
    current layout is assumed)."""
    cells = [cell.strip().lower().replace(" ", "").replace("_", "") for cell in
             header.split("|")]
    if cells and cells[0].isdigit():
        return None
    found = {_COLUMNS[cell]: index for index, cell in enumerate(cells) if cell in _COLUMNS}
    if any(name not in found for name in _REQUIRED):
        raise PROVIDER.bad_answer("sent a short sale volume file in an unknown layout")
    return found


_CURRENT = {"date": 0, "symbol": 1, "short": 2, "exempt": 3, "total": 4, "market": 5}

# One row as kept: (short, exempt, total, market).
Row = tuple[int | float | None, int | float | None, int | float | None, str | None]


def parse_daily_file(text: str, day: date) -> dict[str, Row]:
    """One file's lines -> ``{SYMBOL: (short, exempt, total, market)}`` of trade date
    ``day``, in one pass. The header says where the columns are; the trailer, blank lines
    and lines without a date of ``day``, a symbol or a short and total volume are skipped;
    a symbol listed twice keeps its first line."""
    stamp = f"{day:%Y%m%d}"
    out: dict[str, Row] = {}
    columns: dict[str, int] | None = None
    width = 0
    lines = io.StringIO(text)
    for number, line in enumerate(lines):
        line = line.rstrip("\r\n")
        if number == 0:
            columns = _columns(line)
            if columns is not None:
                width = max(columns.values()) + 1
                continue
        where = columns or _CURRENT
        cells = line.split("|")
        if len(cells) < (width or 5):
            continue
        if cells[where["date"]].strip() != stamp:
            continue
        symbol = cells[where["symbol"]].strip().upper()
        if not symbol or "|" in symbol or symbol in out:
            continue
        short, total = _number(cells[where["short"]]), _number(cells[where["total"]])
        if short is None or total is None:
            continue
        exempt = _number(cells[where["exempt"]]) if "exempt" in where and \
            where["exempt"] < len(cells) else None
        market = (cells[where["market"]].strip() or None) if "market" in where and \
            where["market"] < len(cells) else None
        out[symbol] = (short, exempt, total, market)
    return out


def _cell(value: int | float | None) -> str:
    return "" if value is None else str(value)


def pack_rows(rows: Mapping[str, Row]) -> bytes:
    """The compact cache entry of a parsed file: ``\\nSYMBOL|short|exempt|total|market``
    lines, zlib-compressed (a file's rows without its dates and header)."""
    text = "".join(f"\n{symbol}|{_cell(s)}|{_cell(e)}|{_cell(t)}|{m or ''}"
                   for symbol, (s, e, t, m) in rows.items())
    return zlib.compress((text + "\n").encode("ascii", errors="replace"), 6)


def _parse_number(text: str) -> int | float | None:
    if not text:
        return None
    return float(text) if any(c in text for c in ".eE") else int(text)


def find_row(packed: bytes, symbols: Sequence[str]) -> Row | None:
    """The row of the first of ``symbols`` in a packed file, or None."""
    text = zlib.decompress(packed).decode("ascii")
    for symbol in symbols:
        at = text.find(f"\n{symbol}|")
        if at < 0:
            continue
        line = text[at + 1:text.index("\n", at + 1)]
        _, short, exempt, total, market = line.split("|")
        return (_parse_number(short), _parse_number(exempt), _parse_number(total),
                market or None)
    return None


def spellings(symbol: str) -> tuple[str, ...]:
    """The symbol as asked, then with the other class separator (``BRK-B`` and ``BRK.B``)."""
    other = symbol.replace("-", ".") if "-" in symbol else symbol.replace(".", "-")
    return (symbol,) if other == symbol else (symbol, other)


def file_url(venue: Venue, day: date) -> str:
    return FILE_URL.format(prefix=venue.prefix, day=day)


# -- the provider --------------------------------------------------------------------------------
class FinraProvider(Provider):
    """Keyless. Daily files: 403 and 404 are "not published" (FINRA's CDN answers 403 for
    an absent file); other 4xx a 502. Query API: any 4xx is a 502 in FINRA's words (the
    query is fixed, so a refusal means the dataset changed or stopped being public)."""

    config = PROVIDER

    def error_for(self, response: UpstreamResponse, endpoint: str,
                  not_found: str | None) -> MarketDataError | None:
        if response.status < 400:
            return None
        if endpoint == FILE_ENDPOINT and response.status in (403, 404):
            # Plain NotFound: the cache stores and replays it as such ("not published").
            return NotFound(not_found or "FINRA has not published this file")
        if endpoint == INTEREST_ENDPOINT and response.status in (401, 403):
            return self.config.bad_answer(
                f"refused keyless access to consolidatedShortInterest (HTTP "
                f"{response.status})", response.status)
        return self.status_error(response, endpoint)

    def daily_file(self, venue: Venue, day: date) -> dict[str, Row]:
        """One file, fetched and parsed (NotFound when FINRA has none)."""
        response = self.get(FILE_ENDPOINT, file_url(venue, day),
                            not_found=f"FINRA has not published the {venue.name} file of "
                                      f"{day.isoformat()}")
        if len(response.content) > MAX_FILE_BYTES:
            raise PROVIDER.bad_answer(f"sent a {venue.name} file of {len(response.content)} "
                                      "bytes, too large for a short sale volume file")
        return parse_daily_file(response.content.decode("latin-1"), day)


def finra_provider() -> FinraProvider:
    provider: FinraProvider = get_provider(PROVIDER.name)
    return provider


def packed_file(venue: Venue, day: date, today: date) -> bytes:
    """One day's file of one venue as its cache entry (:func:`pack_rows`); NotFound while
    FINRA has none. A recent file is kept six hours (FINRA may post an update), an
    older one a week."""
    provider = finra_provider()
    policy = RECENT_FILE_TTL if (today - day).days <= RECENT_FILE_DAYS else FILE_TTL
    return provider.cached(
        "daily_file", {"venue": venue.prefix, "day": day.isoformat()},
        lambda: pack_rows(provider.daily_file(venue, day)), policy, group="finra_files")


# -- the short volume fetcher ----------------------------------------------------------------------
@dataclass(frozen=True)
class _FileDay:
    venue: Venue
    day: date

    @property
    def label(self) -> str:
        return f"{self.day.isoformat()} {self.venue.name}"


def _ratio(short: int | float | None, total: int | float | None) -> float | None:
    if short is None or not total:
        return None
    return round(short / total, 4)


def _venues(venue: str) -> tuple[Venue, ...]:
    return tuple(VENUES[name] for name in FACILITIES) if venue == "all" else (VENUES[venue],)


def short_volume(symbol: str, venue: str, start: date, end: date, at: datetime) -> ShortVolume:
    """The ``short_volume`` fetcher: ``symbol``'s rows of each trading day of
    ``[start, end]`` closed by ``at``, in ``venue``'s file (every facility's with
    ``all``), newest day first.

    Files not published yet are left out with a notice, as are files that failed (the
    answer is then partial). NotFound when files were read and none lists the symbol; the
    telling upstream failure when nothing was found and some file failed."""
    today = records.today_et(at)
    wanted = spellings(symbol)
    items: list[_FileDay] = []
    notices: list[str] = []
    for chosen in _venues(venue):
        if start < chosen.first_day:
            notices.append(f"FINRA's {chosen.name} files start on "
                           f"{chosen.first_day.isoformat()}: the days before are not served")
        items += [_FileDay(chosen, day) for day in records.volume_sessions(
            max(start, chosen.first_day), end, at)]
    if end >= today and not records.closed_session(today, at) \
            and markets.session_day(today).is_session:
        notices.append(f"{today.isoformat()}: the session has not closed; FINRA posts the "
                       f"day's files by {records.PUBLICATION_TIME_ET} ET")

    def read(item: _FileDay) -> Row | None:
        return find_row(packed_file(item.venue, item.day, today), wanted)

    fetched = gather_partial(read, items, what="FINRA short volume file",
                             label=lambda item: item.label, max_parallel=FILE_FAN_OUT)
    rows = [ShortVolumeRow(date=item.day.isoformat(), venue=item.venue.name,
                           short_volume=row[0], short_exempt_volume=row[1],
                           total_volume=row[2], ratio=_ratio(row[0], row[2]), market=row[3])
            for item, row in fetched.values if row is not None]
    for item, error in fetched.left_out:
        if isinstance(error, NotFound):
            notices.append(f"{item.label}: not published by FINRA (yet)")
        else:
            notices.append(f"{item.label}: left out, the file could not be read "
                           f"({error.detail})")
    if not rows:
        failure = fetched.telling_failure()
        if failure is not None:
            raise failure
        if fetched.values:  # files were read and none lists the symbol
            raise NotFound(f"FINRA's short sale volume files ({venue}) of "
                           f"{start.isoformat()}..{end.isoformat()} do not list '{symbol}'")
    # Newest day first; a day's venues in the order of VENUES.
    rows.sort(key=lambda row: FACILITY_ORDER.get(row.venue, -1))
    rows.sort(key=lambda row: row.date, reverse=True)
    return ShortVolume(symbol=symbol, venue=venue, start=start.isoformat(),
                       end=end.isoformat(), rows=rows, notices=notices)


# -- short interest ----------------------------------------------------------------------------
def interest_query(symbol: str, start: date, end: date, offset: int = 0) -> dict[str, Any]:
    """The Query API's body for one page of ``symbol``'s settlements in ``[start, end]``."""
    return {
        "fields": list(INTEREST_FIELDS),
        "compareFilters": [{"compareType": "EQUAL", "fieldName": "symbolCode",
                            "fieldValue": symbol}],
        "dateRangeFilters": [{"fieldName": "settlementDate", "startDate": start.isoformat(),
                              "endDate": end.isoformat()}],
        "limit": INTEREST_PAGE,
        "offset": offset,
    }


def _integer(value: Any) -> int | None:
    number = _number(str(value)) if isinstance(value, (int, float, str)) \
        and not isinstance(value, bool) else None
    return int(number) if number is not None else None


def _signed(value: Any) -> int | float | None:
    """A number that may be negative (a change), from a JSON number or its text."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        number = Decimal(str(value).strip().replace(",", ""))
    except InvalidOperation:
        return None
    if not number.is_finite():
        return None
    return int(number) if number == number.to_integral_value() else float(number)


def _day(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value.strip()[:10]).isoformat()
    except ValueError:
        return None


def _text(value: Any) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


def interest_row(item: Mapping[str, Any]) -> ShortInterestRow | None:
    """One Query API record -> a row; None without a settlement date."""
    day = _day(item.get("settlementDate"))
    if day is None:
        return None
    change, percent, cover = (_signed(item.get(name)) for name in (
        "changePreviousNumber", "changePercent", "daysToCoverQuantity"))
    return ShortInterestRow(
        settlement_date=day,
        shares_short=_integer(item.get("currentShortPositionQuantity")),
        previous_shares_short=_integer(item.get("previousShortPositionQuantity")),
        change=int(change) if change is not None else None,
        change_percent=float(percent) if percent is not None else None,
        average_daily_volume=_integer(item.get("averageDailyVolumeQuantity")),
        days_to_cover=float(cover) if cover is not None and cover >= 0 else None,
        stock_split=_text(item.get("stockSplitFlag")) == "S",
        revised=_text(item.get("revisionFlag")) == "R",
        market=_text(item.get("marketClassCode")))


def parse_interest(response: UpstreamResponse) -> list[Mapping[str, Any]]:
    """A Query API answer -> its records; an empty body (204) is no record."""
    if response.status == 204 or not response.content.strip():
        return []
    try:
        payload = orjson.loads(response.content)
    except orjson.JSONDecodeError:
        raise PROVIDER.bad_answer("sent short interest that is not JSON") from None
    if not isinstance(payload, list):
        raise PROVIDER.bad_answer("sent short interest that is not a list of records")
    return [item for item in payload if isinstance(item, dict)]


def _interest_records(symbol: str, start: date, end: date) -> list[Mapping[str, Any]]:
    provider = finra_provider()

    def fetch() -> list[Mapping[str, Any]]:
        found: list[Mapping[str, Any]] = []
        for page in range(INTEREST_MAX_PAGES):
            body = orjson.dumps(interest_query(symbol, start, end, page * INTEREST_PAGE))
            records_ = parse_interest(provider.get(
                INTEREST_ENDPOINT, INTEREST_URL, method="POST", data=body,
                headers={"Content-Type": "application/json", "Accept": "application/json"}))
            found += records_
            if len(records_) < INTEREST_PAGE:
                break
        return [item for item in found if _text(item.get("symbolCode")) == symbol]

    return provider.cached("short_interest", {"symbol": symbol, "start": start.isoformat(),
                                              "end": end.isoformat()},
                           fetch, INTEREST_TTL, group="finra_interest")


def short_interest(symbol: str, start: date, end: date) -> ShortInterest:
    """The ``short_interest`` fetcher: ``symbol``'s settlements in ``[start, end]``, newest
    first (asked as given, then with the other class separator when that finds none);
    NotFound when FINRA has none."""
    found: list[Mapping[str, Any]] = []
    for spelling in spellings(symbol):
        found = _interest_records(spelling, start, end)
        if found:
            break
    rows = _newest_first(found)
    if not rows:
        raise NotFound(f"FINRA has no short interest for '{symbol}' settled between "
                       f"{start.isoformat()} and {end.isoformat()}")
    newest = max(found, key=lambda item: _day(item.get("settlementDate")) or "")
    return ShortInterest(symbol=symbol, name=_text(newest.get("issueName")),
                         start=start.isoformat(), end=end.isoformat(), settlements=rows)


def _newest_first(found: Iterable[Mapping[str, Any]]) -> list[ShortInterestRow]:
    """Rows by settlement date, newest first, one per date (the first record of a date)."""
    by_day: dict[str, ShortInterestRow] = {}
    for item in found:
        row = interest_row(item)
        if row is not None:
            by_day.setdefault(row.settlement_date, row)
    return [by_day[day] for day in sorted(by_day, reverse=True)]
