"""The v2 endpoint kit: the base view, the spec's enums, ``fields`` and cursor paging.

Every /v2 view derives from :class:`V2ApiView` and *declares* what it takes:
``query_serializer`` (query parameters; rules across parameters, such as interval vs range,
in its ``validate``), ``path_choices`` (path segments that are enums), ``body_serializer``
(a JSON POST body), and what it gives: ``response_schema`` (its 200 body) and ``output``
(an :class:`Output`: the members ``fields`` selects among, those always present, where the
selected objects sit, the lists ``cursor``/``limit`` page). The base view validates the
inputs before the handler runs (so a bad value is a 400 ApiError before any upstream call)
and applies the output to what the handler's one service call returns
(:meth:`V2ApiView.answer`); :class:`apps.core.schema.V2AutoSchema` derives the OpenAPI
operation, its parameters and its error responses from the same declarations.

- ``fields``: comma list of top-level member names (camelCase, exact); unknown names are
  ignored and, when none is known, everything is returned (a filter never empties a body).
  A requested member is present even when the data has no value for it (null). For a list,
  the filter applies to each item.
- ``cursor``/``limit``: opt-in. With neither, a list is returned bare; with either, as a
  connection ``{edges: [{cursor, node}], nodes, pageInfo}``. A cursor is the base64url
  (no padding) JSON of the item's 0-based position, so a client can keep one across pages;
  padding and blanks around it are tolerated, any other string is a 400 (the OpenAPI
  schema states the cursors' exact pattern). The cursor is decoded while the query is
  validated, before any upstream call, by a bounded parser (no JSON: a regular expression
  of base64url whose bytes are the position's decimal digits). A cursor past the end gives
  an empty page.
- ``order``: a time-ordered list's query derives from :class:`OrderedPageQuery` (or
  :class:`OrderedQuery` when unpaged) and declares ``order = order_param(default, what)``,
  its default being the list's order without it. Read in the other order, the list is
  reversed by the paging itself (:func:`paginate`), whose cursors then encode
  ``-(position + 1)``: a cursor carries its walk's direction, and one used with the other
  ``order`` is a 400 before any upstream call.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from apps.core.cursors import encode_cursor
from apps.core.errors import V2
from apps.core.params import (
    BLANK,
    AnyTextParam,
    IntegerParam,
    SymbolListParam,
    choice,
    choices_message,
    symbol_list,
    validate_query,
)
from apps.core.parsers import JSONBodyParser
from apps.core.schema import V2AutoSchema
from apps.core.symbols import encoded_slash_in_path
from apps.core.views import ApiView
from marketdata.errors import FieldError, InvalidParameters, NotFound
from marketdata.records.bars import V2_INTERVALS, V2_RANGES, check_range_interval
from marketdata.records.batches import ERRORS_DESCRIPTION, SYMBOL_ERROR_SCHEMA
from marketdata.records.members import as_json, is_record
from marketdata.records.quotes import present_value

MAX_LIMIT = 1000
# base64url of up to 16 decimal digits is 22 characters, of a reversed walk's "-" and 16
# digits 23; up to two '=' of padding are tolerated (a client that pads what it decodes,
# as ORDERED_CURSOR_PATTERN allows), and blanks around (query values are stripped, as
# every text parameter is). (24 refused a pattern-valid reversed cursor with two '=':
# found by hypothesis.)
MAX_CURSOR_LENGTH = 23 + 2
_POSITION = re.compile(rb"0|[1-9][0-9]{0,15}")


def _cursor_pattern() -> str:
    """The exact language of our cursors: unpadded base64url of a position's decimal digits
    (no leading zero, at most 16 digits). Written out so the OpenAPI schema says precisely
    which strings are cursors (a fuzzer then sends garbled ones only as invalid data).

    Three ASCII digits (0x30-0x39) encode to four characters: the first digit fixes the
    first two (``M``/``N``/``O`` then ``D``/``T``/``j``/``z``), the second the third (a
    multiple of 4: ``A E I M Q U Y c g k``), the third the fourth (``w``-``z``, ``0``-``5``).
    A trailing single digit is two characters, two digits three (the spare bits zero).
    """
    lead = "(?:M[DTjz]|N[DTjz]|O[DT])"  # first digit 0-9
    lead_nonzero = "(?:M[Tjz]|N[DTjz]|O[DT])"  # first digit 1-9
    middle, last = "[AEIMQUYcgk]", "[w-z0-5]"
    group, first_group = f"{lead}{middle}{last}", f"{lead_nonzero}{middle}{last}"
    one_left = "(?:M[AQgw]|N[AQgw]|O[AQ])"  # one trailing digit 0-9
    two_left = f"{lead}{middle}"
    single = "(?:M[Qgw]|N[AQgw]|O[AQ])"  # the numbers 1-9
    return (f"(?:MA|{single}|{lead_nonzero}{middle}|{first_group}"
            f"(?:(?:{group}){{0,3}}(?:{one_left}|{two_left})?|(?:{group}){{4}}{one_left}?))")


def _reversed_cursor_pattern() -> str:
    """The language of a reversed walk's cursors (:func:`encode_cursor` with ``reverse``):
    unpadded base64url of ``-`` and the decimal digits of position + 1 (no leading zero, at
    most 16 digits). ``-`` and the first digit encode to ``LT`` and a multiple of 4 (the
    digit is not 0: ``E``..``k``); then as in :func:`_cursor_pattern`."""
    lead = "(?:M[DTjz]|N[DTjz]|O[DT])"
    middle, last = "[AEIMQUYcgk]", "[w-z0-5]"
    group = f"{lead}{middle}{last}"
    one_left = "(?:M[AQgw]|N[AQgw]|O[AQ])"
    two_left = f"{lead}{middle}"
    return f"(?:LT[EIMQUYcgk](?:{last}(?:{group}){{0,4}}(?:{one_left}|{two_left})?)?)"


_CURSOR_CORE = _cursor_pattern()
_REVERSED_CURSOR_CORE = _reversed_cursor_pattern()
# What the query may carry: the cursor, up to two '=' after it, blanks around it.
CURSOR_PATTERN = f"^[{BLANK}]*{_CURSOR_CORE}={{0,2}}[{BLANK}]*$"
# The cursor of a list with `order`: either walk's (see :class:`OrderedCursorParam`).
ORDERED_CURSOR_PATTERN = (f"^[{BLANK}]*(?:{_CURSOR_CORE}|{_REVERSED_CURSOR_CORE})={{0,2}}"
                          f"[{BLANK}]*$")
_CURSOR_TEXT = re.compile(_CURSOR_CORE, re.ASCII)
_ANY_CURSOR_TEXT = re.compile(f"{_CURSOR_CORE}|{_REVERSED_CURSOR_CORE}", re.ASCII)
_REVERSED_POSITION = re.compile(rb"-[1-9][0-9]{0,15}")

# -- the spec's enumerations, declared once -----------------------------------------------------
INTERVALS = V2_INTERVALS
TIME_RANGES = V2_RANGES
VALUE_FORMATS = ("raw", "pretty", "both")
ANALYSIS_TYPES = ("recommendations", "upgrades-downgrades", "earnings-estimate",
                  "earnings-history")
HOLDER_TYPES = ("major", "institutional", "mutualfund", "insider-transactions",
                "insider-purchases", "insider-roster")
REGIONS = ("AR", "AU", "BR", "CA", "CN", "DK", "FI", "FR", "DE", "GR", "HK", "IN", "IL", "IT",
           "JP", "KR", "MY", "MX", "NZ", "NO", "PT", "QA", "RU", "SG", "ES", "SE", "TW", "TH",
           "TR", "GB", "US", "VN")


def interval_param(default: str = "1d") -> serializers.ChoiceField:
    return choice(INTERVALS, required=False, default=default,
                  help_text=f"Bar interval (Interval); default {default}")


def range_param(default: str, text: str = "History window") -> serializers.ChoiceField:
    return choice(TIME_RANGES, required=False, default=default,
                  help_text=f"{text} (TimeRange); default {default}")


def format_param() -> serializers.ChoiceField:
    return choice(VALUE_FORMATS, required=False, default="raw",
                  help_text="Number format (ValueFormat): `raw` numbers, `pretty` Yahoo's "
                            "formatted strings (null where Yahoo sends none), `both` "
                            "`{raw, fmt, longFmt}` objects; default raw")


# ValueFormat spellings a client may send (any case); any other value means the default, raw.
FORMAT_ALIASES = {"raw": "raw", "pretty": "pretty", "fmt": "pretty", "both": "both",
                  "full": "both"}


def value_format(text: str | None) -> str:
    """The ValueFormat a ``format`` value names (:data:`FORMAT_ALIASES`), else ``raw``."""
    return FORMAT_ALIASES.get((text or "").strip().lower(), "raw")


def apply_format(data: Any, format: str | None) -> Any:
    """``data`` with every Yahoo number object ``{raw, fmt, longFmt}`` in it, at any depth,
    in the form ``format`` asks: ``raw`` the number, ``pretty`` the formatted string (null
    when the source sent none), ``both`` the object (see
    :func:`marketdata.records.quotes.present_value`)."""
    return present_value(data, value_format(format))


@extend_schema_field({"type": "string", "minLength": 1, "pattern": f"[^{BLANK}]"})
class ValueFormatParam(AnyTextParam):
    """``format`` read by :func:`value_format`: any non-blank text (an unknown value is
    raw); blank is a 400, as for every parameter but ``fields``."""

    def to_internal_value(self, data: Any) -> str:
        return value_format(super().to_internal_value(data))


def value_format_param() -> ValueFormatParam:
    """The lenient ``format`` of the market-wide routes (indices, market summary, sectors,
    screeners): any case, ``fmt`` for pretty and ``full`` for both, anything else raw.
    Declared as a plain string, since every non-blank string is accepted."""
    return ValueFormatParam(
        required=False, default="raw",
        help_text="Number format (ValueFormat, any case): `raw` numbers (default), `pretty` "
                  "(or `fmt`) Yahoo's formatted strings (null where Yahoo sends none), "
                  "`both` (or `full`) `{raw, fmt, longFmt}` objects; any other non-blank "
                  "value means raw")


class SymbolsParam(SymbolListParam):
    """``symbols`` of a v2 batch, validated into the list :func:`symbol_list` makes
    (order kept, duplicates removed, at most ``QUOTES_MAX_SYMBOLS``; malformed items kept
    as typed for the endpoint to report): the view receives the list, and a missing, blank
    or too long list is a 400 with the others."""

    # The text parameter validates into a list (DRF's CharField is typed to give a str).
    def to_internal_value(self, data: Any) -> list[str]:  # type: ignore[override]
        from django.conf import settings

        try:
            return symbol_list(super().to_internal_value(data), param=self.field_name or "symbols",
                               max_items=settings.QUOTES_MAX_SYMBOLS)
        except InvalidParameters as exc:
            raise serializers.ValidationError([e.message for e in exc.errors]) from None


# -- outputs ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Output:
    """What a v2 answer is made of, declared once per view and applied by
    :meth:`V2ApiView.answer`.

    - ``members``: the names ``fields`` selects among (unknown names are ignored);
    - ``always``: present whatever ``fields`` says;
    - ``at``: the path (member names) from the answer to the selected objects; a list on the
      way is entered item by item (``("charts", "chart")``: each item's ``chart``); empty:
      the answer itself, or each of its items when it is a list;
    - ``paged``: the lists ``cursor``/``limit`` page, by member name of the answer; ``""``
      is the answer itself when it is a list;
    - ``page_params``: the names of the cursor and the page size, where ``limit`` already
      means something else (``pageCursor``/``pageLimit`` of a batch whose ``limit`` is a
      count per item).
    - ``ordered``: the lists ``order`` reverses that are not paged (a paged list is read
      in the request's ``order`` by its paging; see :class:`OrderedQuery`).

    Selection comes first, then paging (a member ``fields`` left out is not paged).
    """

    members: tuple[str, ...] = ()
    always: tuple[str, ...] = ()
    at: tuple[str, ...] = ()
    paged: tuple[str, ...] = ()
    page_params: tuple[str, str] = ("cursor", "limit")
    ordered: tuple[str, ...] = ()

    def apply(self, data: Any, params: Mapping[str, Any]) -> Any:
        if self.members:
            fields = requested_fields(params.get("fields"), self.members)
            data = _select_at(data, self.at, fields, self.always)
        if self.page_params != ("cursor", "limit"):
            cursor, limit = self.page_params
            params = {"cursor": params.get(cursor), "limit": params.get(limit),
                      REVERSE: params.get(REVERSE)}
        for member in self.paged:
            if member == "":
                data = page(data, params) if isinstance(data, list) else data
            elif isinstance(data, dict):
                data = paginate_member(data, member, params)
        if params.get(REVERSE):
            for member in self.ordered:
                if member == "" and isinstance(data, list):
                    data = data[::-1]
                elif isinstance(data, dict) and isinstance(data.get(member), list):
                    data = {**data, member: data[member][::-1]}
        return data


def _select_at(data: Any, path: tuple[str, ...], fields: frozenset[str] | None,
               always: tuple[str, ...]) -> Any:
    if isinstance(data, list):
        return [_select_at(item, path, fields, always) for item in data]
    if not isinstance(data, dict):
        return data
    if not path:
        return select(data, fields, always)
    head, rest = path[0], path[1:]
    if head not in data:
        return data
    return {**data, head: _select_at(data[head], rest, fields, always)}


# -- the base view ------------------------------------------------------------------------------
class V2ApiView(ApiView):
    """Base for /v2 endpoints: declared inputs validated before the handler, errors as
    ApiError ``{error, status}``.

    After validation the handler finds ``self.params`` (the validated query) and, for a
    POST view, ``self.body`` (the validated body); path values arrive as usual.
    """

    error_style = V2
    query_serializer: type | None = None
    path_choices: Mapping[str, tuple[str, ...]] = {}
    # OpenAPI descriptions of path values, where the shared ones (``symbol``) do not fit: a
    # text, or a schema with a description ({"description": ..., "pattern": ...}).
    path_descriptions: Mapping[str, str | Mapping[str, Any]] = {}
    body_serializer: type | None = None
    response_schema: Any = None
    # OpenAPI: statuses beyond the shared ones, with their descriptions (a keyed-only
    # route's 501).
    extra_responses: Mapping[int, str] = {}
    output: Output = Output()
    # OpenAPI: operation id, tag, one-line summary; the description is the class docstring
    # unless ``description`` is set.
    operation_id: str | None = None
    tag: str | None = None
    summary: str | None = None
    description: str | None = None

    schema = V2AutoSchema()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.body_serializer is not None:  # a POST endpoint (JSON body only)
            cls.http_method_names = ["post", "options"]
            cls.parser_classes = [JSONBodyParser]

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)
        request_method = request.method or ""  # always set on a request the server received
        method = request_method.lower()
        # DRF looks the handler up after initial(): a wrong method is a 405, not a 400
        # about the parameters it would have taken; OPTIONS validates nothing.
        if method not in self.http_method_names or not hasattr(self, method):
            raise exceptions.MethodNotAllowed(request_method)
        if method == "options":
            return
        if kwargs and encoded_slash_in_path(request.META):
            # /v2/holders/AAPL%2Fx/major: the server decoded the slash before routing; a
            # slash is never part of a path value, so this is no symbol.
            raise NotFound("Not Found")
        errors: list[FieldError] = []
        for name, choices in self.path_choices.items():
            value = kwargs.get(name)
            if value not in choices:
                errors.append(FieldError(name, choices_message(choices), "enum", value,
                                         location="path"))
        try:
            self.params = (validate_query(self.query_serializer, request.query_params)
                           if self.query_serializer is not None else {})
        except InvalidParameters as exc:
            errors.extend(exc.errors)
        if errors:
            raise InvalidParameters(errors)
        self.body = validate_body(self.body_serializer, request.data) \
            if self.body_serializer is not None else None

    # ``fields`` of this request, as a helper for handlers.
    def fields(self, known: Iterable[str]) -> frozenset[str] | None:
        return requested_fields(self.params.get("fields"), known)

    def answer(self, data: Any, output: Output | None = None, **kwargs: Any) -> Response:
        """The 200 of the handler's service call, shaped by the view's declared ``output``
        (or ``output``, for a view whose members depend on a path value). A record that
        describes itself, or a list of them, is its members' JSON
        (:func:`~marketdata.records.members.as_json`); only the top level is looked at, so
        answers of plain dicts cost nothing more."""
        if is_record(data) or (isinstance(data, list) and data and is_record(data[0])):
            data = as_json(data)
        return Response((output or self.output).apply(data, self.params), **kwargs)


def validate_body(serializer_class: type[serializers.Serializer], data: Any) -> dict[str, Any]:
    """A JSON body validated by its serializer; a body that is not an object, or a member
    that is wrong, is InvalidParameters (400 naming the member)."""
    if not isinstance(data, dict):
        raise InvalidParameters([FieldError("body", "Input should be a JSON object",
                                            "model_type", None, location="body")])
    return validate_query(serializer_class, data)


# -- fields ---------------------------------------------------------------------------------
def requested_fields(text: str | None, known: Iterable[str]) -> frozenset[str] | None:
    """The known names listed in ``fields``, or None for "everything"."""
    if not text:
        return None
    known_set = set(known)
    chosen = frozenset(t for t in (part.strip() for part in text.split(",")) if t in known_set)
    return chosen or None


def select(obj: dict[str, Any], fields: frozenset[str] | None,
           always: Iterable[str] = ()) -> dict[str, Any]:
    """``obj`` reduced to ``fields`` (all of it when None) plus the ``always`` members.
    Requested members stay present even when null or absent from ``obj``, so a client's
    columns are stable; order follows ``obj``, absent ones last in name order."""
    if fields is None:
        return obj
    keep = fields.union(always)
    out = {key: value for key, value in obj.items() if key in keep}
    for name in sorted(keep - out.keys()):
        out[name] = None
    return out


# -- cursors and connections ------------------------------------------------------------------
@dataclass(frozen=True)
class WalkCursor:
    """A decoded cursor of a list with ``order``: the position, and whether it came from
    the reversed walk."""

    position: int
    reverse: bool


def _decode_cursor(cursor: Any, reversible: bool) -> WalkCursor | None:
    """Bounded work whatever the input: a strip (linear, in C; the request's URL limit bounds
    it), a length check, then a regular expression, never a JSON parser. White space
    around a cursor is any amount, as the documented pattern says (a length check before
    the strip refused a cursor padded with more of it than the pattern allows)."""
    if not isinstance(cursor, str):
        return None
    padded = cursor.strip()
    text = padded.rstrip("=")
    pattern = _ANY_CURSOR_TEXT if reversible else _CURSOR_TEXT
    if len(padded) > MAX_CURSOR_LENGTH or len(padded) - len(text) > 2 \
            or not pattern.fullmatch(text):
        return None
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, binascii.Error):
        return None
    if _POSITION.fullmatch(raw):
        walk = WalkCursor(int(raw), False)
    elif reversible and _REVERSED_POSITION.fullmatch(raw):
        walk = WalkCursor(-int(raw) - 1, True)
    else:
        return None
    # Canonical only: 'MB' decodes to b'0' too (base64 drops the spare bits); 'MA' is 0.
    return walk if encode_cursor(walk.position, walk.reverse) == text else None


def cursor_position(cursor: Any) -> int | None:
    """The position a cursor of a list without ``order`` names, or None when it is not one
    of ours (a reversed walk's cursor is not)."""
    walk = _decode_cursor(cursor, reversible=False)
    return None if walk is None else walk.position


def walk_cursor(cursor: Any) -> WalkCursor | None:
    """The position and direction a cursor of a list with ``order`` names, or None."""
    return _decode_cursor(cursor, reversible=True)


class _DecodedCursor(serializers.CharField):
    """A cursor parameter decoded during validation by ``decode`` (None: not one of ours),
    so a bad cursor is a 400 before any upstream call."""

    default_error_messages = {"invalid": "Invalid cursor"}
    decode: Callable[[str], Any]

    def to_internal_value(self, data: Any) -> Any:
        decoded = type(self).decode(super().to_internal_value(data))
        if decoded is None:
            self.fail("invalid")
        return decoded


@extend_schema_field({"type": "string", "pattern": CURSOR_PATTERN})
class CursorParam(_DecodedCursor):
    """The ``cursor`` query parameter, decoded to its position."""

    decode = staticmethod(cursor_position)


@extend_schema_field({"type": "string", "pattern": ORDERED_CURSOR_PATTERN})
class OrderedCursorParam(_DecodedCursor):
    """The ``cursor`` of a list with ``order``: decoded to a :class:`WalkCursor`, which
    :class:`OrderedQuery` checks against the request's ``order``."""

    decode = staticmethod(walk_cursor)


def paginate(items: Sequence[Any], cursor: int | None, limit: int | None,
             reverse: bool = False) -> Any:
    """Bare list without ``cursor`` and ``limit``; otherwise one page as a connection.
    ``cursor`` is the position :class:`CursorParam` decoded. ``reverse``: the list is read
    backwards (``order`` other than its default), positions and cursors are those of the
    reversed list (its cursors say so: see :func:`encode_cursor`), so walking its pages
    gives exactly the reversed list."""
    if reverse:
        items = list(reversed(items))
    if cursor is None and limit is None:
        return list(items)
    total = len(items)
    start = min(cursor + 1, total) if cursor is not None else 0
    end = total if limit is None else min(start + limit, total)
    return connection(items[start:end], start, end < total, reverse)


def connection(page: Sequence[Any], start: int, has_next: bool,
               reverse: bool = False) -> dict[str, Any]:
    """One page as a connection ``{edges, nodes, pageInfo}``: ``page`` holds the items at
    positions ``start``.. of the whole list (of its reversed walk with ``reverse``). Also
    for a list paged upstream (filings search), where the whole list is never held."""
    edges = [{"cursor": encode_cursor(start + i, reverse), "node": node}
             for i, node in enumerate(page)]
    return {
        "edges": edges,
        "nodes": list(page),
        "pageInfo": {
            "startCursor": edges[0]["cursor"] if edges else None,
            "endCursor": edges[-1]["cursor"] if edges else None,
            "hasNextPage": has_next,
            "hasPreviousPage": start > 0,
        },
    }


def paginate_member(obj: dict[str, Any], member: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``obj`` with its list ``member`` paged by the request's ``cursor``/``limit`` (chart
    candles, holders lists, observations, backtest curves); the other members unchanged.
    A member that is not a list (absent, or a plain object) is left as it is."""
    value = obj.get(member)
    if not isinstance(value, list):
        return obj
    return {**obj, member: paginate(value, params.get("cursor"), params.get("limit"),
                                    bool(params.get(REVERSE)))}


def page(items: Sequence[Any], params: Mapping[str, Any]) -> Any:
    """A top-level list paged by the request's ``cursor``/``limit`` (and ``order``)."""
    return paginate(items, params.get("cursor"), params.get("limit"),
                    bool(params.get(REVERSE)))


# -- JSON body members ----------------------------------------------------------------------
class BodyString(AnyTextParam):
    """A string member of a JSON body: a number or a boolean is not a string (DRF's
    CharField would turn ``0`` into ``"0"``)."""

    default_error_messages = {"invalid": "Input should be a valid string"}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class BodyInteger(IntegerParam):
    """An integer member of a JSON body: a JSON integer (``5``, or ``5.0``), never a
    string or a boolean (the query's parser reads text)."""

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, float) and data.is_integer():
            data = int(data)
        if isinstance(data, bool) or not isinstance(data, int):
            self.fail("invalid")
        return super().to_internal_value(data)


class BodyCursor(CursorParam):
    """A cursor member of a JSON body (a string of the cursor pattern, nothing else)."""

    def to_internal_value(self, data: Any) -> int:  # type: ignore[override]  # as CursorParam
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


# -- query declarations ---------------------------------------------------------------------
class FieldsQuery(serializers.Serializer):
    # Any text: a name with a NUL is just an unknown name, ignored like the others. A declared
    # field, not Serializer.fields: the serializer metaclass moves it out of the class.
    fields = AnyTextParam(  # type: ignore[assignment]
        required=False, allow_blank=True,
        help_text="Comma-separated member names to include (top level; for a list, of each "
                  "item). Unknown names are ignored; none known means all. A requested "
                  "member is present even when null")


class IntervalRangeRule:
    """Mixed into a query or body serializer with ``interval`` and ``range``: the spec's
    interval/range table checked with the other parameters (its 400 before any upstream
    call, after every parameter is valid on its own)."""

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        check_range_interval(attrs["range"], attrs["interval"])
        return attrs


class BatchPageQuery(FieldsQuery):
    """Paging over a batch's items where ``limit`` is a count per item: ``pageCursor`` and
    ``pageLimit`` (the view's Output names them in ``page_params``)."""

    pageCursor = CursorParam(  # noqa: N815
        required=False, help_text="`pageInfo.endCursor` of the previous page (opaque)")
    pageLimit = IntegerParam(  # noqa: N815
        required=False, min_value=0, max_value=MAX_LIMIT,
        help_text=f"Items per page, 0..{MAX_LIMIT}; with `pageCursor` or `pageLimit` the list "
                  "comes as a connection `{edges, nodes, pageInfo}`, with neither as a bare "
                  "array")


class PageQuery(FieldsQuery):
    cursor = CursorParam(
        required=False, help_text="`pageInfo.endCursor` of the previous page (opaque); past "
                                  "the end gives an empty page")
    limit = IntegerParam(
        required=False, min_value=0, max_value=MAX_LIMIT,
        help_text=f"Page size, 0..{MAX_LIMIT}; with `cursor` or `limit` the list comes as a "
                  "connection `{edges, nodes, pageInfo}`, with neither as a bare array")


# -- order: time-ordered lists ----------------------------------------------------------------
ORDERS = ("asc", "desc")
# The validated query's flag that the list is read against its default order (set by
# OrderedQuery, read by the paging).
REVERSE = "reverse"
ORDER_MISMATCH = ("Cursor from a page of the other order: a cursor continues the walk of "
                  "the `order` that gave it")


def order_param(default: str, what: str,
                paging: str = "`cursor`/`limit`") -> serializers.ChoiceField:
    """``order`` of a time-ordered list (``what``), ``default`` being its order without it;
    ``paging`` names the list's paging parameters."""
    return choice(ORDERS, required=False, default=default, help_text=(
        f"Order of the {what} in time: `asc` oldest first, `desc` newest first; default "
        f"`{default}`. With {paging}, walking the pages of one order gives exactly "
        "the other order's list reversed; a cursor belongs to the order of the page that "
        "gave it (with the other order it is a 400)"))


def order_note(default: str, what: str) -> str:
    """The sentence of an operation's description that states its list's order."""
    first = "oldest" if default == "asc" else "newest"
    return (f"`order` (`asc` oldest first, `desc` newest first) orders the {what} in time; "
            f"without it they come {first} first (`order={default}`). Cursors carry their "
            "walk's order: a cursor used with the other `order` is a 400.")


class OrderedQuery(FieldsQuery):
    """A query with ``order`` (declared by each subclass with :func:`order_param`, whose
    default is the list's order without it). Validation sets :data:`REVERSE` (the list is
    read against its default order) and turns a :class:`WalkCursor` into its position,
    refusing a cursor of the other order (400 before any upstream call). A subclass that
    has its own ``validate`` calls this one. ``cursor_name``: the cursor parameter
    (``pageCursor`` of a :class:`BatchPageQuery`)."""

    cursor_name = "cursor"

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs = super().validate(attrs)
        # `fields` the parameter shadows Serializer.fields for the type checker.
        reverse = attrs["order"] != self.fields["order"].default  # type: ignore[index]
        cursor = attrs.get(self.cursor_name)
        if isinstance(cursor, WalkCursor):
            if cursor.reverse != reverse:
                raise serializers.ValidationError({self.cursor_name: [ORDER_MISMATCH]},
                                                  code="order_mismatch")
            attrs[self.cursor_name] = cursor.position
        attrs[REVERSE] = reverse
        return attrs


class OrderedPageQuery(OrderedQuery, PageQuery):
    """:class:`PageQuery` of a time-ordered list: ``order`` with a cursor that carries it."""

    cursor = OrderedCursorParam(  # type: ignore[assignment]
        required=False, help_text="`pageInfo.endCursor` of the previous page (opaque; it "
                                  "belongs to that page's `order`); past the end gives an "
                                  "empty page")


class OrderedBatchPageQuery(OrderedQuery, BatchPageQuery):
    """:class:`BatchPageQuery` of a time-ordered list (whose ``limit`` is a count, not a
    page size): ``order`` with a ``pageCursor`` that carries it."""

    cursor_name = "pageCursor"
    pageCursor = OrderedCursorParam(  # type: ignore[assignment]  # noqa: N815
        required=False, help_text="`pageInfo.endCursor` of the previous page (opaque; it "
                                  "belongs to that page's `order`)")


# -- OpenAPI schema pieces ------------------------------------------------------------------
PAGE_INFO_SCHEMA: dict[str, Any] = {"type": "object", "properties": {
    "startCursor": {"type": ["string", "null"]},
    "endCursor": {"type": ["string", "null"]},
    "hasNextPage": {"type": "boolean"},
    "hasPreviousPage": {"type": "boolean"}},
    "required": ["startCursor", "endCursor", "hasNextPage", "hasPreviousPage"]}

ERRORS_SCHEMA: dict[str, Any] = {"type": "array", "description": ERRORS_DESCRIPTION,
                                  "items": SYMBOL_ERROR_SCHEMA}


def connection_schema(item: dict[str, Any], what: str = "items") -> dict[str, Any]:
    """A paged list: the bare array without ``cursor``/``limit``, a connection with either."""
    return {
        "description": f"Bare array of {what} without `cursor`/`limit`; a connection "
                       "`{edges, nodes, pageInfo}` with either",
        "oneOf": [
            {"type": "array", "items": item},
            {"type": "object", "properties": {
                "edges": {"type": "array", "items": {"type": "object", "properties": {
                    "cursor": {"type": "string"}, "node": item}}},
                "nodes": {"type": "array", "items": item},
                "pageInfo": PAGE_INFO_SCHEMA},
             "required": ["edges", "nodes", "pageInfo"]},
        ],
    }


def object_schema(properties: Mapping[str, Any], description: str | None = None,
                  required: Sequence[str] = ()) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": dict(properties)}
    if description:
        out["description"] = description
    if required:
        out["required"] = list(required)
    return out


def nullable(type_: str, **extra: Any) -> dict[str, Any]:
    """A JSON-schema type that may be null (OpenAPI 3.1 spelling)."""
    return {"type": [type_, "null"], **extra}


NUMBER = nullable("number")
INTEGER = nullable("integer")
STRING = nullable("string")
BOOLEAN = nullable("boolean")
