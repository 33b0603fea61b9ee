"""Query-parameter validation with the reference's (pydantic-style) messages.

Endpoints declare their parameters as a :class:`QuerySerializer`; that one declaration
validates the request, documents the parameters in OpenAPI, and produces
:class:`~marketdata.errors.InvalidParameters` with messages clients of the reference
already match on ("Field required", "Input should be '25', '50' or '100'", ...).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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


def validate_query(serializer_class: type[serializers.Serializer],
                   params: Mapping[str, Any]) -> dict[str, Any]:
    """Validated values, or InvalidParameters listing every bad parameter."""
    serializer = serializer_class(data=params)
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

    Items are upper-cased but not yet validated: an item that is not a valid symbol is
    treated by the caller like an unknown one (it can never resolve).
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
