"""Units in the OpenAPI document (issue 39, item 13).

Values stay as each upstream sends them, so a member name can mean a fraction on one
operation and a percent on another (``regularMarketChangePercent``: 0.0079 on ``/v2/quote``,
0.79 on ``/v2/quotes``). Every member whose name says percent, ratio, yield or change must
state its unit in its description, per operation; this walks the whole generated document.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

# What counts as stating a unit (whole words, any case).
UNIT = re.compile(r"\b(fraction|percent|currency|points|basis points|multiple|days|"
                  r"dimensionless)\b", re.I)
RATE_WORDS = {"percent", "percentage", "pct", "ratio", "yield", "change"}


def says_rate(name: str) -> bool:
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", name)
    return bool(RATE_WORDS.intersection(p.lower() for p in parts))


def openapi() -> dict[str, Any]:
    """The served document, built once per test process (tests/openapi_validation.py)."""
    from tests.openapi_validation import served_document

    return served_document()


def _members(node: Any, where: str, seen: frozenset[str] = frozenset()):
    """(where, name, description) of every member of a schema, following $refs."""
    if not isinstance(node, dict):
        return
    ref = node.get("$ref")
    if isinstance(ref, str):
        if ref in seen:
            return
        target = openapi()["components"]["schemas"][ref.rsplit("/", 1)[1]]
        yield from _members(target, where, seen | {ref})
        return
    for key in ("oneOf", "anyOf", "allOf", "prefixItems"):
        for alternative in node.get(key) or ():
            yield from _members(alternative, where, seen)
    for key in ("items", "additionalProperties"):
        yield from _members(node.get(key), f"{where}[]", seen)
    for name, sub in (node.get("properties") or {}).items():
        if isinstance(sub, dict):
            text = sub.get("description")
            if text is None and isinstance(sub.get("$ref"), str):
                text = openapi()["components"]["schemas"][
                    sub["$ref"].rsplit("/", 1)[1]].get("description")
            yield where, name, text or ""
        yield from _members(sub, f"{where}.{name}", seen)


def _operations():
    for path, item in openapi()["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and "responses" in operation:
                yield f"{method.upper()} {path}", operation


def _schemas(operation: dict[str, Any]):
    for status, response in operation["responses"].items():
        for media_type, media in (response.get("content") or {}).items():
            if "json" in media_type:
                yield f"{status}", media.get("schema")
    body = (operation.get("requestBody") or {}).get("content") or {}
    for media_type, media in body.items():
        if "json" in media_type:
            yield "body", media.get("schema")


def test_every_rate_member_states_its_unit():
    missing = []
    checked = 0
    for name_of_operation, operation in _operations():
        for where, schema in _schemas(operation):
            for at, name, text in _members(schema, where):
                if says_rate(name):
                    checked += 1
                    if not UNIT.search(text):
                        missing.append(f"{name_of_operation} {at}.{name}: {text[:80]!r}")
        for parameter in operation.get("parameters", []):
            if says_rate(parameter["name"]) and not UNIT.search(
                    parameter.get("description", "")):
                missing.append(f"{name_of_operation} parameter {parameter['name']}")
    assert checked > 100  # the walk reaches the members (the quote schemas alone have ~30)
    assert not missing, "\n".join(sorted(set(missing)))


def _description(path: str, member: str, at: tuple[str, ...] = ()) -> str:
    node = openapi()["paths"][path]["get"]["responses"]["200"]["content"][
        "application/json"]["schema"]
    found = [text for where, name, text in _members(node, "200")
             if name == member and where.startswith(".".join(("200", *at)))]
    assert found, (path, member)
    return found[0]


@pytest.mark.parametrize(("path", "member", "unit"), [
    # One member, two units: as each upstream sends it.
    ("/v2/quote/{symbol}", "regularMarketChangePercent", "Fraction"),
    ("/v2/quotes", "regularMarketChangePercent", "Percent"),
    ("/v2/indices", "regularMarketChangePercent", "Percent"),
    ("/v2/screeners/{screener}", "regularMarketChangePercent", "Percent"),
    ("/v2/market-summary", "regularMarketChangePercent", "Percent"),
    ("/v2/trending", "regularMarketChangePercent", "Percent"),
    ("/v2/quote/{symbol}", "dividendYield", "Fraction"),
    ("/v2/quotes", "dividendYield", "Percent"),
    ("/v2/quotes", "trailingAnnualDividendYield", "Fraction"),
    ("/v2/quote/{symbol}", "fiveYearAvgDividendYield", "Percent"),
    ("/v2/quote/{symbol}", "regularMarketChange", "currency"),
    ("/v2/quote/{symbol}", "currentRatio", "multiple"),
    ("/v2/quote/{symbol}", "shortRatio", "days"),
    ("/v2/screeners/{screener}", "fiftyDayAverageChangePercent", "Fraction"),
    ("/v2/screeners/{screener}", "fiftyTwoWeekChangePercent", "Percent"),
    ("/v2/crypto/coins", "priceChangePercentage24H", "Percent"),
    ("/v2/options/{symbol}", "percentChange", "Percent"),
    ("/v2/earnings-surprises/{symbol}", "surprisePercent", "Percent"),
])
def test_the_unit_is_the_operations_own(path, member, unit):
    text = _description(path, member)
    assert re.search(rf"\b{unit}\b", text, re.I), (path, member, text)
    other = {"fraction": "percent", "percent": "fraction"}.get(unit.lower())
    if other is not None:  # never both
        assert not re.search(rf"\b{other}\b", text, re.I), (path, member, text)


def test_the_batch_units_name_what_the_v7_parser_carries():
    """The v7 members the units call carried (``_V7``) are the ones the parser fills; the
    other percent-like quote members are null in a batch, as the description says."""
    from apps.core import units
    from marketdata.providers.yahoo.quote import V7_DERIVED, V7_MEMBERS

    carried = set(V7_MEMBERS) | set(V7_DERIVED)
    assert set(units._V7) <= carried
    assert not (set(units.QUOTE_SUMMARY) - set(units._V7)) & carried
