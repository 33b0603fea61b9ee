"""Query-parameter validation with the reference's (pydantic-style) messages.

Endpoints declare their parameters as a :class:`QuerySerializer`; that one declaration
validates the request, documents the parameters in OpenAPI, and produces
:class:`~marketdata.errors.InvalidParameters` with messages clients of the reference
already match on ("Field required", "Input should be '25', '50' or '100'", ...).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from django.core.validators import ProhibitNullCharactersValidator
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from marketdata.errors import FieldError, InvalidParameters


def choices_message(choices: list[str] | tuple[str, ...]) -> str:
    """"Input should be 'a', 'b' or 'c'" (pydantic's enum wording)."""
    quoted = [f"'{c}'" for c in choices]
    if len(quoted) == 1:
        return f"Input should be {quoted[0]}"
    return f"Input should be {', '.join(quoted[:-1])} or {quoted[-1]}"


# DRF error code -> (pydantic error type, message builder)
_MESSAGES: dict[str, tuple[str, Any]] = {
    "required": ("missing", lambda f: "Field required"),
    "null": ("missing", lambda f: "Field required"),
    "blank": ("string_too_short", lambda f: "String should have at least 1 character"),
    "invalid_choice": ("enum", lambda f: choices_message(list(f.choices))),
    "min_value": ("greater_than_equal",
                  lambda f: f"Input should be greater than or equal to {f.min_value}"),
    "max_value": ("less_than_equal",
                  lambda f: f"Input should be less than or equal to {f.max_value}"),
    "max_length": ("string_too_long",
                   lambda f: f"String should have at most {f.max_length} characters"),
    "max_string_length": ("int_parsing", lambda f: "Input should be a valid integer, unable "
                          "to parse string as an integer"),
}
_INVALID: dict[type, tuple[str, str]] = {
    serializers.IntegerField: ("int_parsing",
                               "Input should be a valid integer, unable to parse string as an "
                               "integer"),
    serializers.BooleanField: ("bool_parsing",
                               "Input should be a valid boolean, unable to interpret input"),
}


# An integer in a query string: optional sign, ASCII digits; the whole text at most 4,300
# characters (Python's int() digit limit). Full-width and other Unicode digits,
# underscores, exponents ('1e5') and decimals ('5.0': the schema says integer) are not.
_INTEGER_TEXT = re.compile(r"[+-]?[0-9]+", re.ASCII)
MAX_INTEGER_TEXT = 4300
_ASCII_SPACE = " \t\n\r\f\v"


def parse_integer(value: Any) -> int | None:
    """An integer query value, or None when it is not one. Never raises: the one integer
    parser of every query parameter (DRF's ``int()`` would take full-width digits and
    '1_0', and ``int()`` of a 5,000-digit string raises ValueError)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if not isinstance(value, str) or len(value) > MAX_INTEGER_TEXT:
        return None
    text = value.strip(_ASCII_SPACE)
    if not _INTEGER_TEXT.fullmatch(text):
        return None
    return int(text)


class IntegerParam(serializers.IntegerField):
    """An integer query parameter read by :func:`parse_integer`; anything else is the
    endpoint's "Input should be a valid integer" error, never a 500."""

    def to_internal_value(self, data: Any) -> int:
        number = parse_integer(data)
        if number is None:
            self.fail("invalid")
        return number


class QuerySerializer(serializers.Serializer):
    """Base for query declarations; subclasses only declare fields."""

    def to_representation(self, instance: Any) -> Any:  # pragma: no cover - input only
        raise NotImplementedError


def _error_kind(field: serializers.Field | None, code: str) -> tuple[str, str | None]:
    if field is not None and code in _MESSAGES:
        kind, build = _MESSAGES[code]
        return kind, build(field)
    if field is not None and code == "invalid":
        for cls, (kind, message) in _INVALID.items():
            if isinstance(field, cls):
                return kind, message
    return "value_error", None


def _flatten(name: str, detail: Any, field: serializers.Field | None,
             data: Mapping[str, Any], out: list[FieldError]) -> None:
    if isinstance(detail, dict):
        child = getattr(field, "child", None)
        values = data.getlist(name) if hasattr(data, "getlist") else data.get(name) or []
        for index, sub in detail.items():
            value = values[int(index)] if str(index).isdigit() and int(index) < len(values) \
                else None
            _flatten_item(f"{name}.{index}", sub, child, value, out)
        return
    value = data.get(name) if hasattr(data, "get") else None
    _flatten_item(name, detail, field, value, out)


def _flatten_item(name: str, detail: Any, field: serializers.Field | None, value: Any,
                  out: list[FieldError]) -> None:
    items = detail if isinstance(detail, list) else [detail]
    for item in items:
        code = getattr(item, "code", "invalid")
        kind, message = _error_kind(field, code)
        out.append(FieldError(param=name, message=message or str(item), kind=kind, value=value))


def given_values(fields: Mapping[str, serializers.Field],
                 params: Mapping[str, Any]) -> Mapping[str, Any]:
    """The query as plain data: each parameter's last value (every value for list fields).

    DRF reads a QueryDict like an HTML form, where an empty optional value (``count=``)
    means "not given" and the default is used. Here an empty value is a value: it is
    validated like any other (so ``count=`` is a 422, as the OpenAPI schema says).
    """
    if not hasattr(params, "getlist"):
        return params
    return {name: params.getlist(name) if isinstance(fields.get(name), serializers.ListField)
            else params.get(name) for name in params}


def validate_query(serializer_class: type[serializers.Serializer],
                   params: Mapping[str, Any]) -> dict[str, Any]:
    """Validated values, or InvalidParameters listing every bad parameter. An empty value
    is validated as given, never read as an absent parameter (see :func:`given_values`)."""
    serializer = serializer_class(data=params)
    serializer.initial_data = given_values(serializer.fields, params)
    if serializer.is_valid():
        return dict(serializer.validated_data)
    errors: list[FieldError] = []
    for name, detail in serializer.errors.items():
        _flatten(name, detail, serializer.fields.get(name), params, errors)
    raise InvalidParameters(errors)


def choice(choices: tuple[str, ...] | list[str], **kwargs: Any) -> serializers.ChoiceField:
    """A ChoiceField that keeps declaration order in its error message and docs."""
    return serializers.ChoiceField(choices=list(choices), **kwargs)


def symbol_list(text: str | None, param: str = "symbols", max_items: int = 50) -> list[str]:
    """A comma list of symbols: order kept, duplicates removed, 1..max_items items.

    Items are split by :func:`marketdata.symbols.split_symbols`: valid ones canonical
    (checked as ASCII before upper-casing), invalid ones kept as typed; the caller treats
    an invalid item like an unknown symbol (it can never resolve).
    """
    from marketdata.symbols import split_symbols

    if text is None:
        raise InvalidParameters([FieldError(param, "Field required", "missing", None)])
    items = split_symbols(text)
    if not items:
        raise InvalidParameters([FieldError(param, "String should have at least 1 character",
                                            "string_too_short", text)])
    if len(items) > max_items:
        raise InvalidParameters([FieldError(
            param, f"List should have at most {max_items} items after validation, not "
            f"{len(items)}", "too_long", text)])
    return items


# The characters Python's str.strip() removes (str.isspace()), spelled out: `\s` differs
# between regex dialects (ECMA's lacks \x1c-\x1f and \x85 and has \ufeff), and a pattern
# in the OpenAPI schema must say exactly what the service trims.
BLANK = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
NOT_BLANK = rf"[^{BLANK}]"  # "some character that is not blank"


# ASCII's white space, what str.strip() removes of ASCII text (the file separators too).
_ASCII_SPACE = "".join(c for c in map(chr, range(128)) if c.isspace())


class AnyTextParam(serializers.CharField):
    """A query string taken as given, NUL characters included: DRF refuses those with its
    own error, but here they mean nothing special (a symbol with one is a malformed symbol,
    a member name with one is an unknown name). Trimmed of ASCII white space only: DRF's
    trim (str.strip) also drops a no-break space or any other Unicode space, which turned
    ``0\u00a0``, a malformed symbol (404 without a call), into the symbol ``0``."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.validators = [v for v in self.validators
                           if not isinstance(v, ProhibitNullCharactersValidator)]

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, bool) or not isinstance(data, (str, int, float)):
            self.fail("invalid")
        value = str(data)
        return value.strip(_ASCII_SPACE) if self.trim_whitespace else value


@extend_schema_field({"type": "string", "minLength": 1, "pattern": NOT_BLANK})
class TextParam(AnyTextParam):
    """Free text that must say something: empty or blank is the parameter's error (DRF's
    blank check, after trimming), and the schema says so."""


@extend_schema_field({"type": "string", "minLength": 1, "pattern": NOT_BLANK})
class SymbolParam(AnyTextParam):
    """A ticker symbol in the query: blank (empty or whitespace) is a 422; any other text is
    passed to the view, where a malformed symbol is an unknown one (404, never sent
    upstream). The OpenAPI pattern ("some non-blank character") says just that."""


@extend_schema_field({"type": "string", "minLength": 1, "pattern": rf"[^{BLANK},]"})
class SymbolListParam(AnyTextParam):
    """A comma list of symbols (:func:`symbol_list`): at least one non-blank item, else 422
    (v2: 400); malformed items are left out like unknown symbols. The OpenAPI pattern
    ("some character that is neither blank nor a comma") says so."""


@extend_schema_field({"type": "string", "format": "date",
                      "pattern": r"^\s*\d{4}-\d{2}-\d{2}\s*$"})
class DayParam(AnyTextParam):
    """A calendar day, ``YYYY-MM-DD``."""

    default_error_messages = {"invalid": "Input should be a valid date in the format YYYY-MM-DD"}

    def to_internal_value(self, data: Any) -> str:
        text = super().to_internal_value(data).strip()
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text, re.ASCII):
            self.fail("invalid")
        try:
            date.fromisoformat(text)
        except ValueError:
            self.fail("invalid")
        return text
