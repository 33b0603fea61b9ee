"""CSV for the tabular endpoints: where a view's table is, how the representation is
negotiated, and how records become RFC 4180 text.

A view offers CSV by declaring where its table sits in the JSON-ready answer, one line::

    csv_table = "candles"                         # a member: a list, or a connection
    csv_table = ""                                # the answer itself is the list
    csv_table = Table("dividends", each="dividends", carry=("symbol",))   # a batch

(:class:`TableMixin`, a base of every API view, does the rest: the CSV renderer after the
JSON one, the negotiation below, ``format=json|csv`` where the spec leaves ``format`` free,
``Vary: Accept``, the ``Link`` of the next page, errors always as JSON.)

The CSV is the JSON answer written as a table, never a second implementation of the data:

- a header row of the JSON member names (exact, camelCase), one row per record;
- nested objects flattened into dotted names (``regularMarketPrice.raw``,
  ``event.EARNINGS.epsEstimateAvg``); arrays written as their JSON text in one cell;
- null is an empty cell; numbers, booleans and strings exactly as the JSON writes them (the
  data goes through orjson first, so a float is orjson's shortest round-trip form), except
  that a text cell a spreadsheet would run as a formula gets a leading ``'``
  (:func:`neutralise`, OWASP's CSV-injection rule);
- RFC 4180: comma separated, CRLF line ends, a field quoted when it holds a comma, a quote,
  CR or LF, quotes doubled; ``text/csv; charset=utf-8; header=present``;
- ``fields`` keeps its meaning; names of the table's columns also select columns (the
  table's own key and carried columns stay);
- a paged table is the current page; the next page is ``Link: <...>; rel="next"`` (a
  path-absolute reference, so a cached answer is right for any host).

**Negotiation** (:func:`representation`): ``Accept`` with q-values. Each media range a
type matches gives it that range's q, the most specific range deciding (``text/csv`` over
``text/*`` over ``*/*``); the highest q wins, then the more specific match, then the range
listed first, then JSON. No header, ``*/*`` or ``application/json``: JSON, as always.
``format=csv``/``format=json`` in the query win over the header where the view offers them.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import orjson
from django.utils.cache import patch_vary_headers
from django.utils.encoding import escape_uri_path
from rest_framework import exceptions, serializers
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.params import QuerySerializer
from apps.core.renderers import ORJSONRenderer
from marketdata.errors import FieldError, InvalidParameters

JSON_MEDIA_TYPE = "application/json"
CSV_MEDIA_TYPE = "text/csv"
CSV_CONTENT_TYPE = "text/csv; charset=utf-8; header=present"
JSON, CSV = "json", "csv"
FORMAT_PARAM = "format"
# The query's names for the next page's position, where the view's Output does not say.
DEFAULT_CURSOR_PARAM = "cursor"


# -- where the table is --------------------------------------------------------------------------
@dataclass(frozen=True)
class Table:
    """Where a view's records are in its JSON-ready answer.

    - ``at``: dotted member path to the records: a list, a connection ``{edges, nodes,
      pageInfo}`` (its ``nodes`` are the rows, its ``pageInfo`` the next page), or with
      ``key`` an object of records keyed by id; ``""`` is the answer itself.
    - ``key``: the records are an object's values; its keys become the first column, named
      ``key`` (v1 historical: ``date``).
    - ``each``: every record of ``at`` holds its own list under this member, and those inner
      records are the rows (a batch: one row per symbol and dividend); ``carry`` names outer
      members repeated on each inner row, as the first columns.
    - ``parallel``: members beside ``at`` whose lists run parallel to it (same positions,
      same paging), written as one more column each (a chart's ``patterns``).
    - ``columns``: the columns when the answer cannot say (an empty table); by default the
      view's ``response_schema`` says.
    """

    at: str = ""
    key: str = ""
    each: str = ""
    carry: tuple[str, ...] = ()
    parallel: tuple[str, ...] = ()
    columns: tuple[str, ...] = ()

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(self.at.split(".")) if self.at else ()

    @property
    def kept(self) -> tuple[str, ...]:
        """Columns ``fields`` never removes: the key and the carried members."""
        return ((self.key,) if self.key else ()) + self.carry


Rows = Callable[[Any], Sequence[Mapping[str, Any]]]
TableSpec = str | Table | Rows


def as_table(spec: TableSpec) -> Table | Rows:
    return Table(spec) if isinstance(spec, str) else spec


def _member(data: Any, path: Iterable[str]) -> Any:
    for name in path:
        if not isinstance(data, Mapping):
            return None
        data = data.get(name)
    return data


def _is_connection(value: Any) -> bool:
    return isinstance(value, Mapping) and "nodes" in value and "pageInfo" in value


def _items(value: Any) -> list[Any]:
    """The records of a list or of a connection (its nodes); nothing for anything else."""
    if _is_connection(value):
        value = value["nodes"]
    return list(value) if isinstance(value, list) else []


def records(data: Any, table: Table | Rows) -> list[Mapping[str, Any]]:
    """The rows of ``data`` (JSON-ready) as the declaration says, before flattening."""
    if not isinstance(table, Table):
        return list(table(data))
    located = _member(data, table.path)
    if table.key:
        if not isinstance(located, Mapping):
            return []
        return [{table.key: key, **(value if isinstance(value, Mapping) else {})}
                for key, value in located.items()]
    items = _items(located)
    if table.parallel:
        parent = _member(data, table.path[:-1])
        columns = {name: _items(_member(parent, (name,))) for name in table.parallel}
        items = [{**(item if isinstance(item, Mapping) else {}),
                  **{name: values[i] for name, values in columns.items() if i < len(values)}}
                 for i, item in enumerate(items)]
    if not table.each:
        return [item for item in items if isinstance(item, Mapping)]
    rows: list[Mapping[str, Any]] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        carried = {name: item.get(name) for name in table.carry}
        rows.extend({**carried, **inner} for inner in _items(item.get(table.each))
                    if isinstance(inner, Mapping))
    return rows


def next_cursor(data: Any, table: Table | Rows) -> str | None:
    """The cursor of the next page when the table is a connection with one."""
    if not isinstance(table, Table):
        return None
    located = _member(data, table.path)
    if not _is_connection(located):
        return None
    info = located.get("pageInfo") or {}
    cursor = info.get("endCursor")
    return cursor if info.get("hasNextPage") and isinstance(cursor, str) else None


# -- flattening and writing ------------------------------------------------------------------
def flatten(record: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    """``{"a": {"b": 1}}`` -> ``{"a.b": 1}``; lists stay values (one cell of JSON text)."""
    out: dict[str, Any] = {}
    for name, value in record.items():
        column = f"{prefix}{name}"
        if isinstance(value, Mapping) and value:
            out.update(flatten(value, column + "."))
        else:
            out[column] = value
    return out


# CSV (formula) injection, OWASP's rule: a spreadsheet runs a cell that starts with one of
# these as a formula (`=HYPERLINK(...)`, `@SUM(...)`, `+cmd|...`, `-2+3`), or, for the
# control characters, may drop them and run what follows.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "\0")
_ALWAYS_FORMULA = frozenset("=@\t\r\n\0")
# ... but a sign and a plain number (`-1.20`, `+0.69%`, `-1,234.5`, `-1.5e-7`) is a number
# to every spreadsheet, never a formula (no operator, name or reference follows the sign).
_SIGNED_NUMBER = re.compile(
    r"[+-](?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?%?",
    re.ASCII)


def neutralise(text: str) -> str:
    """``text`` as a CSV cell no spreadsheet runs as a formula: ``'`` before text that starts
    with ``=``, ``@``, tab, CR, LF or NUL, and before text that starts with ``+`` or ``-``
    unless it is a signed plain number (``-1.20``, ``+0.69%``: v1's formatted strings stay
    readable as numbers). Numbers of the JSON are not text and never get here."""
    first = text[:1]
    if first in _ALWAYS_FORMULA or (first in ("+", "-")
                                    and _SIGNED_NUMBER.fullmatch(text) is None):
        return "'" + text
    return text


def cell(value: Any) -> str:
    """A JSON value as its CSV text: "" for null, strings as they are (but neutralised:
    :func:`neutralise`), anything else (numbers, booleans, arrays, an empty object) as orjson
    writes it in the JSON body."""
    if value is None:
        return ""
    if isinstance(value, str):
        return neutralise(value)
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def column_names(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every column of ``rows`` in order of first appearance (records may differ)."""
    seen: dict[str, None] = {}
    for row in rows:
        for name in row:
            seen.setdefault(name, None)
    return list(seen)


def write_csv(columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> bytes:
    """RFC 4180 text (CRLF, minimal quoting, quotes doubled), UTF-8, header row first."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow([neutralise(name) for name in columns])  # names may be upstream keys
    writer.writerows([cell(row.get(name)) for name in columns] for row in rows)
    return buffer.getvalue().encode("utf-8")


def select_columns(columns: Sequence[str], fields: str | None,
                   kept: Sequence[str] = ()) -> list[str]:
    """The columns ``fields`` names (a name selects its dotted sub-columns too), plus
    ``kept``; all of them when ``fields`` names none (as ``fields`` does in the JSON)."""
    if not fields:
        return list(columns)
    wanted = {part.strip() for part in fields.split(",")}
    chosen = [c for c in columns if c in wanted or c.split(".", 1)[0] in wanted]
    if not chosen:
        return list(columns)
    return [c for c in columns if c in kept or c in chosen]


def render_table(data: Any, table: Table | Rows, fields: str | None = None,
                 declared: Sequence[str] = ()) -> bytes:
    """The CSV of a JSON-ready answer. ``declared`` gives the header of an empty table."""
    # Through orjson and back: exactly the values (and float forms) of the JSON body.
    plain = orjson.loads(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS))
    rows = [flatten(row) for row in records(plain, table)]
    columns = column_names(rows) or list(declared)
    kept = table.kept if isinstance(table, Table) else ()
    return write_csv(select_columns(columns, fields, kept), rows)


# -- columns from a JSON schema (empty tables, the OpenAPI description) ----------------------
Resolve = Callable[[Mapping[str, Any]], Mapping[str, Any]]


def _no_refs(node: Mapping[str, Any]) -> Mapping[str, Any]:
    return node


def _list_items(node: Mapping[str, Any], resolve: Resolve) -> Mapping[str, Any] | None:
    """The item schema of a list schema, or of a bare-array/connection alternative."""
    node = resolve(node)
    if node.get("type") == "array" or (isinstance(node.get("type"), list)
                                       and "array" in node["type"]):
        items = node.get("items")
        return resolve(items) if isinstance(items, Mapping) else None
    for alternative in (*node.get("oneOf", ()), *node.get("anyOf", ())):
        found = _list_items(alternative, resolve)
        if found is not None:
            return found
    return None


def _properties(node: Mapping[str, Any] | None, resolve: Resolve) -> Mapping[str, Any]:
    if node is None:
        return {}
    node = resolve(node)
    props = node.get("properties")
    if isinstance(props, Mapping):
        return props
    for alternative in (*node.get("oneOf", ()), *node.get("anyOf", ()), *node.get("allOf", ())):
        props = _properties(alternative, resolve)
        if props:
            return props
    return {}


def _only_object(node: Mapping[str, Any], resolve: Resolve) -> bool:
    """Whether a schema is an object (or null) and nothing else: a union with numbers or
    strings (a screener's number, an object only with ``format=both``) is one column."""
    node = resolve(node)
    kinds = node.get("type")
    alternatives = [resolve(a) for a in (*node.get("oneOf", ()), *node.get("anyOf", ()))]
    if alternatives:
        return all(_only_object(a, resolve) or a.get("type") == "null" for a in alternatives) \
            and any(_only_object(a, resolve) for a in alternatives)
    if isinstance(kinds, list):
        return "object" in kinds and set(kinds) <= {"object", "null"}
    return kinds == "object" or (kinds is None and "properties" in node)


def _flat_properties(node: Mapping[str, Any] | None, resolve: Resolve,
                     prefix: str = "") -> list[str]:
    out: list[str] = []
    for name, sub in _properties(node, resolve).items():
        nested = _properties(sub, resolve) \
            if isinstance(sub, Mapping) and _only_object(sub, resolve) else {}
        if nested:
            out.extend(_flat_properties(sub, resolve, f"{prefix}{name}."))
        else:
            out.append(f"{prefix}{name}")
    return out


def schema_columns(schema: Any, table: Table | Rows,
                   resolve: Resolve = _no_refs) -> tuple[str, ...]:
    """The columns a table has by the JSON schema of the answer (``()`` when the schema
    does not say: a callable table, a serializer rather than a schema)."""
    if not isinstance(table, Table):
        return ()
    if table.columns:
        return table.columns
    if not isinstance(schema, Mapping):
        return ()
    node: Mapping[str, Any] | None = schema
    for name in table.path:
        node = _properties(node, resolve).get(name)
        if not isinstance(node, Mapping):
            return ()
    if table.key:
        values = resolve(node).get("additionalProperties") if node is not None else None
        if not isinstance(values, Mapping):
            return ()
        return (table.key, *_flat_properties(values, resolve))
    item = _list_items(node, resolve) if node is not None else None
    if table.each:
        inner = _properties(item, resolve).get(table.each)
        inner_item = _list_items(inner, resolve) if isinstance(inner, Mapping) else None
        return (*table.carry, *_flat_properties(inner_item, resolve))
    return (*_flat_properties(item, resolve), *table.parallel)


# -- negotiation -----------------------------------------------------------------------------
def _parse_accept(header: str) -> list[tuple[str, str, float, int]]:
    """(type, subtype, q, position) of each well-formed media range; malformed ones (and
    malformed q-values) are ignored."""
    out = []
    for position, part in enumerate(header.split(",")):
        media, *params = part.split(";")
        kind, slash, sub = media.strip().lower().partition("/")
        if not slash or not kind or not sub or (kind == "*" and sub != "*"):
            continue
        q = 1.0
        for param in params:
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = -1.0
        if 0.0 <= q <= 1.0:
            out.append((kind, sub, q, position))
    return out


def _quality(ranges: list[tuple[str, str, float, int]], media_type: str
             ) -> tuple[float, int, int]:
    """(q, specificity, -position) of ``media_type`` under the most specific matching range."""
    kind, _, sub = media_type.partition("/")
    best: tuple[int, float, int] | None = None
    for r_kind, r_sub, q, position in ranges:
        if r_kind == kind and r_sub == sub:
            rank = 2
        elif r_kind == kind and r_sub == "*":
            rank = 1
        elif r_kind == "*" and r_sub == "*":
            rank = 0
        else:
            continue
        if best is None or rank > best[0]:
            best = (rank, q, position)
    if best is None:
        return (0.0, -1, 0)
    return (best[1], best[0], -best[2])


def qualities(accept: str, media_types: tuple[str, ...]) -> tuple[float, ...]:
    """The q ``accept`` gives each of ``media_types`` (the most specific matching range's;
    0 when no range matches), for a caller with a rule of its own (the explorer at ``/``)."""
    ranges = _parse_accept(accept)
    return tuple(_quality(ranges, media_type)[0] for media_type in media_types)


@lru_cache(maxsize=512)
def negotiate(accept: str, offered: tuple[str, ...] = (JSON_MEDIA_TYPE, CSV_MEDIA_TYPE)
              ) -> str | None:
    """The media type of ``offered`` (first: the default) that ``accept`` prefers, None when
    it accepts none of them (406). Memoised: the fast path asks on every hit."""
    if not accept.strip():
        return offered[0]
    ranges = _parse_accept(accept)
    if not ranges:
        return offered[0]  # nothing readable: as if there were no header
    best, best_rank = None, (0.0, -1, 0)
    for media_type in offered:
        rank = _quality(ranges, media_type)
        if rank[0] > 0 and (best is None or rank > best_rank):
            best, best_rank = media_type, rank
    return best


def representation(accept: str) -> str:
    """``"csv"`` when ``accept`` prefers CSV to JSON (what a tabular view then answers),
    else ``""``. The response cache keys on it: JSON and CSV of one URL never share an
    entry, and every other Accept keeps today's key."""
    return CSV if negotiate(accept or "") == CSV_MEDIA_TYPE else ""


class TableNegotiation(BaseContentNegotiation):
    """The negotiation of a tabular view: ``format`` in the query when the view offers it,
    else :func:`negotiate` on ``Accept`` (DRF's default ignores q-values)."""

    def select_renderer(self, request: Request, renderers: Iterable[BaseRenderer],
                        format_suffix: str | None = None) -> tuple[BaseRenderer, str]:
        renderers = list(renderers)
        by_type = {renderer.media_type: renderer for renderer in renderers}
        view = request.parser_context.get("view") if request.parser_context else None
        if view is not None and offers_format_param(type(view)):
            asked = request.query_params.get(FORMAT_PARAM)
            if asked in (JSON, CSV):
                media_type = JSON_MEDIA_TYPE if asked == JSON else CSV_MEDIA_TYPE
                return by_type[media_type], media_type
        chosen = negotiate(request.META.get("HTTP_ACCEPT", ""), tuple(by_type))
        if chosen is None:
            raise exceptions.NotAcceptable(available_renderers=renderers)
        return by_type[chosen], chosen


# -- the views' side -------------------------------------------------------------------------
class RepresentationParam(serializers.ChoiceField):
    """``format=json|csv`` of a tabular view whose spec leaves ``format`` free."""


REPRESENTATION_EXTENSION = "x-representation"


def format_param() -> RepresentationParam:
    return RepresentationParam(
        choices=[JSON, CSV], required=False,
        help_text="Representation: `json` (default) or `csv` (the table as `text/csv`, as "
                  "`Accept: text/csv` asks; this parameter wins over the header)")


def offers_format_param(view_class: type) -> bool:
    query = getattr(view_class, "query_serializer", None)
    declared = getattr(query, "_declared_fields", {}) if query is not None else {}
    return isinstance(declared.get(FORMAT_PARAM), RepresentationParam)


def _with_format(query: type[serializers.Serializer] | None) -> type[serializers.Serializer]:
    """``query`` with ``format=json|csv`` added, when the spec gives ``format`` no other
    meaning there (screeners' ``format`` is the number format: CSV is Accept-only)."""
    base = query if query is not None else QuerySerializer
    if FORMAT_PARAM in getattr(base, "_declared_fields", {}):
        return base
    return type(base.__name__, (base,), {"__module__": base.__module__,
                                         "__doc__": base.__doc__, FORMAT_PARAM: format_param()})


class CSVRenderer(BaseRenderer):
    """The view's table (its ``csv_table``) as RFC 4180 text with a header row.

    Only tabular views list it, after the JSON renderer; they switch their errors back to
    JSON before rendering (:class:`apps.core.TableMixin`), so this writes 2xx
    answers only."""

    media_type = CSV_MEDIA_TYPE
    format = CSV
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None,
               renderer_context: Mapping[str, Any] | None = None) -> bytes:
        context = renderer_context or {}
        view, request = context.get("view"), context.get("request")
        table = table_of(view)
        if table is None:
            raise TypeError(f"{type(view).__name__} declares no csv_table")
        response = context.get("response")
        if response is not None:
            # DRF wrote "text/csv; charset=utf-8"; RFC 4180's header parameter says more.
            response["Content-Type"] = CSV_CONTENT_TYPE
        fields = request.query_params.get("fields") if request is not None else None
        return render_table(data, table, fields, declared_columns(view, table))


def configure(view_class: type) -> None:
    """Make a view that declares ``csv_table`` tabular: the CSV renderer after the JSON one,
    the negotiation above, and ``format=json|csv`` where ``format`` is free."""
    view_class.renderer_classes = [ORJSONRenderer, CSVRenderer]  # type: ignore[attr-defined]
    view_class.content_negotiation_class = TableNegotiation  # type: ignore[attr-defined]
    if getattr(view_class, "body_serializer", None) is None:  # a GET: the query may say
        view_class.query_serializer = _with_format(  # type: ignore[attr-defined]
            getattr(view_class, "query_serializer", None))


def table_of(view: Any) -> Table | Rows | None:
    # From the class: a function declared there would be bound to the view instance.
    spec = getattr(view if isinstance(view, type) else type(view), "csv_table", None)
    return None if spec is None else as_table(spec)


def declared_columns(view: Any, table: Table | Rows) -> tuple[str, ...]:
    return schema_columns(getattr(view, "response_schema", None), table)


def cursor_param(view: Any) -> str:
    output = getattr(view, "output", None)
    names = getattr(output, "page_params", None)
    return names[0] if names else DEFAULT_CURSOR_PARAM


def next_link(request: Request, view: Any, data: Any) -> str | None:
    """``Link`` to the next page of a paged table: this request's path and query with the
    cursor moved on (a path-absolute reference: cached answers serve every host)."""
    table = table_of(view)
    cursor = next_cursor(data, table) if table is not None else None
    if cursor is None:
        return None
    query = request.query_params.copy()
    query[cursor_param(view)] = cursor
    return f'<{escape_uri_path(request.path)}?{query.urlencode(safe=",")}>; rel="next"'


class TableMixin:
    """Base of every API view: nothing changes unless the view declares ``csv_table``.

    A tabular view negotiates JSON or CSV (:class:`TableNegotiation`), sends
    ``Vary: Accept`` on every answer, a ``Link`` to the next page with a paged CSV, and its
    errors as JSON whatever was asked. Elsewhere ``format=csv``, where the view has no
    ``format`` of its own, is an invalid parameter value (400/422), and ``Accept: text/csv``
    alone is DRF's 406.
    """

    csv_table: TableSpec | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.csv_table is not None:
            configure(cls)

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # type: ignore[misc]
        query = getattr(self, "query_serializer", None)
        if self.csv_table is None and query is not None and request.method != "OPTIONS" \
                and FORMAT_PARAM not in getattr(query, "_declared_fields", {}):
            asked = request.query_params.get(FORMAT_PARAM)
            if asked is not None and asked.strip().lower() == CSV:
                raise InvalidParameters([FieldError(
                    FORMAT_PARAM, "CSV is offered by the tabular endpoints only; this one "
                    "answers JSON", "enum", asked)])

    def finalize_response(self, request: Request, response: Any, *args: Any,
                          **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args,  # type: ignore[misc]
                                             **kwargs)
        if self.csv_table is None or not isinstance(response, Response):
            return response
        patch_vary_headers(response, ("Accept",))
        if getattr(response, "accepted_media_type", None) != CSV_MEDIA_TYPE:
            return response
        if response.status_code >= 300 or response.exception:
            # Errors are JSON, whatever was asked.
            renderer = self.get_renderers()[0]  # type: ignore[attr-defined]
            response.accepted_renderer = renderer
            response.accepted_media_type = renderer.media_type
            return response
        link = next_link(request, self, response.data)
        if link is not None:
            response["Link"] = link
        return response


# -- OpenAPI ---------------------------------------------------------------------------------
_NOT_ACCEPTABLE = ("The `Accept` header allows no representation this operation has: "
                   "`application/json`, and `text/csv` where the 200 lists it")
_LINK_HEADER = {"description": "CSV of a paged table only: the next page (a path-absolute "
                               "reference with the cursor moved on), absent on the last page",
                "schema": {"type": "string"}}


def _resolver(document: Mapping[str, Any]) -> Resolve:
    schemas = document.get("components", {}).get("schemas", {})

    def resolve(node: Mapping[str, Any]) -> Mapping[str, Any]:
        seen = 0
        while isinstance(node, Mapping) and "$ref" in node and seen < 32:
            node = schemas.get(str(node["$ref"]).rsplit("/", 1)[-1], {})
            seen += 1
        return node

    return resolve


def _paged(schema: Any, table: Table | Rows, resolve: Resolve) -> bool:
    """Whether the table's list may come as a connection (then a CSV page has a ``Link``)."""
    if not isinstance(table, Table) or table.key or not isinstance(schema, Mapping):
        return False
    node: Mapping[str, Any] | None = schema
    for name in table.path:
        found = _properties(node, resolve).get(name)
        node = found if isinstance(found, Mapping) else None
    if node is None:
        return False
    node = resolve(node)
    return any("pageInfo" in _properties(alternative, resolve)
               for alternative in (node, *node.get("oneOf", ()), *node.get("anyOf", ())))


def csv_description(columns: Sequence[str], paged: bool) -> str:
    text = ("The table of the JSON answer as CSV (RFC 4180: a header row of the JSON member "
            "names, CRLF line ends; nested objects as dotted names, arrays as their JSON text, "
            "null an empty cell, numbers as the JSON writes them; text starting with `=`, "
            "`@`, tab, CR, LF or NUL, or with `+`/`-` but not a plain signed number, gets a "
            "leading `'` so that no spreadsheet runs it as a formula). ")
    text += f"Columns: {', '.join(f'`{c}`' for c in columns)}." if columns else \
        "Columns: the members of the records."
    if paged:
        text += " A paged table is the current page; `Link: <...>; rel=\"next\"` names the next."
    return text


def postprocess_csv(result: dict[str, Any], generator: Any, request: Any, public: bool,
                    **kwargs: Any) -> dict[str, Any]:
    """The CSV of the tabular operations in the document: ``text/csv`` (a string naming the
    columns) beside ``application/json`` on their 200 only (drf-spectacular lists every
    renderer on every status; errors are JSON), their ``format`` parameter where the view
    takes it, the ``Link`` header of a paged table; and the 406 any API operation answers
    to an Accept it cannot satisfy."""
    resolve = _resolver(result)
    paths = result.get("paths", {})
    tabular_views: dict[tuple[str, str], Any] = {}
    for path, _regex, method, callback in getattr(generator, "endpoints", None) or ():
        view_class = getattr(callback, "cls", None)
        if view_class is not None and getattr(view_class, "csv_table", None) is not None:
            tabular_views[(path, method.lower())] = view_class
    for path, operations in paths.items():
        for method, operation in operations.items():
            if not isinstance(operation, dict) or not isinstance(operation.get("responses"),
                                                                  dict):
                continue
            responses = operation["responses"]
            view_class = tabular_views.get((path, method))
            for status, response in responses.items():
                content = response.get("content") if isinstance(response, dict) else None
                if not content or CSV_MEDIA_TYPE not in content:
                    continue
                if view_class is None or not str(status).startswith("2"):
                    del content[CSV_MEDIA_TYPE]
                    continue
                table = as_table(view_class.csv_table)
                json_schema = (content.get(JSON_MEDIA_TYPE) or {}).get("schema")
                paged = _paged(json_schema, table, resolve)
                content[CSV_MEDIA_TYPE] = {"schema": {
                    "type": "string", "description": csv_description(
                        schema_columns(json_schema, table, resolve), paged)}}
                if paged:
                    response.setdefault("headers", {})["Link"] = _LINK_HEADER
            if view_class is not None and offers_format_param(view_class):
                parameters = operation.setdefault("parameters", [])
                found = next((p for p in parameters if isinstance(p, dict)
                              and p.get("name") == FORMAT_PARAM and p.get("in") == "query"),
                             None)
                if found is None:
                    field = view_class.query_serializer._declared_fields[FORMAT_PARAM]
                    found = {"in": "query", "name": FORMAT_PARAM,
                             "schema": {"type": "string", "enum": [JSON, CSV]},
                             "description": str(field.help_text)}
                    parameters.append(found)
                # Says the parameter picks the representation, not the data: clients built
                # from the document that want the JSON (the MCP tools) leave it out.
                found[REPRESENTATION_EXTENSION] = True
            ok = responses.get("200")
            if path.startswith(("/v1/", "/v2/")) and "406" not in responses and \
                    isinstance(ok, dict) and JSON_MEDIA_TYPE in (ok.get("content") or {}):
                error = "ApiError" if path.startswith("/v2/") else "ErrorDetail"
                responses["406"] = {"description": _NOT_ACCEPTABLE, "content": {
                    JSON_MEDIA_TYPE: {"schema": {"$ref": f"#/components/schemas/{error}"}}}}
    return result
