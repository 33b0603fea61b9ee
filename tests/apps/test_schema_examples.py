"""The OpenAPI document's parameter examples: every path parameter and every required
query parameter has one, each is a value its own schema accepts, and every GET operation
called with its examples alone (what Swagger's "Try it out" sends untouched) answers a
success in sandbox mode."""

from __future__ import annotations

from functools import cache
from urllib.parse import quote, urlencode

import jsonschema
import pytest


@cache
def schema() -> dict:
    from drf_spectacular.generators import SchemaGenerator

    return SchemaGenerator().get_schema(request=None, public=True)


def get_operations() -> list[tuple[str, dict]]:
    return [(path, ops["get"]) for path, ops in sorted(schema()["paths"].items())
            if "get" in ops]


def test_every_path_and_required_parameter_has_an_example_its_schema_accepts():
    missing, refused = [], []
    for path, operations in schema()["paths"].items():
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] != "path" and not parameter.get("required"):
                    assert "example" not in parameter, (path, parameter["name"])
                    continue
                if "example" not in parameter:
                    missing.append((method, path, parameter["name"]))
                    continue
                try:
                    value = parameter["example"]
                    jsonschema.validate(value, parameter.get("schema", {}))
                except jsonschema.ValidationError as exc:
                    refused.append((path, parameter["name"], exc.message))
    assert missing == [] and refused == []


# Operations whose examples cannot answer 200 here, and what they answer instead.
NOT_200 = {
    "/v2/filings/{symbol}/congressional-trades": 501,  # FMP only: no key in the tests
}


@pytest.mark.django_db
@pytest.mark.parametrize("path", [path for path, _ in get_operations()
                                  if not path.startswith(("/v1/stream/",))])
def test_each_get_answers_with_its_examples_alone(path, api, sandbox_upstream):
    operation = dict(get_operations())[path]
    url, query = path, {}
    for parameter in operation.get("parameters", []):
        if "example" not in parameter:
            continue
        value = parameter["example"]
        value = str(value).lower() if isinstance(value, bool) else str(value)
        if parameter["in"] == "path":
            url = url.replace("{" + parameter["name"] + "}", quote(value, safe=""))
        elif parameter["in"] == "query":
            query[parameter["name"]] = value
    response = api.get(url + ("?" + urlencode(query) if query else ""))
    assert response.status_code == NOT_200.get(path, 200), (url, query, response.content[:300])
