"""The data-module endpoints (analysis and holders): one type table shape, one service, one
v2 view, one v2 response schema; each app declares its table and its docs.

Each type of such an endpoint is one data module of the symbol
(:func:`marketdata.capabilities.fundamentals.module_data`), served as v1's body (every
type's member present, only the requested one filled, so clients see one stable shape), as
the reference implementation's sub-route body and as v2's raw module. Either way a type with
no data (the source's "not found" for the module, or a module with nothing in it, as the
type's v1 builder decides) is a 404 like an unknown symbol; a missing field inside the data
is null. v2's module of each type is a record that declares its known members and passes the
others through (``v2_record``: :mod:`marketdata.records.fundamentals`,
:mod:`marketdata.records.analysts`), which gives its JSON, what ``fields`` selects among and
the schema.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.params import choice
from apps.core.shapes import record_output, record_schema, union_schema
from apps.core.symbols import require_symbol
from apps.core.v2 import (
    ORDER_MISMATCH,
    ORDERS,
    REVERSE,
    OrderedCursorParam,
    PageQuery,
    V2ApiView,
    WalkCursor,
    connection_schema,
)
from marketdata.errors import FieldError, InvalidParameters, NotFound
from marketdata.records.fundamentals import ModuleData
from marketdata.records.members import (
    described,
    from_members,
    members_of,
    passed_names,
    record_in,
)

T = TypeVar("T")

# Yahoo's member names that break camel case, as v2 spells them (at any depth).
CAMEL_NAMES = {
    "7daysAgo": "sevenDaysAgo", "30daysAgo": "thirtyDaysAgo", "60daysAgo": "sixtyDaysAgo",
    "90daysAgo": "ninetyDaysAgo", "upLast7days": "upLast7Days",
    "upLast30days": "upLast30Days", "upLast90days": "upLast90Days",
    "downLast7days": "downLast7Days", "downLast30days": "downLast30Days",
    "downLast90days": "downLast90Days",
}


def camel_members(value: Any) -> Any:
    """``value`` with Yahoo's oddly cased member names (``7daysAgo``, ``upLast7days``)
    renamed at every depth; everything else as it is."""
    if isinstance(value, dict):
        return {CAMEL_NAMES.get(k, k): camel_members(v) for k, v in value.items()}
    if isinstance(value, list):
        return [camel_members(v) for v in value]
    return value


def _row_record(record: type, name: str) -> type | None:
    """The record of each row of ``record``'s list member ``name``."""
    member = next(m for m in members_of(record) if m.name == name)
    inner, listed = record_in(typing.get_type_hints(record)[member.attribute])
    return inner if listed else None


def open_schema(record: type, description: str | None = None) -> dict[str, Any]:
    """The schema of a module's row: every known member present (maybe null), those that
    are records their own object or null, the others passed through."""
    hints = typing.get_type_hints(record)
    nested: dict[str, Any] = {}
    for member in members_of(record):
        inner, listed = record_in(hints[member.attribute])
        if inner is not None and not listed:
            text = described(member.description) if member.description else member.name
            nested[member.name] = {**open_schema(inner, text), "type": ["object", "null"]}
    return record_schema(record, description, nested=nested)


def listed(of: Callable[[Any], Any]) -> Callable[[list[Any]], list[Any] | None]:
    """A list type's v1 builder: its rows as ``of`` makes them, None when there are none."""
    return lambda rows: [of(row) for row in rows] or None


@dataclass(frozen=True)
class ModuleType:
    """One type of a data-module endpoint, everything its interfaces need to know."""

    v1_name: str  # v1 query form value ("upgrades_downgrades")
    route: str  # kebab name: v1 sub-route alias and v2 {type} ("upgrades-downgrades")
    module: str  # the data module it is read from
    build: Callable[[Any], Any]  # v1: module record -> member, None when there is no data
    label: str  # "No {label} data found for SYM"
    # v2's module: the record declaring its known members; None: not served by v2.
    v2_record: type | None = None
    v2_list: str | None = None  # the v2 member `cursor`/`limit` page; None: not a list type
    # The order in time of ``v2_list`` as served ("asc"/"desc"); None: not time-ordered
    # (then `order` is refused).
    v2_order: str | None = None
    # v2: module record -> whether there is data (defaults to the v1 builder finding some).
    v2_has_data: Callable[[Any], Any] | None = None
    v1_member: str | None = None  # the v1 body member it fills (None: ``v1_name``)
    # The reference's sub-route body: a record of the symbol and the v1 member.
    reference: Callable[[str, Any], Any] | None = None

    @property
    def in_v2(self) -> bool:
        return self.v2_record is not None

    @property
    def v2_members(self) -> tuple[str, ...]:
        """v2's known top-level members."""
        return tuple(m.name for m in members_of(self.v2_record)) if self.v2_record else ()

    @property
    def member(self) -> str:
        return self.v1_member or self.v1_name

    def has_v2_data(self, record: Any) -> bool:
        return (self.v2_has_data or self.build)(record) is not None


class ModuleEndpoint:
    """A data-module endpoint: its type table and what v1 (query form and reference
    sub-routes) and v2 serve from it. v1's query choices, sub-route aliases and members
    and v2's path names are all derived from the table."""

    def __init__(self, param: str, fetch: Callable[..., ModuleData],
                 types: Iterable[ModuleType]) -> None:
        self.param = param  # v1's query parameter and body member naming the type
        self.fetch = fetch  # (symbol, module, *, members) -> ModuleData
        self.types: dict[str, ModuleType] = {t.v1_name: t for t in types}
        self.names = tuple(self.types)
        # The reference implementation's sub-route names -> type.
        self.aliases = {t.route: t.v1_name for t in self.types.values()
                        if t.route != t.v1_name}
        self.members = {name: t.member for name, t in self.types.items()}
        self.v2_types: Mapping[str, ModuleType] = {t.route: t for t in self.types.values()
                                                   if t.in_v2}

    def _module(self, symbol: str, kind: ModuleType, members: bool = False) -> ModuleData:
        """The type's module for a validated symbol; the source's "not found" (no such
        symbol, or no data for the module) is this type's "no data" 404."""
        try:
            return self.fetch(symbol, kind.module, members=members)
        except NotFound:
            raise _no_data(kind, symbol) from None

    def member(self, symbol: str, name: str) -> Any:
        """The v1 member of one type of a validated symbol; NotFound when there is none."""
        kind = self.types[name]
        member = kind.build(self._module(symbol, kind).record)
        if member is None:
            raise _no_data(kind, symbol)
        return member

    def body(self, symbol_text: str, name: str, record: Callable[..., T]) -> T:
        """v1's answer, ``record`` (whose members are ``symbol``, the type and every type's
        member, None unless given): only the requested type's member filled."""
        symbol = require_symbol(symbol_text)
        return record(**{"symbol": symbol, self.param: name,
                         self.members[name]: self.member(symbol, name)})

    def reference_body(self, symbol_text: str, name: str) -> Any:
        """The reference's sub-route body, ``{symbol, <its member>: <the v1 member>}``."""
        symbol = require_symbol(symbol_text)
        reference = self.types[name].reference
        assert reference is not None, f"{name} has no reference body"
        return reference(symbol, self.member(symbol, name))

    def v2_module(self, symbol_text: str, route: str) -> tuple[ModuleType, Any]:
        """v2: the type named ``route`` and its module's record (camel-case names; the
        known members declared, null when Yahoo sent none, rows too; the others passed
        through). 404 for a malformed or unknown symbol and when the type has no data (the
        same decision as v1's)."""
        symbol = require_symbol(symbol_text)
        kind = self.v2_types[route]
        assert kind.v2_record is not None
        data = self._module(symbol, kind, members=True)
        body = data.members or {}
        if not any(name != "maxAge" for name in body) or not kind.has_v2_data(data.record):
            raise _no_data(kind, symbol)
        return kind, from_members(kind.v2_record, camel_members(body))


def _no_data(kind: ModuleType, symbol: str) -> NotFound:
    return NotFound(f"No {kind.label} data found for {symbol}")


def module_order_param(endpoint: ModuleEndpoint) -> Any:
    """``order`` of a module endpoint: each time-ordered type's list has its own default
    order, so the parameter has none (absent: the type's order)."""
    ordered = [t for t in endpoint.v2_types.values() if t.v2_order]
    defaults = "; ".join(f"`{t.route}` `{t.v2_list}` {t.v2_order}" for t in ordered)
    return choice(ORDERS, required=False, help_text=(
        "Order in time of a time-ordered type's list: `asc` oldest first, `desc` newest "
        f"first; default the type's own ({defaults}). No effect on the other types. With "
        "`cursor`/`limit`, walking the pages of one order gives exactly the other order's "
        "list reversed; a cursor belongs to the order of the page that gave it (with the "
        "other order it is a 400)"))


class V2ModuleQuery(PageQuery):
    """`fields`, `cursor`/`limit` (the cursor carries its walk's order) and `order` (whose
    default depends on the type: see :func:`ordered_params`); a subclass declares
    ``order = module_order_param(ENDPOINT)``."""

    cursor = OrderedCursorParam(
        required=False, help_text="`pageInfo.endCursor` of the previous page (opaque; it "
                                  "belongs to that page's `order`); past the end gives an "
                                  "empty page")


def ordered_params(params: dict[str, Any], endpoint: ModuleEndpoint,
                   route: str) -> dict[str, Any]:
    """The validated query of the endpoint's type ``route`` with :data:`REVERSE` set
    (``order`` against the type's own order; a type that is not time-ordered ignores it, as
    a type without a list ignores `cursor`/`limit`) and the cursor's position;
    InvalidParameters (a 400 before any upstream call) for a cursor of the other order."""
    kind = endpoint.v2_types[route]
    order = params.get("order") if kind.v2_order else None
    reverse = order is not None and order != kind.v2_order
    cursor = params.get("cursor")
    if isinstance(cursor, WalkCursor):
        if cursor.reverse != reverse:
            raise InvalidParameters([FieldError("cursor", ORDER_MISMATCH)])
        cursor = cursor.position
    return {**params, "cursor": cursor, REVERSE: reverse}


class V2ModuleView(V2ApiView):
    """Base of the v2 data-module views: ``endpoint`` serves the type named in the path;
    `fields` selects among the type's known members and whatever else the module has,
    `cursor`/`limit` page the type's list member, `order` reads a time-ordered type's list
    in either order."""

    endpoint: ModuleEndpoint

    def get(self, request: Request, symbol: str, type: str) -> Response:
        self.params = ordered_params(self.params, self.endpoint, type)
        kind, module = self.endpoint.v2_module(symbol, type)
        assert kind.v2_record is not None
        return self.answer(module, record_output(
            kind.v2_record, passed=passed_names(module),
            paged=(kind.v2_list,) if kind.v2_list else ()))


def v2_module_schema(what: str, endpoint: ModuleEndpoint) -> dict[str, Any]:
    """The v2 body of a module endpoint: one object for every type's record (the members
    depend on the type, each saying which types have it), open to the members Yahoo adds.
    Each list member is a paged list of its rows (a bare array, or a connection with
    `cursor`/`limit`); a member several types share has rows of either type's record."""
    records = {t.route: t.v2_record for t in endpoint.v2_types.values()
               if t.v2_record is not None}
    rows: dict[str, list[dict[str, Any]]] = {}
    for t in endpoint.v2_types.values():
        if t.v2_list and t.v2_record is not None:
            row = _row_record(t.v2_record, t.v2_list)
            assert row is not None, f"{t.route}'s {t.v2_list} is not a list of records"
            rows.setdefault(t.v2_list, []).append(open_schema(row, f"A {t.route} row"))
    nested = {name: connection_schema(shapes[0] if len(shapes) == 1 else {"anyOf": shapes},
                                      "rows")
              for name, shapes in rows.items()}
    schema = union_schema(records, f"The {what} module's members as Yahoo sends them "
                                   "(camelCase names; every `{raw, fmt}` object reduced to "
                                   "its raw value, Yahoo's empty `{}` to null). Which members "
                                   "appear depends on the type: see the operation description",
                          nested=nested)
    # the lists first: the members that tell the types apart
    schema["properties"] = {**{name: schema["properties"][name] for name in nested},
                            **schema["properties"]}
    return schema
