"""What an operation of the OpenAPI document is called with when every parameter takes its
example: shared by the examples test (tests/apps/test_schema_examples.py) and the generated
clients' tests, so both send exactly what the document suggests."""

from __future__ import annotations

from typing import Any

from marketdata.indicators.functions import ALL_PARAMS, FUNCTIONS

# /v1/indicator's period parameters are each taken by some functions only (the service
# refuses one its function does not take), so no single call can send all their examples.
_PERIOD_PARAMETERS = {param.alias for param in ALL_PARAMS.values()}


def example_arguments(path: str, operation: dict[str, Any]) -> list[tuple[dict[str, Any], Any]]:
    """(parameter, example) for every parameter of ``operation`` a call sends together:
    all of them, but for /v1/indicator only the period parameters of the example's
    ``function``."""
    parameters = operation.get("parameters", [])
    examples = {p["name"]: p["example"] for p in parameters if "example" in p}
    taken = _PERIOD_PARAMETERS
    if path == "/v1/indicator":
        function = FUNCTIONS[str(examples["function"]).upper()]
        taken = {param.alias for param in function.params}
    return [(p, p["example"]) for p in parameters
            if "example" in p and (p["name"] not in _PERIOD_PARAMETERS or p["name"] in taken)]


def body_examples(operation: dict[str, Any]) -> list[Any]:
    """The JSON request body's examples (``example``, then each of ``examples``)."""
    content = (operation.get("requestBody") or {}).get("content", {}).get(
        "application/json", {})
    found = [content["example"]] if "example" in content else []
    return found + [item["value"] for item in (content.get("examples") or {}).values()]
