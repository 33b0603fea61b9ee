"""Records that describe themselves (marketdata.records.members): member names, JSON types
read off the annotations, constants, and the JSON in the members' order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import pytest

from marketdata.records.crypto import Coin, CoinMatch, GlobalMarket
from marketdata.records.members import (
    as_json,
    camel,
    extras_of,
    from_members,
    is_record,
    member,
    member_names,
    members_of,
    passed_names,
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


@dataclass(frozen=True)
class _Row:
    max_age: int | None = member()
    seven_days_ago: float | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)


@dataclass(frozen=True)
class _Module:
    rows: list[_Row] | None = member()
    inner: _Row | None = member()
    max_age: int | None = member()
    extras: Mapping[str, Any] = member(extras=True, default_factory=dict)
    hidden: str = field(default="not a member", kw_only=True)


def test_a_pass_through_member_is_not_a_member():
    assert member_names(_Row) == ("maxAge", "sevenDaysAgo")
    extra = extras_of(_Row)
    assert extra is not None and extra.attribute == "extras" and extra.schema == {}
    assert extras_of(_Inner) is None


def test_passed_members_follow_the_declared_ones_in_the_upstream_order():
    row = _Row(1, None, {"zeta": [1, {"a": None}], "alpha": "x"})
    assert list(as_json(row).items()) == [
        ("maxAge", 1), ("sevenDaysAgo", None), ("zeta", [1, {"a": None}]), ("alpha", "x")]
    assert passed_names(row) == ("zeta", "alpha") and passed_names(_Inner(1.0)) == ()
    # a passed name that is a declared member's is never written twice
    assert as_json(_Row(1, 2.0, {"maxAge": 9})) == {"maxAge": 1, "sevenDaysAgo": 2.0}


def test_a_record_is_built_from_its_upstream_object_at_every_depth():
    data = {"new": {"deep": {"x": 1}}, "maxAge": 1,
            "rows": [{"sevenDaysAgo": 2.5, "other": "kept", "maxAge": 86400}, "odd", None],
            "inner": {"maxAge": 3}}
    module = from_members(_Module, data)
    assert module.rows[0] == _Row(86400, 2.5, {"other": "kept"})
    assert module.rows[1:] == ["odd", None] and module.inner == _Row(3, None, {})
    assert module.extras == {"new": {"deep": {"x": 1}}}
    assert list(as_json(module)) == ["rows", "inner", "maxAge", "new"]
    assert as_json(module)["rows"][0] == {"maxAge": 86400, "sevenDaysAgo": 2.5,
                                          "other": "kept"}
    # values not of the declared form are kept as they are; absent members are None
    odd = from_members(_Module, {"rows": {"not": "a list"}, "inner": [1]})
    assert odd.rows == {"not": "a list"} and odd.inner == [1] and odd.max_age is None
    # a record without a pass-through member drops what it does not declare
    assert from_members(_Inner, {"value": 1.0, "other": 2}) == _Inner(1.0)


def test_at_most_one_pass_through_member_and_it_has_no_name():
    @dataclass(frozen=True)
    class Twice:
        a: int = member()
        one: Mapping[str, Any] = member(extras=True, default_factory=dict)
        two: Mapping[str, Any] = member(extras=True, default_factory=dict)

    with pytest.raises(TypeError, match="more than one"):
        extras_of(Twice)
    with pytest.raises(TypeError, match="no name"):
        member(extras=True, name="x")
