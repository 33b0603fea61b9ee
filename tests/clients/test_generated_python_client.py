"""A Python client generated from the served document by a tool nobody here wrote
(openapi-python-client, pinned in requirements/dev.txt) with no configuration: it generates
without a warning, and every operation called through it with the document's examples
against the service in sandbox mode answers 200 parsed into its generated model (the one
keyed-only operation answers its documented 501). One client per module: generating takes
about ten seconds."""

from __future__ import annotations

import datetime
import enum
import importlib
import inspect
import json
import os
import subprocess
import sys
import types
import typing
from pathlib import Path
from typing import Any

import pytest

from tests.clients.examples import body_examples, example_arguments
from tests.integration.servers import PYTHON, http, start_service

pytestmark = [pytest.mark.integration,
              pytest.mark.slow(
                  "generates a client with openapi-python-client and calls every operation")]

GENERATOR = Path(PYTHON).parent / "openapi-python-client"
# Operations whose examples cannot answer 200 here, and what they answer instead.
NOT_200 = {"get_congressional_trades": 501}  # FMP only: no key in the tests


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    server = start_service(tmp_path_factory.mktemp("client-service"),
                           {"MARKETDATA_UPSTREAM": "sandbox"})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def document(service) -> dict[str, Any]:
    status, _, body = http("GET", f"{service.base_url}/openapi.json")
    assert status == 200
    return json.loads(body)


@pytest.fixture(scope="module")
def generated(tmp_path_factory, document) -> tuple[str, subprocess.CompletedProcess]:
    """(package name, the generator's run): the client generated into a temporary folder
    and importable."""
    if not GENERATOR.exists():
        pytest.fail(f"{GENERATOR} missing: install requirements/dev.lock")
    tmp = tmp_path_factory.mktemp("python-client")
    (tmp / "openapi.json").write_text(json.dumps(document))
    output = tmp / "client"
    # The venv's bin on PATH: the generator formats its output with ruff (a dependency).
    env = {**os.environ, "PATH": f"{GENERATOR.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    run = subprocess.run([str(GENERATOR), "generate", "--path", str(tmp / "openapi.json"),
                          "--output-path", str(output)],
                         capture_output=True, text=True, env=env, timeout=300, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    (package,) = [p.parent.name for p in output.glob("*/client.py")]
    sys.path.insert(0, str(output))
    yield package, run
    sys.path.remove(str(output))
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]


def test_generation_prints_no_warning(generated):
    _, run = generated
    lines = [line for line in (run.stdout + run.stderr).splitlines() if line.strip()]
    # Its only line on success names the folder; anything else is a warning or an error.
    assert [line for line in lines if not line.startswith("Generating ")] == []


def _module_name(operation_id: str) -> str:
    from openapi_python_client.strings import PythonIdentifier

    return PythonIdentifier(operation_id, prefix="")


def _operations(document: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, operation) for path, ops in document["paths"].items()
            for method, operation in ops.items()
            if "text/event-stream" not in str(operation["responses"].get("200", {}))]


def _endpoint(package: str, operation: dict[str, Any]) -> types.ModuleType:
    api = importlib.import_module(f"{package}.api")
    name = _module_name(operation["operationId"])
    for folder in Path(api.__path__[0]).iterdir():
        if (folder / f"{name}.py").exists():
            return importlib.import_module(f"{package}.api.{folder.name}.{name}")
    raise AssertionError(f"no generated module for {operation['operationId']}")


def _flat(annotation: Any) -> list[Any]:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [a for arg in typing.get_args(annotation) for a in _flat(arg)]
    return [annotation]


def _convert(annotation: Any, value: Any) -> Any:
    """An example (JSON) as the generated function's argument type: its enum class, a list
    of them, a date."""
    for kind in _flat(annotation):
        if typing.get_origin(kind) is list:
            (item,) = typing.get_args(kind)
            items = value if isinstance(value, list) else str(value).split(",")
            return [_convert(item, v) for v in items]
        if isinstance(kind, type) and issubclass(kind, enum.Enum):
            return kind(value)
        if kind is datetime.date:
            return datetime.date.fromisoformat(value)
    return value


def _arguments(function: Any, path: str, operation: dict[str, Any]) -> dict[str, Any]:
    """The generated function's keyword arguments for the document's examples (and the
    request body's first example)."""
    hints = typing.get_type_hints(function)
    names = {_module_name(name).rstrip("_"): name
             for name in inspect.signature(function).parameters}
    out: dict[str, Any] = {}
    for parameter, value in example_arguments(path, operation):
        argument = names.get(_module_name(parameter["name"]).rstrip("_"))
        assert argument is not None, (operation["operationId"], parameter["name"], names)
        out[argument] = _convert(hints[argument], value)
    if "requestBody" in operation:
        (model,) = [k for k in _flat(hints["body"]) if hasattr(k, "from_dict")]
        out["body"] = model.from_dict(body_examples(operation)[0])
    return out


def _resolve(schema: Any, document: dict[str, Any]) -> Any:
    while isinstance(schema, dict) and "$ref" in schema:
        schema = document["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _unparsed(value: Any, schema: Any, document: dict[str, Any], package: str,
              where: str = "$") -> str | None:
    """Where ``value`` is not what the generated client makes of ``schema`` (an object with
    members is one of its models, never a dict; a list's items likewise), or None."""
    schema = _resolve(schema, document)
    if not isinstance(schema, dict):
        return None
    alternatives = schema.get("oneOf") or schema.get("anyOf")
    if alternatives:
        found = [_unparsed(value, a, document, package, where) for a in alternatives]
        return None if None in found else found[0]
    if "properties" in schema:
        if not type(value).__module__.startswith(f"{package}.models."):
            return f"{where}: {type(value).__name__}, not a generated model"
        return None
    if schema.get("type") == "array":
        if not isinstance(value, list):
            return f"{where}: {type(value).__name__}, not a list"
        for position, item in enumerate(value[:3]):
            problem = _unparsed(item, schema.get("items"), document, package,
                                f"{where}[{position}]")
            if problem:
                return problem
    return None


def test_every_operation_is_generated(generated, document):
    package, _ = generated
    for _, _, operation in _operations(document):
        assert callable(_endpoint(package, operation).sync_detailed)


def test_every_operation_answers_and_parses_through_the_generated_client(
        generated, document, service):
    package, _ = generated
    client = importlib.import_module(package).Client(base_url=service.base_url, timeout=60)
    failures = []
    for path, method, operation in _operations(document):
        operation_id = operation["operationId"]
        function = _endpoint(package, operation).sync_detailed
        response = function(client=client, **_arguments(function, path, operation))
        expected = NOT_200.get(operation_id, 200)
        if response.status_code != expected:
            failures.append((method, path, response.status_code, response.content[:200]))
            continue
        if response.parsed is None:
            failures.append((method, path, "not parsed"))
            continue
        if expected == 200:
            schema = operation["responses"]["200"]["content"]["application/json"]["schema"]
            problem = _unparsed(response.parsed, schema, document, package)
            if problem:
                failures.append((method, path, problem))
    assert failures == []


def test_the_parse_check_refuses_a_raw_dict_where_a_model_exists(generated, document):
    # The check above can fail: a dict (the generator's fallback) is not the quote's model,
    # in the bare-array or the connection form of the batch.
    package, _ = generated
    schema = document["paths"]["/v2/quotes"]["get"]["responses"]["200"]["content"][
        "application/json"]["schema"]
    assert _unparsed({"quotes": [], "errors": []}, schema, document, package)
    quote = document["paths"]["/v2/quote/{symbol}"]["get"]["responses"]["200"]["content"][
        "application/json"]["schema"]
    assert _unparsed({"symbol": "AAPL"}, quote, document, package)
    assert _unparsed([{"symbol": "AAPL"}], {"type": "array", "items": quote}, document,
                     package)
