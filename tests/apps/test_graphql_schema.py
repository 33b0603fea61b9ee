"""The GraphQL schema: generated from the answers' declarations, committed as SDL, bounded."""

from __future__ import annotations

from pathlib import Path

import pytest
from graphql import GraphQLObjectType, build_schema, parse

from apps.graphql import catalog, cost
from apps.graphql.schema import build
from apps.graphql.sdl import current_sdl, openapi_document
from apps.graphql.types import TypeBuilder, as_connection, field_name, singular

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def built():
    return build(openapi_document())


@pytest.mark.slow("builds /openapi.json and the GraphQL schema from it (~3 s)")
def test_the_committed_sdl_is_current():
    committed = (ROOT / "schema.graphql").read_text(encoding="utf-8")
    assert committed == current_sdl(), "schema.graphql is not current: run `make graphql-schema`"


def test_the_sdl_is_a_valid_schema_a_client_can_build(built):
    schema = build_schema(built.sdl)
    assert schema.query_type.name == "Query"
    assert {"ticker", "tickers", "quotes", "search"} <= set(schema.query_type.fields)


def test_every_catalog_entry_is_a_field_of_its_operation(built):
    query = built.schema.query_type
    ticker = built.schema.type_map["Ticker"]
    assert isinstance(ticker, GraphQLObjectType)
    for served in catalog.ROOT:
        assert served.name in query.fields
        assert built.declared[f"Query.{served.name}"].operation.path.startswith("/v2/")
    for served in catalog.TICKER:
        assert served.name in ticker.fields
        arguments = ticker.fields[served.name].args
        assert served.bind not in arguments  # the ticker's symbol fills it
        assert not {"fields", "format"} & set(arguments)


def test_members_keep_their_rest_names_and_descriptions(built):
    candle = built.schema.type_map["ChartCandle"]
    document = openapi_document()
    item = document["paths"]["/v2/chart/{symbol}"]["get"]["responses"]["200"]["content"][
        "application/json"]["schema"]
    assert "close" in candle.fields and candle.fields["volume"].type.name == "Long"
    assert item  # the answer is declared


def test_a_formatted_number_is_a_float_without_the_format_text(built):
    quote = built.schema.type_map["Quote"]
    field = quote.fields["marketCap"]
    assert field.type.name == "Float"
    assert "format=pretty" not in (field.description or "")


def test_types_of_equal_schemas_are_one_type():
    builder = TypeBuilder()
    schema = {"type": "object", "properties": {"a": {"type": "integer"}}}
    assert builder.output(schema, "One") is builder.output({**schema, "description": "x"}, "Two")


def test_enums_only_where_every_value_is_a_graphql_name():
    builder = TypeBuilder()
    assert builder.output({"type": "string", "enum": ["bullish", "bearish"]}, "Trend").name \
        == "Trend"
    assert builder.output({"type": "string", "enum": ["1d", "5d"]}, "Range").name == "String"


def test_names_graphql_cannot_spell_are_made_names():
    assert field_name("52WeekChange") == "_52WeekChange"
    assert field_name("a.b") == "a_b"
    assert singular("ChartCandles") == "ChartCandle"
    assert singular("WorldNews") == "WorldNewsItem"


@pytest.mark.parametrize("items", [[], [{"x": 1}], [{"x": i} for i in range(300)]])
def test_a_bare_list_is_given_as_its_one_page_connection(items):
    from apps.core.v2 import connection

    page = as_connection(items)
    assert dict(page) == connection(items, 0, False)  # REST's, cursors included
    assert page["nodes"] is items


def _measure(query: str, variables=None, limit=12):
    document = parse(query)
    operation = document.definitions[0]
    fragments = {d.name.value: d for d in document.definitions[1:]}
    return cost.measure(operation, fragments, variables or {}, limit)


def test_cost_counts_requests_the_query_may_make():
    measured = _measure('{ tickers(symbols: ["A","B","C"]) { quote { symbol } chart { meta '
                        '{ symbol } } } search(q: "x") { count } }')
    assert measured.served == {"ticker.quote": 1, "ticker.chart": 3, "search": 1}
    assert measured.cost == 5


def test_cost_follows_variables_and_fragments():
    measured = _measure('query Q($s: [String!]!) { tickers(symbols: $s) { ...F } } '
                        'fragment F on Ticker { news { count } }', {"s": ["A", "B"]})
    assert measured.cost == 2


def test_introspection_costs_one_and_no_depth():
    measured = _measure("{ __schema { types { fields { type { ofType { ofType { ofType "
                        "{ name } } } } } } } }")
    assert measured.cost == 1 and measured.depth == 0


def test_depth_and_aliases_are_counted():
    deep = "{ ticker(symbol: \"A\") " + "{ chart { meta " * 20 + "{ symbol }" + " } }" * 20 + " }"
    assert _measure(deep).depth > 12
    aliases = "{ " + " ".join(f"a{i}: cryptoGlobal {{ marketCap }}" for i in range(70)) + " }"
    measured = _measure(aliases)
    assert measured.aliases == 70 and measured.cost == 70
