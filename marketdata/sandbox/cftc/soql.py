"""The SoQL subset the simulated datasets answer: ``$select``, ``$where``, ``$order``,
``$limit``, ``$offset`` and SODA's simple ``column=value`` filters.

Why a subset: the service sends ``$select`` (column list), ``$where``
(``cftc_contract_market_code='088691'``), ``$order`` (``report_date_as_yyyy_mm_dd DESC``)
and ``$limit``; anything Socrata would also accept beyond the grammar below is refused
with Socrata's 400 (``query.compiler.malformed``), never silently misread.

- ``$select``: ``*`` or a comma list of column names;
- ``$where``: comparisons joined by ``AND``: ``column op literal`` with op one of
  ``= != <> < <= > >=``, or ``column IN (literal, ...)``; a literal is a single-quoted
  string (``''`` is a quote) or a number. Strings compare as text, numbers as numbers; a
  date literal ``'2024-08-20'`` means that day's floating timestamp;
- ``$order``: comma list of ``column [ASC|DESC]`` (numbers sort as numbers);
- ``$limit``: 0..50000, default 1000 (SODA 2.0's default); ``$offset``: default 0.

An unknown column is ``query.soql.no-such-column``; an unknown ``$`` parameter is
``query.soql.invalid-parameter``; ``$$app_token`` is accepted and ignored.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

MAX_LIMIT = 50_000
DEFAULT_LIMIT = 1000
DATE_COLUMN = "report_date_as_yyyy_mm_dd"
_KNOWN_PARAMS = {"$select", "$where", "$order", "$limit", "$offset", "$$app_token"}
_TOKEN = re.compile(r"""\s*(?:(?P<string>'(?:[^']|'')*')|(?P<number>-?[0-9]+(?:\.[0-9]+)?)
                        |(?P<op><=|>=|!=|<>|=|<|>)|(?P<punct>[(),])
                        |(?P<word>[A-Za-z_][A-Za-z0-9_]*))""", re.VERBOSE)
_DAY = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


class SoqlError(Exception):
    """A query Socrata would refuse: ``code`` is Socrata's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Condition:
    column: str
    op: str  # = != < <= > >= in
    values: tuple[Any, ...]  # str (text literal) or float (number literal)

    def holds(self, value: str | None) -> bool:
        if value is None:
            return False
        if self.op == "in":
            return any(_compare(value, literal) == 0 for literal in self.values)
        order = _compare(value, self.values[0])
        if order is None:
            return False
        return {"=": order == 0, "!=": order != 0, "<": order < 0, "<=": order <= 0,
                ">": order > 0, ">=": order >= 0}[self.op]


@dataclass(frozen=True)
class Query:
    select: tuple[str, ...] | None  # None: every column
    where: tuple[Condition, ...] = ()
    order: tuple[tuple[str, bool], ...] = ()  # (column, descending)
    limit: int = DEFAULT_LIMIT
    offset: int = 0
    codes: tuple[str, ...] | None = field(default=None)  # pinned by = / IN on the code

    def matches(self, get: Callable[[str], str | None]) -> bool:
        return all(c.holds(get(c.column)) for c in self.where)


def _compare(value: str, literal: Any) -> int | None:
    if isinstance(literal, float):
        try:
            number = float(value)
        except ValueError:
            return None
        return (number > literal) - (number < literal)
    return (value > literal) - (value < literal)


def _malformed(message: str) -> SoqlError:
    return SoqlError("query.compiler.malformed", f"Could not parse SoQL query: {message}")


def _column(name: str, columns: Sequence[str]) -> str:
    column = name.lower()
    if column not in columns:
        raise SoqlError("query.soql.no-such-column", f"No such column: {name}")
    return column


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    position = 0
    text = text.rstrip()
    while position < len(text):
        m = _TOKEN.match(text, position)
        if m is None or m.end() == position:
            raise _malformed(f"unexpected character at position {position}")
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        position = m.end()
    return out


def _literal(kind: str, text: str, column: str) -> Any:
    if kind == "number":
        return float(text)
    if kind != "string":
        raise _malformed(f"expected a literal, found {text!r}")
    value = text[1:-1].replace("''", "'")
    if column == DATE_COLUMN and _DAY.fullmatch(value):
        value += "T00:00:00.000"
    return value


def parse_where(text: str, columns: Sequence[str]) -> tuple[Condition, ...]:
    tokens = _tokens(text)
    conditions: list[Condition] = []
    i = 0
    while True:
        if i >= len(tokens):
            raise _malformed("empty condition")
        kind, word = tokens[i]
        if kind != "word":
            raise _malformed(f"expected a column, found {word!r}")
        if i + 1 < len(tokens) and tokens[i + 1] == ("punct", "("):
            raise _malformed(f"the sandbox supports no SoQL functions ({word})")
        column = _column(word, columns)
        op_kind, op = tokens[i + 1] if i + 1 < len(tokens) else ("", "")
        if op_kind == "op":
            if i + 2 >= len(tokens):
                raise _malformed("incomplete condition")
            conditions.append(Condition(column, "!=" if op == "<>" else op,
                                        (_literal(*tokens[i + 2], column),)))
            i += 3
        elif op_kind == "word" and op.upper() == "IN":
            if i + 2 >= len(tokens) or tokens[i + 2] != ("punct", "("):
                raise _malformed("IN needs a parenthesised list")
            values: list[Any] = []
            i += 3
            while True:
                if i >= len(tokens):
                    raise _malformed("unclosed IN list")
                values.append(_literal(*tokens[i], column))
                if i + 1 >= len(tokens):
                    raise _malformed("unclosed IN list")
                sep = tokens[i + 1]
                i += 2
                if sep == ("punct", ")"):
                    break
                if sep != ("punct", ","):
                    raise _malformed("expected , or ) in IN list")
            conditions.append(Condition(column, "in", tuple(values)))
        else:
            raise _malformed(f"expected an operator after {word!r} (the sandbox supports "
                             "comparisons and IN joined by AND)")
        if i == len(tokens):
            return tuple(conditions)
        if tokens[i][0] != "word" or tokens[i][1].upper() != "AND":
            raise _malformed(f"expected AND, found {tokens[i][1]!r}")
        i += 1
        if i == len(tokens):
            raise _malformed("AND without a condition")


def parse_order(text: str, columns: Sequence[str]) -> tuple[tuple[str, bool], ...]:
    out: list[tuple[str, bool]] = []
    for part in text.split(","):
        words = part.split()
        if not 1 <= len(words) <= 2 or (len(words) == 2 and words[1].upper() not in
                                        ("ASC", "DESC")):
            raise _malformed(f"bad $order term {part.strip()!r}")
        out.append((_column(words[0], columns), len(words) == 2 and words[1].upper() == "DESC"))
    return tuple(out)


def _count(name: str, text: str, default: int, maximum: int | None) -> int:
    if text == "":
        return default
    if not re.fullmatch(r"[0-9]+", text):
        raise SoqlError("query.soql.invalid-parameter", f"{name} must be a non-negative "
                        "integer")
    value = int(text)
    if maximum is not None and value > maximum:
        raise SoqlError("query.soql.invalid-parameter", f"{name} must be at most {maximum}")
    return value


def parse_query(args: dict[str, list[str]], columns: Sequence[str],
                code_column: str) -> Query:
    """The request's query string -> a :class:`Query` (raises :class:`SoqlError`)."""
    def last(name: str) -> str | None:
        values = args.get(name)
        return values[-1] if values else None

    unknown = sorted(k for k in args if k.startswith("$") and k not in _KNOWN_PARAMS)
    if unknown:
        raise SoqlError("query.soql.invalid-parameter", f"Unrecognized arguments {unknown}")
    select_text = (last("$select") or "*").strip()
    select = None if select_text == "*" else tuple(
        _column(part.strip(), columns) for part in select_text.split(","))
    where: list[Condition] = []
    if last("$where"):
        where.extend(parse_where(last("$where") or "", columns))
    for name, values in args.items():  # SODA simple filters: ?column=value
        if not name.startswith("$") and values:
            column = _column(name, columns)
            where.append(Condition(column, "=", (_literal("string", f"'{values[-1]}'",
                                                          column),)))
    order = parse_order(last("$order") or "", columns) if last("$order") else ()
    codes: set[str] | None = None
    for condition in where:
        if condition.column == code_column and condition.op in ("=", "in"):
            pinned = {str(v) for v in condition.values}
            codes = pinned if codes is None else codes & pinned
    return Query(select, tuple(where), order,
                 _count("$limit", (last("$limit") or "").strip(), DEFAULT_LIMIT, MAX_LIMIT),
                 _count("$offset", (last("$offset") or "").strip(), 0, None),
                 tuple(sorted(codes)) if codes is not None else None)


def sort_key(value: str | None) -> tuple[int, Any]:
    """Numbers before text, numbers by value (Socrata's number columns sort numerically)."""
    if value is None:
        return (2, "")
    try:
        return (0, float(value))
    except ValueError:
        return (1, value)
