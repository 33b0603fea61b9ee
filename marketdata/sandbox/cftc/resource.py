"""GET /resource/{dataset}.json: the two COT datasets the service reads, answered the way
Socrata's SODA API answers them (a JSON array of rows whose values are all strings).

Why rows are built lazily: a dataset holds every week since 1986 for every code; only the
rows a query keeps are built, and a query pinned to a code (``$where`` with ``=`` or
``IN`` on ``cftc_contract_market_code``) only looks at that code's weeks. Without such a
pin the dataset is the curated contracts (the codes of the service's table).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from functools import lru_cache, partial
from typing import Any

import orjson

from marketdata.sandbox.cftc import markets
from marketdata.sandbox.cftc.rows import row_for
from marketdata.sandbox.cftc.soql import Query, SoqlError, parse_query, sort_key
from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.response import SandboxResponse

CODE_COLUMN = "cftc_contract_market_code"
DATE_COLUMN = "report_date_as_yyyy_mm_dd"
NAME_COLUMN = "market_and_exchange_names"
_TEXT_COLUMNS = {"id", NAME_COLUMN, "yyyy_report_week_ww", "contract_market_name", CODE_COLUMN,
                 "cftc_market_code", "cftc_region_code", "cftc_commodity_code",
                 "commodity_name", "contract_units", "commodity", "commodity_subgroup_name",
                 "commodity_group_name", "futonly_or_combined"}


def soda_error(status: int, code: str, message: str) -> SandboxResponse:
    """Socrata's error body (SODA 2.0): ``{code, error: true, message, data}``."""
    return json_response({"code": code, "error": True, "message": message, "data": {}},
                         status)


@lru_cache(maxsize=4)
def columns(dataset: str) -> tuple[str, ...]:
    """A dataset's columns, in the order of its rows (gold is in both datasets)."""
    gold = markets.market("088691")
    assert gold is not None
    return tuple(row_for(gold, dataset, date(2020, 1, 7)))


class LazyRow:
    """One (market, report date) of a dataset; the full row is built on first need."""

    __slots__ = ("_row", "dataset", "day", "found")

    def __init__(self, found: markets.Market, dataset: str, day: date) -> None:
        self.found, self.dataset, self.day = found, dataset, day
        self._row: dict[str, str] | None = None

    def get(self, column: str) -> str | None:
        if column == CODE_COLUMN:
            return self.found.code
        if column == DATE_COLUMN:
            return f"{self.day.isoformat()}T00:00:00.000"
        if column == NAME_COLUMN:
            return self.found.market_and_exchange_names
        return self.row().get(column)

    def row(self) -> dict[str, str]:
        if self._row is None:
            self._row = row_for(self.found, self.dataset, self.day)
        return self._row


def _column_key(column: str, row: LazyRow) -> tuple[int, Any]:
    return sort_key(row.get(column))


def run(query: Query, dataset: str, now: datetime) -> list[Mapping[str, str | None]]:
    """The rows a query selects, ordered, sliced and reduced to ``$select``."""
    codes = query.codes if query.codes is not None else tuple(markets.curated_codes())
    candidates = [LazyRow(found, dataset, day)
                  for code in codes if (found := markets.market(code)) is not None
                  for day in markets.report_dates(found, dataset, now)]
    kept = [row for row in candidates if query.matches(row.get)]
    # Without $order Socrata's order is its row id's; the sandbox's is (date, code).
    order = query.order or ((DATE_COLUMN, False), (CODE_COLUMN, False))
    for column, descending in reversed(order):
        kept.sort(key=partial(_column_key, column), reverse=descending)
    page = kept[query.offset:query.offset + query.limit]
    if query.select is None:
        return [row.row() for row in page]
    return [{column: row.get(column) for column in query.select} for row in page]


def handle_resource(req: Request) -> SandboxResponse:
    dataset = req.params["dataset"]
    if dataset not in markets.DATASETS:
        return soda_error(404, "not_found", f"Cannot find view with id {dataset}")
    known = columns(dataset)
    try:
        query = parse_query(req.query, known, CODE_COLUMN)
    except SoqlError as exc:
        return soda_error(400, exc.code, exc.message)
    rows = run(query, dataset, req.clock())
    fields = list(query.select or known)
    types = ["floating_timestamp" if f == DATE_COLUMN else "text" if f in _TEXT_COLUMNS
             else "number" for f in fields]
    return json_response(rows, headers={"X-SODA2-Fields": orjson.dumps(fields).decode(),
                                        "X-SODA2-Types": orjson.dumps(types).decode()})
