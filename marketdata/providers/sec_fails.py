"""The SEC's fails-to-deliver files: the keyless source of
``/v2/filings/{symbol}/fails-to-deliver``.

The SEC publishes the fails-to-deliver balances recorded in NSCC's Continuous Net Settlement
system twice a month, about two weeks after each half month ends, one zip per half month:
``https://www.sec.gov/files/data/fails-deliver-data/cnsfails{YYYYMM}{a|b}.zip`` (``a``:
settlement days 1-15, ``b``: the 16th to the month's end). Inside, one pipe-delimited text
file: a header ``SETTLEMENT DATE|CUSIP|SYMBOL|QUANTITY (FAILS)|DESCRIPTION|PRICE``, one line
per (settlement day, security) with a balance, and sometimes trailer lines, which are
skipped. Dates are ``YYYYMMDD``; PRICE (the previous day's close) may be blank or ``.``.

A published file never changes, so each one is parsed once into ``{SYMBOL: rows}`` and
cached a week (the cache is the store; a restart reads it again). A file that is not out yet
(EDGAR's 404) is skipped and remembered only briefly. The calls go through the SEC provider of
:mod:`marketdata.providers.sec` (its declared User-Agent, pacer, lane and status map).
"""

from __future__ import annotations

import io
import zipfile
from datetime import date

from marketdata.cache import TTLPolicy
from marketdata.concurrency import gather_partial
from marketdata.errors import NotFound, UpstreamError, telling_failure
from marketdata.providers.sec import PROVIDER, sec_provider
from marketdata.records import disclosures
from marketdata.records.disclosures import FailToDeliver, HalfMonth, ftd_periods

FILE_URL = "https://www.sec.gov/files/data/fails-deliver-data/cnsfails{name}.zip"
HEADER = ("SETTLEMENT DATE", "CUSIP", "SYMBOL", "QUANTITY (FAILS)", "DESCRIPTION", "PRICE")
FILE_TTL = TTLPolicy("sec_fails_file", open=604800, extended=604800, closed=604800,
                     market_aware=False)
# The zips are 1-2 MB; a larger member is no fails file.
MAX_TEXT_BYTES = 64 * 1024 * 1024

# One row as cached: (date, cusip, quantity, price, description).
Row = tuple[str | None, str | None, int | None, float | None, str | None]


def _day(value: str) -> str | None:
    if len(value) != 8 or not value.isdigit():
        return None
    try:
        return date(int(value[:4]), int(value[4:6]), int(value[6:])).isoformat()
    except ValueError:
        return None


def _quantity(value: str) -> int | None:
    value = value.strip().replace(",", "")
    return int(value) if value.isdigit() else None


def _price(value: str) -> float | None:
    try:
        number = float(value.strip())
    except ValueError:
        return None
    return number if number == number and number >= 0 else None  # NaN and negatives out


def parse_fails_text(text: str) -> dict[str, list[Row]]:
    """The lines of one file -> ``{SYMBOL: [(date, cusip, quantity, price, description)]}``,
    each symbol's rows in the file's order. The header, blank lines, trailers and lines
    without a settlement date or a symbol are skipped."""
    out: dict[str, list[Row]] = {}
    for line in text.splitlines():
        cells = line.split("|")
        if len(cells) < 6:
            continue
        day = _day(cells[0].strip())
        symbol = cells[2].strip().upper()
        if day is None or not symbol:
            continue
        # A description holding a '|' (seen in old files) spreads over the middle cells.
        description = " ".join("|".join(cells[4:-1]).split()) or None
        out.setdefault(symbol, []).append(
            (day, cells[1].strip() or None, _quantity(cells[3]), _price(cells[-1]), description))
    return out


def parse_fails_zip(content: bytes) -> dict[str, list[Row]]:
    """One published zip -> :func:`parse_fails_text` of its text member (Latin-1, as the
    SEC writes it). A body that is not such a zip is a 502."""
    try:
        with zipfile.ZipFile(io.BytesIO(content)) as archive:
            members = [i for i in archive.infolist() if not i.is_dir()]
            if not members or members[0].file_size > MAX_TEXT_BYTES:
                raise PROVIDER.bad_answer("sent a fails-to-deliver zip without its text file")
            raw = archive.read(members[0])
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, OSError):
        raise PROVIDER.bad_answer("sent a fails-to-deliver file that is not a zip") from None
    text = raw.decode("latin-1")
    first = text.split("\n", 1)[0].strip().split("|")
    if tuple(cell.strip().upper() for cell in first[:6]) != HEADER:
        raise PROVIDER.bad_answer("sent a fails-to-deliver file in an unknown layout")
    return parse_fails_text(text)


def fails_file(period: HalfMonth) -> dict[str, list[Row]]:
    """One half month's file, parsed (cached a week); NotFound while it is not published."""
    provider = sec_provider()
    url = FILE_URL.format(name=period.name)
    return provider.cached(
        "fails_file", {"period": period.name},
        lambda: parse_fails_zip(provider.get(
            "fails_file", url, not_found=f"No fails-to-deliver file for {period.name}").content),
        FILE_TTL, group="sec_fails")


def _rows_of(period: HalfMonth, symbol: str) -> list[Row] | None:
    try:
        return fails_file(period).get(symbol, [])
    except NotFound:
        return None  # not published yet (or withdrawn): nothing to add


def fails_to_deliver(symbol: str, months: int) -> list[FailToDeliver]:
    """The ``fails_to_deliver`` fetcher: the symbol's balances in the latest ``2 * months``
    half-month files, newest settlement day first; ``[]`` when it has none (the files list
    only securities with a balance, so an unknown ticker cannot be told from a clean one).
    Files that fail are left out; when every file failed, that upstream failure is raised."""
    periods = ftd_periods(disclosures.current_day(), months)
    fetched = gather_partial(lambda period: _rows_of(period, symbol), periods,
                             what="fails-to-deliver file", label=lambda p: p.name)
    if not fetched.values and fetched.left_out:
        failure = telling_failure([e for _, e in fetched.left_out
                                   if isinstance(e, UpstreamError)])
        if failure is not None:
            raise failure
    found = [FailToDeliver(symbol=symbol, date=row[0], quantity=row[2], price=row[3],
                           name=row[4], description=row[4], cusip=row[1])
             for _, rows in fetched.values if rows for row in rows]
    found.sort(key=lambda item: item.date or "", reverse=True)
    return found

