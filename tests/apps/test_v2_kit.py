"""The v2 endpoint kit (apps/core/v2.py, apps/core/schema.V2AutoSchema): validation before
the handler, ApiError bodies, ``fields``, connections and the derived OpenAPI operation.

The views here are test-only, served by this module's own URLconf, so the kit is tested
apart from any endpoint; every real v2 endpoint is covered by its own API tests.
"""

from __future__ import annotations

import base64
import re

import pytest
from django.urls import path
from hypothesis import example, given, settings
from hypothesis import strategies as st
from rest_framework import serializers
from rest_framework.response import Response

from apps.core.params import IntegerParam, choice
from apps.core.v2 import (
    ANALYSIS_TYPES,
    CURSOR_PATTERN,
    HOLDER_TYPES,
    MAX_LIMIT,
    ORDERED_CURSOR_PATTERN,
    REGIONS,
    TIME_RANGES,
    VALUE_FORMATS,
    Output,
    PageQuery,
    V2ApiView,
    connection_schema,
    cursor_position,
    encode_cursor,
    paginate,
    paginate_member,
    requested_fields,
    select,
    walk_cursor,
)

ITEMS = [{"n": i, "square": i * i, "label": f"item {i}"} for i in range(7)]
calls: list[str] = []


class ItemsQuery(PageQuery):
    colour = choice(("red", "green"), required=False, default="red")


class ItemsView(V2ApiView):
    """Test items."""

    query_serializer = ItemsQuery
    path_choices = {"kind": ("odd", "all")}
    response_schema = connection_schema({"type": "object"})
    output = Output(("n", "square", "label"), paged=("",))

    def get(self, request, kind):
        calls.append(kind)
        return self.answer([i for i in ITEMS if kind == "all" or i["n"] % 2])


class Body(serializers.Serializer):
    strategy = choice(("a", "b"))
    period = IntegerParam(required=False, min_value=1, max_value=10)


class EchoView(V2ApiView):
    """Test POST."""

    body_serializer = Body

    def post(self, request):
        return Response(self.body)


class BrokenView(V2ApiView):
    def get(self, request):
        raise RuntimeError("boom")


urlpatterns = [
    path("v2/test-items/<str:kind>", ItemsView.as_view()),
    path("v2/test-echo", EchoView.as_view()),
    path("v2/test-broken", BrokenView.as_view()),
]
handler404 = "apps.core.views.not_found"
handler500 = "apps.core.views.server_error"


@pytest.fixture(autouse=True)
def _urls(settings):
    settings.ROOT_URLCONF = __name__
    settings.RESPONSE_CACHE_ENABLED = False
    calls.clear()


def _api_error(response, status):
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) >= {"error", "status"} and body["status"] == status, body
    return body


# -- validation before the handler -------------------------------------------------------------
@pytest.mark.parametrize("url, message", [
    ("/v2/test-items/even", "kind: Input should be 'odd' or 'all'"),
    ("/v2/test-items/all?colour=blue", "colour: Input should be 'red' or 'green'"),
    ("/v2/test-items/all?limit=-1", "limit: Input should be greater than or equal to 0"),
    (f"/v2/test-items/all?limit={MAX_LIMIT + 1}", "limit: Input should be less than or equal"),
    ("/v2/test-items/all?limit=1.5", "limit: Input should be a valid integer"),
    ("/v2/test-items/all?limit=", "limit: Input should be a valid integer"),
    ("/v2/test-items/all?cursor=%%%", "cursor: Invalid cursor"),
    ("/v2/test-items/all?cursor=eyJ4IjoxfQ", "cursor: Invalid cursor"),  # JSON object
    ("/v2/test-items/all?cursor=LTE", "cursor: Invalid cursor"),  # -1
])
def test_bad_input_is_400_before_the_handler(api, url, message):
    body = _api_error(api.get(url), 400)
    assert message in body["error"]
    assert calls == []


def test_every_bad_parameter_is_named_at_once(api):
    body = _api_error(api.get("/v2/test-items/even?colour=blue&limit=x"), 400)
    for name in ("kind:", "colour:", "limit:"):
        assert name in body["error"]


def test_other_methods_are_405_api_errors(api):
    _api_error(api.post("/v2/test-items/all"), 405)
    _api_error(api.delete("/v2/test-items/all"), 405)
    _api_error(api.get("/v2/test-echo"), 405)


def test_unknown_route_and_unhandled_error_are_api_errors(api):
    _api_error(api.get("/v2/no-such-thing"), 404)
    body = _api_error(api.get("/v2/test-broken"), 500)
    assert "boom" not in body["error"]


# -- JSON bodies ---------------------------------------------------------------------------------
def test_json_body_validated(api):
    ok = api.post("/v2/test-echo", {"strategy": "a", "period": 3}, content_type="application/json")
    assert ok.status_code == 200 and ok.json() == {"strategy": "a", "period": 3}
    body = _api_error(api.post("/v2/test-echo", {"strategy": "z"},
                               content_type="application/json"), 400)
    assert "strategy" in body["error"]
    body = _api_error(api.post("/v2/test-echo", {"strategy": "a", "period": 11},
                               content_type="application/json"), 400)
    assert "period" in body["error"]


@pytest.mark.parametrize("raw", [b"{", b"[1, 2]", b"null", b"\"a\""])
def test_malformed_or_non_object_body_is_400(api, raw):
    _api_error(api.post("/v2/test-echo", raw, content_type="application/json"), 400)


def test_non_json_body_is_an_api_error(api):
    response = api.post("/v2/test-echo", b"strategy=a",
                        content_type="application/x-www-form-urlencoded")
    assert response.status_code == 415
    assert response.json()["status"] == 415


# -- fields and paging --------------------------------------------------------------------------
def test_bare_array_without_cursor_or_limit(api):
    assert api.get("/v2/test-items/all").json() == ITEMS


def test_fields_on_each_item_and_requested_members_present(api):
    got = api.get("/v2/test-items/odd?fields=square,nope").json()
    assert got == [{"square": i["square"]} for i in ITEMS if i["n"] % 2]
    assert api.get("/v2/test-items/odd?fields=nope,,").json()[0] == ITEMS[1]


def test_select_keeps_requested_members_even_when_absent():
    assert select({"a": 1}, frozenset({"a", "b"})) == {"a": 1, "b": None}
    assert select({"a": 1, "c": 2}, frozenset({"c"}), always=("a",)) == {"a": 1, "c": 2}
    assert select({"a": 1}, None) == {"a": 1}
    assert requested_fields(" a , b ,zz", ("a", "b")) == {"a", "b"}
    assert requested_fields("zz", ("a",)) is None


def test_connection_shape_and_past_the_end(api):
    first = api.get("/v2/test-items/all?limit=3").json()
    assert first["nodes"] == ITEMS[:3]
    assert [e["node"] for e in first["edges"]] == ITEMS[:3]
    assert first["pageInfo"] == {"startCursor": encode_cursor(0), "endCursor": encode_cursor(2),
                                 "hasNextPage": True, "hasPreviousPage": False}
    past = api.get(f"/v2/test-items/all?cursor={encode_cursor(50)}").json()
    assert past == {"edges": [], "nodes": [], "pageInfo": {
        "startCursor": None, "endCursor": None, "hasNextPage": False, "hasPreviousPage": True}}
    zero = api.get("/v2/test-items/all?limit=0").json()
    assert zero["nodes"] == [] and zero["pageInfo"]["hasNextPage"] is True


def test_paginate_member_pages_only_the_list():
    obj = {"symbol": "X", "candles": list(range(5)), "meta": {"a": 1}}
    paged = paginate_member(obj, "candles", {"limit": 2})
    assert paged["meta"] == {"a": 1} and paged["candles"]["nodes"] == [0, 1]
    assert paginate_member(obj, "candles", {}) == obj
    assert paginate_member({"major": {"x": 1}}, "major", {"limit": 1}) == {"major": {"x": 1}}


@settings(max_examples=80, deadline=None)
@given(total=st.integers(0, 40), limit=st.integers(1, 12))
def test_following_end_cursors_visits_every_item_once(total, limit):
    items = list(range(total))
    seen: list[int] = []
    cursor = None
    for _ in range(total + 2):
        got = paginate(items, cursor, limit)
        seen.extend(got["nodes"])
        if not got["pageInfo"]["hasNextPage"]:
            break
        cursor = cursor_position(got["pageInfo"]["endCursor"])
    assert seen == items


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_cursor_parser_never_raises(text):
    position = cursor_position(text)
    assert position is None or encode_cursor(position) == text.strip().rstrip("=")
    assert (position is not None) == bool(re.fullmatch(CURSOR_PATTERN, text))


def test_cursor_is_base64url_of_the_position():
    assert [encode_cursor(n) for n in (0, 1, 9, 10, 100)] == ["MA", "MQ", "OQ", "MTA", "MTAw"]
    assert cursor_position(base64.urlsafe_b64encode(b"25").decode().rstrip("=")) == 25
    assert cursor_position("MjU=") == cursor_position(" MjU== ") == 25  # padding, blanks
    assert cursor_position("MjU===") is None


@pytest.mark.parametrize("position", [*range(0, 1200), 10**15, 10**16 - 1,
                                      1234567890123456, 999999999999999])
def test_every_cursor_matches_the_documented_pattern(position):
    assert re.fullmatch(CURSOR_PATTERN, encode_cursor(position))
    assert cursor_position(encode_cursor(position)) == position


@given(st.from_regex(CURSOR_PATTERN, fullmatch=True))
def test_every_string_of_the_pattern_is_a_cursor(text):
    assert cursor_position(text) is not None


# -- order: reversed walks ---------------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(total=st.integers(0, 40), limit=st.integers(1, 12))
def test_walking_a_reversed_list_gives_it_exactly_reversed(total, limit):
    items = list(range(total))
    assert paginate(items, None, None, reverse=True) == items[::-1]
    seen: list[int] = []
    cursor = None
    for _ in range(total + 2):
        got = paginate(items, cursor, limit, reverse=True)
        assert [walk_cursor(e["cursor"]).reverse for e in got["edges"]] == [True] * len(
            got["nodes"])
        seen.extend(got["nodes"])
        if not got["pageInfo"]["hasNextPage"]:
            break
        cursor = walk_cursor(got["pageInfo"]["endCursor"]).position
    assert seen == items[::-1]


def test_a_reversed_walks_cursor_carries_its_direction():
    assert [encode_cursor(n, reverse=True) for n in (0, 1, 9)] == ["LTE", "LTI", "LTEw"]
    assert walk_cursor("LTE") == walk_cursor(" LTE= ") == walk_cursor_of(0, True)
    assert walk_cursor("MA") == walk_cursor_of(0, False)
    assert cursor_position("LTE") is None  # a list without `order` refuses it
    assert walk_cursor("LTA") is None  # -0: not canonical
    assert walk_cursor("LTAx") is None  # -01: a leading zero


def walk_cursor_of(position: int, reverse: bool):
    from apps.core.v2 import WalkCursor

    return WalkCursor(position, reverse)


@pytest.mark.parametrize("position", [*range(0, 1200), 10**15 - 1, 10**16 - 2,
                                      1234567890123456, 999999999999999])
def test_every_reversed_cursor_matches_the_documented_pattern(position):
    text = encode_cursor(position, reverse=True)
    assert re.fullmatch(ORDERED_CURSOR_PATTERN, text) and len(text) <= 24
    assert not re.fullmatch(CURSOR_PATTERN, text)
    assert walk_cursor(text) == walk_cursor_of(position, True)
    assert walk_cursor(encode_cursor(position)) == walk_cursor_of(position, False)


@example("LTE0MDA0MDA0MDA0MDA0MDA==")  # the longest reversed cursor, padded twice
@given(st.from_regex(ORDERED_CURSOR_PATTERN, fullmatch=True))
def test_every_string_of_the_ordered_pattern_is_a_cursor(text):
    assert walk_cursor(text) is not None


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40) | st.from_regex(r"LT[A-Za-z0-9_-]{1,22}={0,3}", fullmatch=True))
def test_ordered_cursor_parser_never_raises(text):
    walk = walk_cursor(text)
    assert walk is None or encode_cursor(walk.position, walk.reverse) == text.strip().rstrip("=")
    assert (walk is not None) == bool(re.fullmatch(ORDERED_CURSOR_PATTERN, text))


def test_output_reverses_an_unpaged_ordered_list():
    out = Output(("n",), ordered=("",))
    assert out.apply([1, 2, 3], {"reverse": True}) == [3, 2, 1]
    assert out.apply([1, 2, 3], {"reverse": False}) == [1, 2, 3]
    member = Output(ordered=("xs",))
    assert member.apply({"xs": [1, 2], "y": 0}, {"reverse": True}) == {"xs": [2, 1], "y": 0}


# -- enums and the derived OpenAPI operation ------------------------------------------------------
def test_spec_enums():
    assert VALUE_FORMATS == ("raw", "pretty", "both")
    assert TIME_RANGES == ("1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "ytd", "max")
    assert ANALYSIS_TYPES == ("recommendations", "upgrades-downgrades", "earnings-estimate",
                              "earnings-history")
    assert len(HOLDER_TYPES) == 6 and len(REGIONS) == 32 == len(set(REGIONS))


def test_every_v2_operation_lists_its_parameters_and_the_four_errors(settings):
    settings.ROOT_URLCONF = "config.urls"
    from django.test import Client

    document = Client().get("/openapi.json").json()
    assert document["openapi"].startswith("3.1") and document["info"]["version"] == "3.2.0"
    operations = [(p, m, op) for p, item in document["paths"].items() if p.startswith("/v2/")
                  for m, op in item.items()]
    assert operations
    for path_, method, op in operations:
        assert {"200", "400", "404", "429", "500"} <= set(op["responses"]), (path_, method)
        for status in ("400", "404", "500"):
            schema = op["responses"][status]["content"]["application/json"]["schema"]
            assert schema == {"$ref": "#/components/schemas/ApiError"}, (path_, status)
        names = {p["name"] for p in op.get("parameters", ())}
        if method == "get":
            assert "fields" in names, path_
        for segment in (s[1:-1] for s in path_.split("/") if s.startswith("{")):
            assert segment in names, (path_, segment)


def test_every_path_enum_is_in_the_document(settings):
    """A view's path choices are the parameter's enum, described or not (a generated client
    and a fuzzer only know the values the document lists)."""
    settings.ROOT_URLCONF = "config.urls"
    from django.test import Client
    from django.urls import get_resolver

    document = Client().get("/openapi.json").json()
    checked = 0
    for pattern in get_resolver().url_patterns:
        for view, route in _v2_views(pattern):
            for name, choices in getattr(view, "path_choices", {}).items():
                op = document["paths"][route]["get"]
                (param,) = [p for p in op["parameters"] if p["name"] == name]
                assert sorted(param["schema"]["enum"]) == sorted(choices), (route, name)
                checked += 1
    assert checked >= 5


def _v2_views(pattern, prefix=""):
    """(view class, OpenAPI path) of every v2 URL pattern below ``pattern``."""
    route = prefix + str(pattern.pattern)
    if hasattr(pattern, "url_patterns"):
        for inner in pattern.url_patterns:
            yield from _v2_views(inner, route)
        return
    view = getattr(pattern.callback, "view_class", None)
    if route.startswith("v2/") and view is not None:
        yield view, "/" + re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", route)


# -- declared outputs -----------------------------------------------------------------------------
def test_output_selects_the_answer_or_each_item():
    from apps.core.v2 import Output

    out = Output(("a", "b"))
    assert out.apply({"a": 1, "b": 2, "c": 3}, {"fields": "b"}) == {"b": 2}
    assert out.apply([{"a": 1, "b": 2}, {"a": 3}], {"fields": "a,b"}) == [
        {"a": 1, "b": 2}, {"a": 3, "b": None}]
    assert out.apply({"a": 1, "c": 3}, {}) == {"a": 1, "c": 3}  # no fields: everything


def test_output_selects_at_a_path_through_lists_and_pages_after():
    from apps.core.v2 import Output, encode_cursor

    out = Output(("x",), at=("charts", "chart"), paged=("charts",))
    body = {"charts": [{"symbol": s, "chart": {"x": i, "y": i}} for i, s in enumerate("ABC")],
            "errors": []}
    shaped = out.apply(body, {"fields": "x", "cursor": 0, "limit": 1})
    assert shaped["errors"] == []
    assert shaped["charts"]["nodes"] == [{"symbol": "B", "chart": {"x": 1}}]
    assert shaped["charts"]["pageInfo"]["endCursor"] == encode_cursor(1)


def test_output_pages_members_and_the_top_level_list():
    from apps.core.v2 import Output

    chart = Output(("candles", "meta"), paged=("candles", "patterns"))
    shaped = chart.apply({"meta": {}, "candles": [1, 2, 3], "patterns": [None] * 3},
                         {"limit": 2})
    assert shaped["candles"]["nodes"] == [1, 2] and shaped["patterns"]["nodes"] == [None] * 2
    # A member fields left out is not paged back in.
    assert "candles" not in chart.apply({"meta": {}, "candles": [1]}, {"fields": "meta",
                                                                         "limit": 1})
    rows = Output(("a",), paged=("",))
    assert rows.apply([{"a": 1}, {"a": 2}], {"limit": 1})["nodes"] == [{"a": 1}]
    assert rows.apply([{"a": 1}], {}) == [{"a": 1}]
