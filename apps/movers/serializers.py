"""The v1 movers' query and the v2 screeners': the query and the custom screen's JSON body
(validated member by member against :mod:`marketdata.records.screeners`). The answers are
records (:class:`apps.movers.services.MarketMover`, :mod:`marketdata.records.screeners`)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema_field
from rest_framework import serializers

from apps.core.params import IntegerParam, QuerySerializer, choice
from apps.core.v2 import BodyInteger, BodyString, PageQuery, value_format_param
from marketdata.errors import FieldError, InvalidParameters
from marketdata.records.screeners import (
    BTWN,
    DEFAULT_SIZE,
    DEFAULT_SORT_FIELD,
    EQ,
    EQUITY,
    EQUITY_FIELDS,
    FUND_FIELDS,
    MAX_FILTERS,
    MAX_OFFSET,
    MAX_SIZE,
    NUMERIC_OPERATORS,
    OPERATOR_ALIASES,
    QUOTE_TYPE_ALIASES,
    QUOTE_TYPES,
    SCREEN_FIELDS,
    SORT_TYPE_ALIASES,
    SORT_TYPES,
    TEXT_FIELDS,
    CustomScreen,
    FilterValue,
    ScreenFilter,
)

COUNTS = ("25", "50", "100")


class MoversQuery(QuerySerializer):
    count = choice(COUNTS, required=False, default="50",
                   help_text="How many movers to return at most")


# -- v2 screeners ----------------------------------------------------------------------------
_FORMAT_TEXT = ("Number format: `raw` (default) numbers, `pretty` (alias `fmt`) Yahoo's "
                "formatted strings (null where Yahoo sends none), `both` (alias `full`) "
                "`{raw, fmt, longFmt}` objects; any other value means raw")


class V2ScreenerQuery(PageQuery):
    count = IntegerParam(required=False, default=DEFAULT_SIZE, min_value=1, max_value=MAX_SIZE,
                         help_text=f"Rows to ask the screener for, 1..{MAX_SIZE}; default "
                                   f"{DEFAULT_SIZE}")
    format = value_format_param()


def _spellings(canonical: tuple[str, ...], aliases: dict[str, str]) -> list[str]:
    return list(dict.fromkeys([*canonical, *aliases]))


class AliasChoice(BodyString):
    """A string member of the body with accepted spellings (any case) for each value:
    subclasses set ``canonical`` (the values) and ``aliases`` (other spelling -> value)."""

    canonical: tuple[str, ...] = ()
    aliases: dict[str, str] = {}

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spellings = {**{c.lower(): c for c in self.canonical}, **self.aliases}
        self.error_messages["unknown"] = (
            "Input should be " + " or ".join(f"'{c}'" for c in self.canonical) + " (or "
            + ", ".join(a for a in self.aliases if a.upper() not in self.canonical) + ")")

    def to_internal_value(self, data: Any) -> str:
        found = self.spellings.get(super().to_internal_value(data).strip().lower())
        if found is None:
            self.fail("unknown")
        return found


@extend_schema_field({"type": "string", "enum": _spellings(QUOTE_TYPES, QUOTE_TYPE_ALIASES)})
class QuoteTypeField(AliasChoice):
    canonical, aliases = QUOTE_TYPES, QUOTE_TYPE_ALIASES


@extend_schema_field({"type": "string", "enum": _spellings(SORT_TYPES, SORT_TYPE_ALIASES)})
class SortTypeField(AliasChoice):
    canonical, aliases = SORT_TYPES, SORT_TYPE_ALIASES


_NUMBER = {"type": "number"}
FILTER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "One condition on a screen field; every condition must hold (AND)",
    "properties": {
        "field": {"type": "string", "enum": list(dict.fromkeys(EQUITY_FIELDS + FUND_FIELDS)),
                  "description": "A screen field of the `quoteType` (equity: 92 fields, fund: "
                                 "11); text fields: " + ", ".join(sorted(TEXT_FIELDS))},
        "operator": {"type": "string", "enum": list(OPERATOR_ALIASES),
                     "description": "eq (=, ==), gt (>), gte (>=), lt (<), lte (<=), btwn "
                                    "(between); any case"},
        "value": {"description": "A number for gt/gte/lt/lte (numeric fields only); "
                                 "`[min, max]` numbers for btwn; for eq a string (text "
                                 "field) or a number (numeric field)",
                  "oneOf": [_NUMBER, {"type": "string"},
                            {"type": "array", "items": _NUMBER, "minItems": 2,
                             "maxItems": 2}]},
    },
    "required": ["field", "operator", "value"],
    "additionalProperties": False,
}


@extend_schema_field({"type": "array", "items": FILTER_SCHEMA, "maxItems": MAX_FILTERS})
class FiltersField(serializers.Field):
    """``filters``: a list here; each item is checked in :meth:`CustomScreenerRequest.validate`
    (its fields depend on ``quoteType``), named ``filters[i].<member>``."""

    default_error_messages = {"invalid": "Input should be a valid list",
                              "too_long": f"List should have at most {MAX_FILTERS} items"}

    def to_internal_value(self, data: Any) -> list[Any]:
        if not isinstance(data, list):
            self.fail("invalid")
        if len(data) > MAX_FILTERS:
            self.fail("too_long")
        return data


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) \
        and value == value and value not in (float("inf"), float("-inf"))


def _filter_value(operator: str, field: str | None, value: Any) -> tuple[FilterValue | None,
                                                                         str | None]:
    """The value of a condition, or the message saying why it does not fit."""
    text_field = field in TEXT_FIELDS
    if operator == BTWN:
        if not isinstance(value, list) or len(value) != 2 or not all(map(_is_number, value)):
            return None, "Input should be a list of two numbers [min, max]"
        low, high = float(value[0]), float(value[1])
        if low > high:
            return None, "Input should be [min, max] with min <= max"
        return (value[0], value[1]), None
    if operator in NUMERIC_OPERATORS:
        return (value, None) if _is_number(value) else (None, "Input should be a valid number")
    # eq
    if field is not None and text_field:
        return (value, None) if isinstance(value, str) and value.strip() \
            else (None, "Input should be a non-empty string (a text field)")
    if field is not None:
        return (value, None) if _is_number(value) \
            else (None, "Input should be a valid number (a numeric field)")
    return (value, None) if isinstance(value, str) or _is_number(value) \
        else (None, "Input should be a string or a number")


def parse_filters(items: list[Any], quote_type: str) -> tuple[tuple[ScreenFilter, ...],
                                                              list[FieldError]]:
    """Each condition checked member by member against the quote type's fields."""
    fields = SCREEN_FIELDS[quote_type]
    found: list[ScreenFilter] = []
    errors: list[FieldError] = []

    def error(name: str, message: str, value: Any) -> None:
        errors.append(FieldError(name, message, "value_error", value, location="body"))

    for i, item in enumerate(items):
        at = f"filters[{i}]"
        if not isinstance(item, dict):
            error(at, "Input should be an object {field, operator, value}", item)
            continue
        for extra in sorted(set(item) - {"field", "operator", "value"}):
            error(f"{at}.{extra}", "Unknown member; valid: field, operator, value", None)
        field = item.get("field")
        if not isinstance(field, str) or field not in fields:
            error(f"{at}.field", f"Input should be one of the {quote_type} screen fields "
                                 "(the `field` enum)" if "field" in item else "Field required",
                  field)
            field = None
        raw_operator = item.get("operator")
        operator = OPERATOR_ALIASES.get(raw_operator.strip().lower()) \
            if isinstance(raw_operator, str) else None
        if operator is None:
            error(f"{at}.operator", "Input should be one of " + ", ".join(OPERATOR_ALIASES)
                  if "operator" in item else "Field required", raw_operator)
            continue
        if operator != EQ and field in TEXT_FIELDS:
            error(f"{at}.operator", f"Input should be eq: {field} is a text field", raw_operator)
            continue
        if "value" not in item:
            error(f"{at}.value", "Field required", None)
            continue
        value, message = _filter_value(operator, field, item["value"])
        if message is not None:
            error(f"{at}.value", message, item["value"])
        elif field is not None and value is not None:
            found.append(ScreenFilter(field, operator, value))
    return tuple(found), errors


class CustomScreenerRequest(serializers.Serializer):
    """The JSON body of a custom screen; every member optional."""

    quoteType = QuoteTypeField(  # noqa: N815
        required=False, default=EQUITY,
        help_text="EQUITY (default; aliases equity, stock, stocks) or MUTUALFUND (aliases "
                  "mutualfund, mutual-fund, mutual_fund, fund, funds); any case")
    size = BodyInteger(required=False, default=DEFAULT_SIZE, min_value=1, max_value=MAX_SIZE,
                       help_text=f"Rows to return, 1..{MAX_SIZE}; default {DEFAULT_SIZE}")
    offset = BodyInteger(required=False, default=0, min_value=0, max_value=MAX_OFFSET,
                         help_text="Matches to skip (the upstream's paging); default 0")
    sortField = BodyString(  # noqa: N815
        required=False, help_text="A screen field of the quote type (see `filters[].field`); "
                                  f"default {DEFAULT_SORT_FIELD[EQUITY]} (equity), "
                                  f"{DEFAULT_SORT_FIELD['MUTUALFUND']} (fund)")
    sortType = SortTypeField(  # noqa: N815
        required=False, default="DESC",
        help_text="ASC (asc, ascending) or DESC (desc, descending; default); any case")
    filters = FiltersField(required=False, default=list, help_text=(
        f"Conditions, all of which must hold; at most {MAX_FILTERS}"))
    format = BodyString(required=False, allow_blank=True, help_text=_FORMAT_TEXT)
    fields = BodyString(required=False, allow_blank=True, help_text=(
        "Comma-separated members to include: top-level ones and/or ScreenerQuote ones "
        "(the query's `fields` when absent)"))

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        """The members that depend on the quote type: ``sortField`` and each filter."""
        quote_type = attrs["quoteType"]
        errors: list[FieldError] = []
        sort_field = attrs.get("sortField", DEFAULT_SORT_FIELD[quote_type])
        if sort_field not in SCREEN_FIELDS[quote_type]:
            errors.append(FieldError("sortField", f"Input should be one of the {quote_type} "
                                     "screen fields (the `filters[].field` enum)", "enum",
                                     sort_field, location="body"))
        filters, filter_errors = parse_filters(attrs["filters"], quote_type)
        errors.extend(filter_errors)
        if errors:
            raise InvalidParameters(errors)
        attrs["screen"] = CustomScreen(quote_type=quote_type, size=attrs["size"],
                                       offset=attrs["offset"], sort_type=attrs["sortType"],
                                       sort_field=sort_field, filters=filters)
        return attrs


CUSTOM_EXAMPLES = [
    OpenApiExample("gainers-mid-caps", summary="Mid-cap US gainers, largest first",
                   request_only=True, value={
                       "quoteType": "EQUITY", "size": 10, "sortField": "intradaymarketcap",
                       "sortType": "DESC", "filters": [
                           {"field": "region", "operator": "eq", "value": "us"},
                           {"field": "percentchange", "operator": "gt", "value": 3},
                           {"field": "intradaymarketcap", "operator": "btwn",
                            "value": [2e9, 1e10]}]}),
    OpenApiExample("cheap-tech", summary="Technology stocks with a P/E under 20",
                   request_only=True, value={
                       "filters": [
                           {"field": "sector", "operator": "eq", "value": "Technology"},
                           {"field": "peratio.lasttwelvemonths", "operator": "<",
                            "value": 20}],
                       "sortField": "dayvolume", "format": "both"}),
    OpenApiExample("top-funds", summary="Five-star mutual funds by price", request_only=True,
                   value={"quoteType": "fund", "sortField": "intradayprice", "sortType": "ASC",
                          "filters": [{"field": "performanceratingoverall", "operator": "eq",
                                       "value": 5}]}),
]
