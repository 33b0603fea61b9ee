"""The OpenAPI document's examples: every parameter (optional ones too) has one, each is a
value its own schema accepts, every request body's examples validate against the body's
schema, and every operation called with all its examples together (what Swagger's "Try it
out" sends untouched, and what tests/clients/ call the generated client with) answers a
success in sandbox mode. Also the document's shape as code generators need it: no two enum
values with one generated constant name, no array without ``items``."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlencode

import jsonschema
import pytest

from apps.core.schema import generated_constant, unnameable_member
from tests.clients.examples import body_examples, example_arguments
from tests.openapi_validation import served_document

METHODS = ("get", "post")


def schema() -> dict:
    """The served document as a client reads it, built once per test process."""
    return served_document()


def operations() -> list[tuple[str, str, dict]]:
    return [(path, method, ops[method]) for path, ops in sorted(schema()["paths"].items())
            for method in METHODS if method in ops]


def validate(value: Any, node: dict) -> None:
    """``value`` against a schema of the document (its ``$ref``s resolved in it)."""
    root = {**node, "components": schema().get("components", {})}
    jsonschema.Draft202012Validator(root).validate(value)


def test_every_parameter_has_an_example_its_schema_accepts():
    missing, refused = [], []
    for path, method, operation in operations():
        for parameter in operation.get("parameters", []):
            if "example" not in parameter:
                missing.append((method, path, parameter["name"]))
                continue
            try:
                validate(parameter["example"], parameter.get("schema", {}))
            except jsonschema.ValidationError as exc:
                refused.append((path, parameter["name"], exc.message))
    assert missing == [] and refused == []


def test_every_request_body_has_examples_its_schema_accepts():
    bodies = [(path, operation) for path, _, operation in operations()
              if "requestBody" in operation]
    assert {path for path, _ in bodies} >= {"/v2/backtest/{symbol}", "/v2/screeners/custom"}
    for path, operation in bodies:
        content = operation["requestBody"]["content"]["application/json"]
        examples = body_examples(operation)
        assert examples, path
        for example in examples:
            validate(example, content["schema"])


def test_a_wrong_body_example_would_be_refused():
    # The check above can fail: a strategy the body schema does not list.
    content = schema()["paths"]["/v2/backtest/{symbol}"]["post"]["requestBody"]["content"]
    with pytest.raises(jsonschema.ValidationError):
        validate({"strategy": "no_such_strategy"}, content["application/json"]["schema"])


def _walk(node: Any, where: str = "#"):
    if isinstance(node, dict):
        yield where, node
        for key, value in node.items():
            yield from _walk(value, f"{where}/{key}")
    elif isinstance(node, list):
        for position, value in enumerate(node):
            yield from _walk(value, f"{where}/{position}")


def test_no_enum_lists_two_spellings_a_code_generator_names_alike():
    clashes = []
    for where, node in _walk(schema()):
        values = node.get("enum")
        if not isinstance(values, list):
            continue
        names = [generated_constant(v, i) for i, v in enumerate(values) if isinstance(v, str)]
        if len(names) != len(set(names)):
            clashes.append((where, values))
    assert clashes == []


def test_an_accepted_alias_is_named_in_the_description_not_listed():
    path = schema()["paths"]["/v1/analysis/{symbol}/{analysis_type}"]["get"]
    (parameter,) = [p for p in path["parameters"] if p["name"] == "analysis_type"]
    assert "earnings-estimate" in parameter["schema"]["enum"]
    assert "earnings_estimate" not in parameter["schema"]["enum"]
    assert "underscore" in parameter["description"]
    region = next(p for p in schema()["paths"]["/v2/indices"]["get"]["parameters"]
                  if p["name"] == "region")
    assert "asia_pacific" not in region["schema"]["enum"]
    assert "`asia_pacific`" in region["description"]


def test_every_array_has_items():
    bare = [where for where, node in _walk(schema())
            if ("array" == node.get("type") or "array" in (node.get("type") or []))
            and isinstance(node.get("type"), (str, list)) and "items" not in node
            and "prefixItems" not in node]
    assert bare == []


def test_no_member_has_a_name_a_code_generator_cannot_use():
    found = [(where, name) for where, node in _walk(schema())
             if where.endswith("/properties") for name in node if unnameable_member(name)]
    assert found == []


def test_such_a_member_is_still_declared_by_an_exact_pattern():
    content = schema()["paths"]["/v2/indicators/{symbol}"]["get"]["responses"]["200"][
        "content"]["application/json"]["schema"]
    validate({"stochastic": {"k": 20.5, "d": 18.25}}, content)
    with pytest.raises(jsonschema.ValidationError):
        validate({"stochastic": {"k": 20.5, "d": "high"}}, content)
    content = schema()["paths"]["/v1/indicators"]["get"]["responses"]["200"]["content"][
        "application/json"]["schema"]
    with pytest.raises(jsonschema.ValidationError):
        validate({"STOCH %K(14,3,3)": {"%K": "high", "%D": 1.0}}, content)


def test_the_index_is_in_the_document():
    operation = schema()["paths"]["/"]["get"]
    assert operation["operationId"] == "index"
    assert "200" in operation["responses"]


# Operations whose examples cannot answer 200 here, and what they answer instead.
NOT_200 = {
    "/v2/filings/{symbol}/congressional-trades": 501,  # FMP only: no key in the tests
}


def example_request(path: str, operation: dict) -> tuple[str, dict[str, str], dict[str, str]]:
    """The URL, query and headers of ``operation`` called with every parameter's example."""
    url, query, headers = path, {}, {}
    for parameter, value in example_arguments(path, operation):
        if isinstance(value, list):
            value = ",".join(map(str, value))
        value = str(value).lower() if isinstance(value, bool) else str(value)
        if parameter["in"] == "path":
            url = url.replace("{" + parameter["name"] + "}", quote(value, safe=""))
        elif parameter["in"] == "query":
            query[parameter["name"]] = value
        elif parameter["in"] == "header":
            headers["HTTP_" + parameter["name"].upper().replace("-", "_")] = value
    return url, query, headers


@pytest.mark.django_db
@pytest.mark.parametrize("path, method", [(path, method) for path, method, _ in operations()
                                          if not path.startswith(("/v1/stream/",))])
def test_each_operation_answers_with_all_its_examples(path, method, api, sandbox_upstream):
    operation = schema()["paths"][path][method]
    url, query, headers = example_request(path, operation)
    target = url + ("?" + urlencode(query) if query else "")
    expected = NOT_200.get(path, 200)
    if method == "get":
        response = api.get(target, **headers)
        assert response.status_code == expected, (target, response.content[:300])
        return
    for body in body_examples(operation):
        response = api.post(target, data=json.dumps(body), content_type="application/json",
                            **headers)
        assert response.status_code == expected, (target, body, response.content[:300])
