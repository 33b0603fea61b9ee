"""Records that describe themselves (marketdata.records.members): member names, JSON types
read off the annotations, constants, and the JSON in the members' order."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import pytest

from marketdata.records.crypto import Coin, CoinMatch, GlobalMarket
from marketdata.records.members import (
    as_json,
    camel,
    is_record,
    member,
    member_names,
    members_of,
    type_schema,
)
from marketdata.records.quotes import ForexQuote


@pytest.mark.parametrize(("annotation", "schema"), [
    (str, {"type": "string"}),
    (int, {"type": "integer"}),
    (float | None, {"type": ["number", "null"]}),
    (bool | None, {"type": ["boolean", "null"]}),
    (None, {"type": "null"}),
    (Literal["a", "b"], {"type": "string", "enum": ["a", "b"]}),
    (Literal["a"] | None, {"type": ["string", "null"], "enum": ["a", None]}),
    (list[float], {"type": "array", "items": {"type": "number"}}),
    (int | str, {"type": ["integer", "string"]}),
])
def test_json_types_are_read_off_the_annotations(annotation, schema):
    assert type_schema(annotation) == schema


def test_a_type_without_json_is_an_error():
    with pytest.raises(TypeError):
        type_schema(complex)


def test_member_names_are_camel_case_unless_given():
    assert camel("market_cap_rank") == "marketCapRank"
    assert camel("id") == "id"
    assert member_names(GlobalMarket)[-1] == "marketCapChangePercentage24HUsd"
    assert "priceChangePercentage24H" in member_names(Coin)


def test_constants_are_members_the_provider_never_sets():
    match = CoinMatch(symbol="BTC", id="bitcoin", name="Bitcoin", market_cap_rank=1,
                      thumbnail=None, image=None)
    assert as_json(match) == {
        "symbol": "BTC", "id": "bitcoin", "name": "Bitcoin", "exchange": None,
        "assetType": "Cryptocurrency", "currency": None, "active": True,
        "marketCapRank": 1, "thumbnail": None, "image": None}
    schemas = {m.name: m.schema for m in members_of(CoinMatch)}
    assert schemas["assetType"] == {"type": "string", "enum": ["Cryptocurrency"]}
    assert schemas["exchange"] == {"type": "null"}


@dataclass(frozen=True)
class _Inner:
    value: float = member("A value", always=True)
    hidden: str = "not a member"


@dataclass(frozen=True)
class _Outer:
    name: str = member(schema={"maxLength": 5})
    inner: list[_Inner] = member()


def test_records_nest_and_undeclared_fields_stay_out():
    outer = _Outer("x", [_Inner(1.5)])
    assert as_json(outer) == {"name": "x", "inner": [{"value": 1.5}]}
    assert as_json({"rows": [outer], "n": 1}) == {"rows": [as_json(outer)], "n": 1}
    assert [m.always for m in members_of(_Inner)] == [True]
    assert members_of(_Outer)[0].schema == {"type": "string", "maxLength": 5}
    assert is_record(outer) and not is_record(_Outer) and not is_record({"a": 1})


def test_a_member_made_from_others_is_set_after_init():
    pair = ForexQuote("EUR", "USD", 1.05, None, None, 0.01, 0.5, 1739789683)
    assert list(as_json(pair).items())[:3] == [
        ("symbol", "EURUSD"), ("baseCurrency", "EUR"), ("quoteCurrency", "USD")]


def test_a_member_that_is_a_record_names_it():
    inner, listed = members_of(_Outer)[1], members_of(_Nests)[0]
    assert inner.record is None and inner.schema["type"] == "array"
    assert listed.record is _Inner and listed.schema == {"type": "object"}
    assert as_json(_Nests(_Inner(2.0))) == {"inner": {"value": 2.0}}


@dataclass(frozen=True)
class _Nests:
    inner: _Inner = member("The inner record")


def test_a_record_without_members_is_an_error():
    @dataclass(frozen=True)
    class Plain:
        a: int

    with pytest.raises(TypeError, match="declares no members"):
        members_of(Plain)
