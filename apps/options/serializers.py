"""Query declarations of the v2 option chain endpoints."""

from __future__ import annotations

import math
from typing import Any

from rest_framework import serializers

from apps.core.params import AnyTextParam, IntegerParam, choice
from apps.core.v2 import FieldsQuery, PageQuery, SymbolsParam

# Unix seconds up to the end of year 9999.
MAX_EPOCH = 253402300799


class V2OptionsQuery(PageQuery):
    date = IntegerParam(
        required=False, min_value=0, max_value=MAX_EPOCH,
        help_text="Expiry to serve, Unix seconds as listed in `expirationDates`; the nearest "
                  "when absent. A date that is not listed gives empty `calls` and `puts`")


class V2OptionsBatchQuery(V2OptionsQuery):
    symbols = SymbolsParam(help_text="Comma-separated symbols (at most 50); `cursor`/`limit` "
                                     "page over them")


class NumberListParam(AnyTextParam):
    """A comma list of positive numbers (``strikes``, a ``moneyness`` window): 422 naming
    the parameter when an item is not one, or when there are more than ``max_items``."""

    def __init__(self, *, max_items: int = 200, exactly: int | None = None,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.max_items, self.exactly = max_items, exactly

    def to_internal_value(self, data: Any) -> list[float]:  # type: ignore[override]
        text = super().to_internal_value(data)
        items = [item.strip() for item in text.split(",") if item.strip()]
        try:
            values = [float(item) for item in items]
        except ValueError:
            raise serializers.ValidationError("Input should be a comma list of numbers") \
                from None
        if not values or any(not math.isfinite(v) or v <= 0 for v in values):
            raise serializers.ValidationError("Input should be positive numbers")
        if self.exactly is not None and len(values) != self.exactly:
            raise serializers.ValidationError(f"Input should be {self.exactly} numbers")
        if len(values) > self.max_items:
            raise serializers.ValidationError(f"At most {self.max_items} numbers")
        return values


def _window(values: list[float] | None, name: str) -> None:
    if values is not None and not values[0] < values[1]:
        raise serializers.ValidationError({name: "The first bound should be below the second"})


class V2GreeksQuery(PageQuery):
    expiration = IntegerParam(
        required=False, min_value=0, max_value=MAX_EPOCH,
        help_text="Expiry, Unix seconds as listed in `expirationDates`; the nearest when "
                  "absent. A date that is not listed gives no contracts")
    type = choice(("call", "put"), required=False,
                  help_text="Only calls or only puts; both by default")
    strikes = NumberListParam(required=False, help_text=(
        "Only these strikes (comma-separated, at most 200)"))
    moneyness = NumberListParam(required=False, exactly=2, help_text=(
        "Only strikes whose K/S lies in this window, `low,high` (e.g. `0.8,1.2`)"))

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        _window(attrs.get("moneyness"), "moneyness")
        return super().validate(attrs)


class V2SurfaceQuery(FieldsQuery):
    expirations = IntegerParam(
        required=False, default=8, min_value=1, max_value=24,
        help_text="How many listed expiries, nearest first (one chain each); default 8")
    moneyness = NumberListParam(required=False, exactly=2, help_text=(
        "The grid's K/S window, `low,high`; default `0.7,1.3`"))
    step = serializers.FloatField(
        required=False, default=0.05, min_value=0.005, max_value=1.0,
        help_text="The grid's K/S step; default 0.05 (at most 201 columns)")

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        window = attrs.get("moneyness") or [0.7, 1.3]
        _window(window, "moneyness")
        columns = math.floor((window[1] - window[0]) / attrs["step"] + 1e-9) + 1
        if columns > 201:
            raise serializers.ValidationError({"step": "The grid would have over 201 columns"})
        attrs["grid"] = tuple(round(window[0] + i * attrs["step"], 6) for i in range(columns))
        return super().validate(attrs)
