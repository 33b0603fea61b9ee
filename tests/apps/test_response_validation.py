"""The response validator (tests/openapi_validation.py) and what it found (issue 27, item 2).

The validator runs on every API test's responses (tests/apps/conftest.py); these tests show it
can fail (a member of the wrong type, a missing required member, an undocumented status or
content type, a hook that really is wired to the test client) and that the schema says what
``fields`` can remove: every v2 operation that takes ``fields`` answers a document-valid body
with one member selected, where seven of them used to answer bodies their own schema rejected.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlencode

import pytest

from tests.openapi_validation import (
    DocumentValidator,
    ResponseMismatch,
    document_validator,
    served_document,
)

FUTURES = "/v2/futures/GC=F"
GOOD_FUTURE = {"symbol": "GC=F", "name": "Gold", "exchange": "CMX", "underlying": "GCJ25.CMX",
               "expirationDate": "2025-04-28", "price": 2950.5, "change": 1.5,
               "changePercent": 0.05, "openInterest": 1000, "volume": 20, "timestamp": 1}
JSON = "application/json"


def check(path: str, status: int, body: Any, method: str = "GET",
          content_type: str = JSON) -> None:
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    document_validator().validate(method, path, status, content_type, raw)


# -- the validator fails what it must, passes what it must ------------------------------------
def test_a_right_body_passes():
    check(FUTURES, 200, GOOD_FUTURE)
    check(FUTURES, 404, {"error": "Symbol not found", "status": 404})
    check("/v1/ping", 200, {"status": "healthy", "timestamp": "2025-01-01T00:00:00Z"})


def test_a_member_of_the_wrong_type_fails_naming_it():
    with pytest.raises(ResponseMismatch) as caught:
        check(FUTURES, 200, {**GOOD_FUTURE, "price": "2950.5"})
    message = str(caught.value)
    assert "GET /v2/futures/GC=F -> 200" in message
    assert "$.price" in message and "'2950.5' is not of type" in message


def test_a_missing_required_member_fails_naming_it():
    with pytest.raises(ResponseMismatch, match=r"\$: 'status' is a required property"):
        check(FUTURES, 404, {"error": "Symbol not found"})  # an error body too
    with pytest.raises(ResponseMismatch, match="'timestamp' is a required property"):
        check("/v1/ping", 200, {"status": "healthy"})


def test_a_wrong_item_of_a_list_is_named_by_position():
    item = {"date": "2025-01-02", "symbol": "AAPL", "gradingCompany": "Firm",
            "newGrade": "Buy", "previousGrade": None}
    check("/v2/grading-actions/AAPL", 200, [item, item])
    with pytest.raises(ResponseMismatch, match=r"\$\[1\]\.newGrade: 5 is not of type"):
        check("/v2/grading-actions/AAPL", 200, [item, {**item, "newGrade": 5}])


def test_an_undocumented_status_fails():
    with pytest.raises(ResponseMismatch, match="status 418 is not documented for GET "
                                               r"/v2/futures/\{symbol\}"):
        check(FUTURES, 418, {"error": "teapot", "status": 418})


def test_an_undocumented_content_type_or_a_body_that_is_not_json_fails():
    with pytest.raises(ResponseMismatch, match="content type 'text/html' is not documented"):
        check(FUTURES, 200, b"<html></html>", content_type="text/html; charset=utf-8")
    with pytest.raises(ResponseMismatch, match="body is not JSON"):
        check(FUTURES, 200, b"{", content_type=JSON)


def test_an_undocumented_api_path_answering_a_success_fails_and_a_404_of_no_route_passes():
    with pytest.raises(ResponseMismatch, match="no operation in the document"):
        check("/v2/no-such-route", 200, {})
    check("/v2/no-such-route", 404, {"error": "Not Found", "status": 404})


def test_nullable_unions_anyof_and_refs_follow_openapi_3_1():
    document = {"openapi": "3.1.0", "paths": {"/v2/x/{id}": {"get": {"responses": {"200": {
        "description": "OK", "content": {JSON: {"schema": {
            "type": "object", "required": ["a", "b", "c"], "properties": {
                "a": {"type": ["integer", "null"]},
                "b": {"anyOf": [{"$ref": "#/components/schemas/B"}, {"type": "null"}]},
                "c": {"oneOf": [{"type": "string"}, {"type": "array",
                                                     "items": {"type": "string"}}]}}}}}}}}}},
        "components": {"schemas": {"B": {"type": "object", "required": ["v"],
                                         "properties": {"v": {"type": "number"}}}}}}
    validator = DocumentValidator(document)
    for body in ({"a": None, "b": None, "c": "x"}, {"a": 1, "b": {"v": 1.5}, "c": ["x"]}):
        validator.validate("GET", "/v2/x/1", 200, JSON, json.dumps(body).encode())
    for body in ({"a": 1.5, "b": None, "c": "x"}, {"a": 1, "b": {}, "c": "x"},
                 {"a": 1, "b": None, "c": 1}):
        with pytest.raises(ResponseMismatch):
            validator.validate("GET", "/v2/x/1", 200, JSON, json.dumps(body).encode())
    # HEAD is the GET's operation: its status is checked, it has no body to check.
    validator.validate("HEAD", "/v2/x/1", 200, JSON, None)
    with pytest.raises(ResponseMismatch, match="status 500 is not documented"):
        validator.validate("HEAD", "/v2/x/1", 500, JSON, None)


def test_the_hook_validates_what_the_test_client_gets(api, monkeypatch):
    """A view that drifts from its schema fails the test making the request."""
    from apps.futures import views

    monkeypatch.setattr(views, "futures_quote", lambda symbol: {**GOOD_FUTURE,
                                                                "volume": "many"},
                        raising=True)
    with pytest.raises(ResponseMismatch, match=r"(?s)GET /v2/futures/GC=F -> 200.*\$\.volume"):
        api.get(FUTURES)


def test_the_unvalidated_responses_fixture_opts_out(api, monkeypatch, unvalidated_responses):
    from apps.futures import views

    monkeypatch.setattr(views, "futures_quote", lambda symbol: {**GOOD_FUTURE,
                                                                "volume": "many"})
    assert api.get(FUTURES).json()["volume"] == "many"


# -- what `fields` can remove is in the schema ------------------------------------------------
def fields_operations() -> list[tuple[str, str]]:
    out = []
    for path, item in sorted(served_document()["paths"].items()):
        for method, operation in item.items():
            if any(p.get("name") == "fields" and p.get("in") == "query"
                   for p in operation.get("parameters", [])):
                out.append((path, method))
    return out


def one_member(path: str, operation: dict[str, Any]) -> str:
    """A member ``fields`` can select: the last one the parameter lists (the first is often
    one that is always present), else the first of the 200 body's own members."""
    (parameter,) = [p for p in operation["parameters"] if p["name"] == "fields"]
    always = set(parameter.get("x-fields-always", ()))
    listed = [m for m in parameter.get("x-fields", ()) if m not in always]
    if listed:
        return listed[-1]
    schema = operation["responses"]["200"]["content"][JSON]["schema"]
    return next(iter(schema["properties"]))


def example_call(path: str, operation: dict[str, Any]) -> tuple[str, dict[str, str]]:
    """The URL and query of ``operation`` with the examples of its path parameters and
    required query parameters (what the document gives every one of them)."""
    url, query = path, {}
    for parameter in operation.get("parameters", []):
        if parameter["in"] == "path":
            url = url.replace("{" + parameter["name"] + "}",
                              quote(str(parameter["example"]), safe=""))
        elif parameter["in"] == "query" and parameter.get("required"):
            query[parameter["name"]] = str(parameter["example"])
    return url, query


def body_example(operation: dict[str, Any]) -> Any:
    content = operation["requestBody"]["content"][JSON]
    if "example" in content:
        return content["example"]
    return next(iter(content["examples"].values()))["value"]


def test_the_seven_reported_operations_take_fields():
    reported = {"/v2/index-constituents/{symbol}", "/v2/press-releases/{symbol}",
                "/v2/forex/{from}/{to}", "/v2/futures/{symbol}",
                "/v2/price-target-consensus/{symbol}", "/v2/price-target-summary/{symbol}",
                "/v2/grading-actions/{symbol}"}
    assert reported <= {path for path, _ in fields_operations()}
    assert len(fields_operations()) >= 70


def test_the_fields_parameter_lists_the_selectable_members():
    operation = served_document()["paths"]["/v2/quotes"]["get"]
    (parameter,) = [p for p in operation["parameters"] if p["name"] == "fields"]
    assert "regularMarketPrice" in parameter["x-fields"]
    assert parameter["x-fields-always"] == ["symbol"]
    assert "`regularMarketPrice`" in parameter["description"]
    assert "always present: `symbol`" in parameter["description"]


def test_selectable_members_are_not_required_and_always_present_ones_stay_required():
    paths = served_document()["paths"]
    futures = paths["/v2/futures/{symbol}"]["get"]["responses"]["200"]["content"][JSON]
    assert "required" not in futures["schema"]
    # /v2/spark keeps `symbol` in every item whatever `fields` says.
    spark = paths["/v2/spark"]["get"]["responses"]["200"]["content"][JSON]["schema"]
    item = spark["properties"]["sparks"]["items"]
    assert item["required"] == ["symbol"]


@pytest.mark.django_db
@pytest.mark.parametrize("path, method", fields_operations())
def test_every_fields_operation_validates_with_one_member(path, method, api,
                                                          sandbox_upstream):
    """Called with ``fields=<one member>`` in sandbox mode: a 200 (or the documented 501 of
    a keyed-only route) whose body the autouse hook validates against the document."""
    operation = served_document()["paths"][path][method]
    member = one_member(path, operation)
    url, query = example_call(path, operation)
    target = f"{url}?{urlencode({**query, 'fields': member})}"
    if method == "post":
        response = api.post(target, data=json.dumps(body_example(operation)),
                            content_type=JSON)
    else:
        response = api.get(target)
    if path == "/v2/filings/{symbol}/congressional-trades":  # FMP only: no key here
        assert response.status_code == 501
        return
    assert response.status_code == 200, (target, response.content[:300])
