"""``/graphql`` through the real service process (bin/serve on the sandbox HTTP server, the
worker's shared stack), driven by an independent client, ``gql`` over requests:

- every field of the catalog (:mod:`apps.graphql.catalog`: each ``Query`` root field and
  each ``Ticker`` field, so a new entry is covered without a line here) is queried with every
  scalar leaf of its type a few levels deep, with the OpenAPI examples as its arguments, and
  its answer compared member by member with the REST answer of the same request;
- a 12-symbol dashboard (quote, 1-year chart, indicators, calendar) makes one upstream quote
  call, counted by the sandbox's request log and the service's metrics;
- hostile queries (deep, aliased, huge, costly) are refused before any upstream request, in
  well under a second; bad argument values, GET with its ETag, mutations, CORS;
- the v2 token bucket is charged the query's cost (a service with a small bucket).
"""

from __future__ import annotations

import json
import re
import time
import uuid
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import quote as url_quote

import pytest
import requests
from gql import Client, GraphQLRequest, gql
from gql.transport.exceptions import TransportQueryError
from gql.transport.requests import RequestsHTTPTransport
from graphql import (
    GraphQLList,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLSchema,
    get_named_type,
    is_leaf_type,
)

from apps.graphql import catalog
from apps.graphql.types import field_name

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("the first test waits for the worker's shared servers to start")]

# How many object levels below a field its generated selection goes (the server's depth
# limit, GRAPHQL_MAX_DEPTH 12, counts ``ticker`` and the field itself too).
NEST = 6

# Arguments beyond the OpenAPI examples of the operation's required parameters (GraphQL
# names): none needed today; e.g. {"Ticker.chart": {"range": "1y"}}.
ARGUMENTS: dict[str, dict[str, Any]] = {}

# Fields that legitimately fail in sandbox mode (a provider not simulated), with the REST
# status their error must carry (the REST answer's, and its provider if it names one).
SANDBOX_ERRORS: dict[str, int] = {
    # Financial Modeling Prep's data, served only with FMP_API_KEY: 501 without one.
    "Ticker.congressionalTrades": 501,
}

# Members that change between two requests that are not cached (a clock): not compared.
VOLATILE: dict[str, set[str]] = {"Query.health": {"timestamp"}}

# The module's one service: the in-process sandbox, and a small v2 bucket that refills a token
# every 1,000 s (the bucket's test); every other test sends the admin key, which the limits
# let through.
ADMIN_KEY = f"gql-admin-{uuid.uuid4().hex}"
ADMIN = {"X-API-Key": ADMIN_KEY}
BUCKET = 40
SERVICE_ENV = {"MARKETDATA_UPSTREAM": "sandbox", "ADMIN_API_KEY": ADMIN_KEY,
               "V2_RATE_LIMIT_CAPACITY": str(BUCKET), "V2_RATE_LIMIT_REFILL_PER_SECOND": "0.001"}

DASHBOARD_SYMBOLS = [f"GQD{letter}" for letter in "ABCDEFGHIJKL"]  # asked nowhere else


# -- servers and clients ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def service(server_pool):
    """The service on the in-process sandbox (``MARKETDATA_UPSTREAM=sandbox``, as ``make
    run`` starts it): the providers a live service paces (CoinGecko's call every 6 s) are
    not paced there, so every field answers at once. The sandbox's calls are counted on
    ``/metrics`` as a live upstream's are."""
    return server_pool.service(SERVICE_ENV)


@pytest.fixture(scope="module")
def base(service) -> str:
    return service.base_url


@pytest.fixture(scope="module")
def http_session() -> Iterator[requests.Session]:
    """Requests with the admin key (past the module's small v2 bucket)."""
    with requests.Session() as session:
        session.headers.update(ADMIN)
        yield session


@pytest.fixture(scope="module")
def document(base, http_session) -> dict[str, Any]:
    answer = http_session.get(f"{base}/openapi.json", timeout=30)
    assert answer.status_code == 200
    return answer.json()


@pytest.fixture(scope="module")
def client(base) -> Iterator[Any]:
    """A gql session whose schema came from the server's introspection."""
    gql_client = Client(transport=RequestsHTTPTransport(url=f"{base}/graphql", timeout=60,
                                                        headers=ADMIN),
                        fetch_schema_from_transport=True)
    with gql_client as session:
        yield session


@pytest.fixture(scope="module")
def schema(client) -> GraphQLSchema:
    assert client.client.schema is not None
    return client.client.schema


# -- queries from the schema -------------------------------------------------------------------
def _unwrap(kind: Any) -> Any:
    while isinstance(kind, GraphQLList | GraphQLNonNull):
        kind = kind.of_type
    return kind


def selection(kind: Any, levels: int = NEST) -> dict[str, Any] | None:
    """``{field: its selection}`` of every scalar leaf of ``kind``, ``levels`` object levels
    deep (None: a leaf). A connection is one like any other: ``edges {cursor node {...}}``,
    ``nodes {...}`` and ``pageInfo {...}`` are its fields."""
    kind = _unwrap(kind)
    if is_leaf_type(kind):
        return None
    out: dict[str, Any] = {}
    if levels <= 0:
        return out
    for name, field in kind.fields.items():
        if any(isinstance(a.type, GraphQLNonNull) for a in field.args.values()):
            continue
        inner = _unwrap(field.type)
        if is_leaf_type(inner):
            out[name] = None
        else:
            sub = selection(inner, levels - 1)
            if sub:
                out[name] = sub
    return out


def render(chosen: Mapping[str, Any]) -> str:
    return " ".join(name if sub is None else f"{name} {{ {render(sub)} }}"
                    for name, sub in chosen.items())


def _operations(document: Mapping[str, Any]) -> dict[str, tuple[str, str, dict[str, Any]]]:
    out = {}
    for path, item in document["paths"].items():
        for method, spec in item.items():
            if isinstance(spec, dict) and "operationId" in spec:
                out[spec["operationId"]] = (method.upper(), path, spec)
    return out


def _parameters(document: Mapping[str, Any], spec: Mapping[str, Any]) -> list[dict[str, Any]]:
    out = []
    for parameter in spec.get("parameters") or ():
        if "$ref" in parameter:
            parameter = document["components"]["parameters"][parameter["$ref"].rsplit("/")[-1]]
        out.append(parameter)
    return out


def _example(parameter: Mapping[str, Any]) -> Any:
    for holder in (parameter, parameter.get("schema") or {}):
        if "example" in holder:
            return holder["example"]
    raise AssertionError(f"parameter {parameter['name']} has no example")


def _body_example(spec: Mapping[str, Any]) -> Any:
    content = spec["requestBody"]["content"]["application/json"]
    if "example" in content:
        return content["example"]
    return next(iter(content["examples"].values()))["value"]


def _served(key: str) -> catalog.Served:
    owner, name = key.split(".")
    return next(s for s in (catalog.TICKER if owner == "Ticker" else catalog.ROOT)
                if s.name == name)


class Call:
    """One catalog field as a GraphQL query and as its REST request."""

    def __init__(self, key: str, document: Mapping[str, Any], schema: GraphQLSchema) -> None:
        self.key = key
        self.served = served = _served(key)
        owner = key.split(".")[0]
        method, path, spec = _operations(document)[served.operation]
        self.method = method
        parameters = _parameters(document, spec)
        back = {argument: parameter for parameter, argument in served.renamed.items()}
        parent: GraphQLObjectType = schema.get_type(owner) if owner == "Ticker" \
            else schema.query_type  # type: ignore[assignment]
        self.field = parent.fields[served.name]
        # The arguments: each required one from its parameter's OpenAPI example.
        by_name = {p["name"]: p for p in parameters}
        values: dict[str, Any] = {}
        for name, argument in self.field.args.items():
            if not isinstance(argument.type, GraphQLNonNull):
                continue
            if name == served.body:
                values[name] = _body_example(spec)
                continue
            example = _example(by_name[back.get(name, name)])
            if isinstance(argument.type.of_type, GraphQLList) and isinstance(example, str):
                example = example.split(",")  # REST's comma-separated list
            values[name] = example
        values.update(ARGUMENTS.get(key, {}))
        self.arguments = values
        self.symbol: str | None = None
        if owner == "Ticker":
            example = _example(by_name[served.bind])
            self.symbol = str(example).split(",")[0]
        # The GraphQL query, its arguments as variables (their types as the schema's).
        declared = [f"${name}: {self.field.args[name].type}" for name in values]
        if self.symbol is not None:
            declared.append("$symbol: String!")
        passed = ", ".join(f"{name}: ${name}" for name in values)
        self.selection = selection(self.field.type)
        inner = f"{served.name}{f'({passed})' if passed else ''}"
        if self.selection is not None:
            inner += f" {{ {render(self.selection)} }}"
        if self.symbol is not None:
            inner = f"ticker(symbol: $symbol) {{ {inner} }}"
        header = f"query Check{served.name[:1].upper()}{served.name[1:]}"
        self.query = f"{header}({', '.join(declared)}) {{ {inner} }}" if declared else \
            f"{header} {{ {inner} }}"
        self.variables = {**values, **({"symbol": self.symbol} if self.symbol else {})}
        # The REST request: the same operation with the same values (REST names).
        rest = {back.get(name, name): value for name, value in values.items()
                if name != served.body}
        if served.bind is not None:
            rest[served.bind] = self.symbol
        self.body = values.get(served.body) if served.body else None
        self.path = path
        query: list[tuple[str, str]] = []
        for parameter in parameters:
            name = parameter["name"]
            if name not in rest:
                continue
            value = rest[name]
            text = ",".join(map(str, value)) if isinstance(value, list) else \
                ("true" if value is True else "false" if value is False else str(value))
            if parameter["in"] == "path":
                self.path = self.path.replace("{" + name + "}", url_quote(text, safe=""))
            else:
                query.append((name, text))
        self.params = query

    def graphql(self, session: Any) -> tuple[Any, list[dict[str, Any]] | None]:
        """(data of the field, errors)."""
        try:
            data = session.execute(GraphQLRequest(self.query, variable_values=self.variables))
            errors = None
        except TransportQueryError as exc:
            data, errors = exc.data, exc.errors
        if data is not None and self.symbol is not None:
            data = data["ticker"]
        return (data or {}).get(self.served.name), errors

    def rest(self, base: str, session: requests.Session) -> requests.Response:
        url = f"{base}{self.path}"
        if self.method == "POST":
            return session.post(url, params=self.params, json=self.body, timeout=60)
        return session.get(url, params=self.params, timeout=60)


def compare(chosen: Mapping[str, Any] | None, kind: Any, got: Any, want: Any, where: str,
            missing: list[str]) -> None:
    """Assert the GraphQL value ``got`` (of type ``kind``, selection ``chosen``) is the REST
    value ``want``, member by member; REST members the GraphQL type lacks go to ``missing``."""
    named = get_named_type(kind)
    if chosen is None:  # a leaf: JSON equality (Float's 5.0 is REST's 5)
        assert got == want, f"{where}: GraphQL {got!r} != REST {want!r}"
        return
    if want is None:
        assert got is None, f"{where}: GraphQL {got!r}, REST null"
        return
    if isinstance(want, list) and isinstance(got, dict):  # REST's bare list, a connection
        assert named.name.endswith("Connection"), (where, named)
        nodes_kind = named.fields["nodes"].type
        if "nodes" in chosen:
            compare(chosen["nodes"], nodes_kind, got["nodes"], want, f"{where}.nodes", missing)
        if "edges" in chosen and "node" in chosen["edges"]:
            assert len(got["edges"]) == len(want), where
            for i, (edge, item) in enumerate(zip(got["edges"], want, strict=True)):
                compare(chosen["edges"]["node"], _unwrap(nodes_kind), edge["node"], item,
                        f"{where}.edges[{i}].node", missing)
        if "pageInfo" in chosen:
            assert got["pageInfo"]["hasNextPage"] is False, where
        return
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), \
            f"{where}: GraphQL {type(got).__name__} of {len(got or ())}, REST list of {len(want)}"
        for i, (a, b) in enumerate(zip(got, want, strict=True)):
            compare(chosen, kind, a, b, f"{where}[{i}]", missing)
        return
    assert isinstance(want, dict) and isinstance(got, dict), \
        f"{where}: GraphQL {got!r:.200}, REST {want!r:.200}"
    fields = named.fields
    for member in want:
        if field_name(member) not in fields:
            missing.append(f"{where}.{member}")
    members = {field_name(member): member for member in want}
    for name, sub in chosen.items():
        compare(sub, fields[name].type, got.get(name), want.get(members.get(name, name)),
                f"{where}.{name}", missing)


FIELDS = [f"Query.{s.name}" for s in catalog.ROOT] + [f"Ticker.{s.name}" for s in catalog.TICKER]


@pytest.mark.parametrize("key", FIELDS)
def test_every_field_answers_as_its_rest_operation(key, base, document, schema, client,
                                                   http_session):
    call = Call(key, document, schema)
    got, errors = call.graphql(client)
    rest = call.rest(base, http_session)
    if key in SANDBOX_ERRORS:
        assert rest.status_code == SANDBOX_ERRORS[key], rest.text
        assert errors and got is None, got
        assert errors[0]["message"] == rest.json()["error"]
        assert errors[0]["path"][-1] == call.served.name
        extensions = errors[0]["extensions"]
        assert extensions["status"] == rest.status_code
        assert extensions["code"]
        assert extensions.get("provider") == rest.json().get("provider")
        return
    assert errors is None, (call.query, errors)
    assert rest.status_code == 200, (call.path, call.params, rest.text[:500])
    want = rest.json()
    if call.served.batch == "quotes":  # ticker.quote: the symbol's quote of the batch's list
        want = next(q for q in want["quotes"] if q["symbol"] == call.symbol)
    chosen = dict(call.selection or {})
    for member in VOLATILE.get(key, ()):
        assert got.get(member) is not None and want.pop(member) is not None, member
        del chosen[member]
    missing: list[str] = []
    compare(chosen or None, call.field.type, got, want, key, missing)
    # A member REST answers that the GraphQL type cannot give (unless it is a JSON leaf).
    assert not missing, f"REST members the GraphQL type lacks: {missing[:20]}"


# -- the dashboard: one upstream quote call -----------------------------------------------------
METRIC_LINE = re.compile(r'^(\w+)\{([^}]*)\} ([0-9.e+-]+)$')


def metrics(base: str, session: requests.Session, name: str) -> dict[frozenset, float]:
    """The samples of ``name`` on /metrics, by their labels."""
    answer = session.get(f"{base}/metrics", timeout=30)
    assert answer.status_code == 200
    out: dict[frozenset, float] = {}
    for line in answer.text.splitlines():
        match = METRIC_LINE.match(line)
        if match and match.group(1) == name:
            labels = frozenset(re.findall(r'(\w+)="([^"]*)"', match.group(2)))
            out[labels] = float(match.group(3))
    return out


def total(samples: Mapping[frozenset, float], **labels: str) -> float:
    wanted = set(labels.items())
    return sum(value for key, value in samples.items() if wanted <= key)


DASHBOARD = """
query Dashboard($symbols: [String!]!) {
  tickers(symbols: $symbols) {
    symbol
    quote { symbol regularMarketPrice regularMarketChangePercent }
    chart(range: "1y") { range candles { nodes { timestamp close } } }
    indicators { rsi14 }
    calendar(range: "6mo") { date symbol event { EARNINGS { epsEstimateAvg } } }
  }
}
"""


def test_a_12_symbol_dashboard_makes_one_upstream_quote_call(base, service, http_session):
    upstream = "marketdata_upstream_requests_total"
    fields = "marketdata_graphql_fields_total"
    before, served_before = (metrics(base, http_session, upstream),
                             metrics(base, http_session, fields))
    correlation_id = f"gql-dashboard-{uuid.uuid4().hex[:12]}"
    transport = RequestsHTTPTransport(url=f"{base}/graphql", timeout=60,
                                      headers={**ADMIN, "X-Correlation-ID": correlation_id})
    with Client(transport=transport) as session:
        data = session.execute(GraphQLRequest(DASHBOARD,
                                              variable_values={"symbols": DASHBOARD_SYMBOLS}))
    after, served_after = (metrics(base, http_session, upstream),
                           metrics(base, http_session, fields))

    tickers = data["tickers"]
    assert [t["symbol"] for t in tickers] == DASHBOARD_SYMBOLS
    for ticker in tickers:
        assert ticker["quote"]["symbol"] == ticker["symbol"]
        assert ticker["quote"]["regularMarketPrice"] > 0
        assert ticker["chart"]["range"] == "1y"
        assert len(ticker["chart"]["candles"]["nodes"]) > 200  # a year of sessions
        assert 0 <= ticker["indicators"]["rsi14"] <= 100
        earnings = [item["date"] for item in ticker["calendar"]
                    if item["symbol"] == ticker["symbol"] and item["event"]["EARNINGS"]]
        assert earnings, ticker["calendar"]  # the next earnings date
    # Twelve quotes, one upstream call (Yahoo's batch quote endpoint).
    quote_calls = total(after, provider="yahoo", endpoint="quote") - \
        total(before, provider="yahoo", endpoint="quote")
    assert quote_calls == 1, {k: v - before.get(k, 0) for k, v in after.items()
                              if v != before.get(k, 0)}
    # The served fields' counter: the batched quote once, the others once per ticker.
    served = {dict(k)["field"]: v - served_before.get(k, 0) for k, v in served_after.items()
              if dict(k).get("operation") == "query" and v != served_before.get(k, 0)}
    assert served == {"ticker.quote": 1, "ticker.chart": 12, "ticker.indicators": 12,
                      "ticker.calendar": 12}
    # The access log line of the query: its fields and cost (1 + 3 x 12).
    deadline = time.monotonic() + 5
    while True:
        lines = [json.loads(line) for line in service.log().splitlines()
                 if correlation_id in line and line.startswith("{")]
        access = [line for line in lines if line.get("route") == "graphql"]
        if access or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert len(access) == 1, lines
    assert access[0]["status_code"] == 200
    assert access[0]["graphql_fields"] == ["ticker.calendar", "ticker.chart",
                                           "ticker.indicators", "ticker.quote"]
    assert access[0]["graphql_cost"] == 37
    assert access[0]["graphql_operation"] == "Dashboard"


# -- hostile and malformed queries ---------------------------------------------------------------
def tickers(symbols: list[str], fields: str) -> str:
    """``{ tickers(symbols: [...]) { fields } }``."""
    return "{ tickers(symbols: " + json.dumps(symbols) + ") { " + fields + " } }"


def _refused(base: str, session: requests.Session, query: str) -> tuple[requests.Response, float]:
    started = time.perf_counter()
    answer = session.post(f"{base}/graphql", json={"query": query}, timeout=30)
    return answer, time.perf_counter() - started


def _error(answer: requests.Response) -> dict[str, Any]:
    body = answer.json()
    assert "data" not in body, body
    return body["errors"][0]


def test_hostile_queries_are_refused_cheaply_before_any_upstream_call(base, http_session):
    from django.conf import settings

    upstream = "marketdata_upstream_requests_total"
    before = total(metrics(base, http_session, upstream))
    symbols = [f"GQH{i:02d}" for i in range(catalog.MAX_TICKERS)]  # asked nowhere else
    hostile = {
        # 50 deep below a served field (the names are never looked at: refused first).
        "depth": ('{ ticker(symbol: "GQH00") { chart { ' + "a { " * 47 + "b" + " }" * 47
                  + " } } }", 400, {"QUERY_TOO_DEEP"}),
        # 1,000 aliases of one field: over the alias limit, or the token limit first.
        "aliases": ("{ " + "a: __typename " * 1000 + "}", 400,
                    {"TOO_MANY_ALIASES", "QUERY_TOO_COMPLEX"}),
        # The alias limit itself, one past it.
        "aliases at the limit": ("{ " + " ".join(
            f"a{i}: health {{ status }}" for i in range(settings.GRAPHQL_MAX_ALIASES + 1))
            + " }", 400, {"TOO_MANY_ALIASES"}),
        # A megabyte of query (under the body limit: the query's own limit refuses it).
        "size": ("{ health { status } }" + " " * 1_000_000, 413, {"QUERY_TOO_LARGE"}),
        # Six per-symbol fields for 50 symbols: 300 requests, over GRAPHQL_MAX_COST.
        "cost": (tickers(symbols, "chart { symbol } fullQuote { symbol } quoteType { symbol } "
                         "options { symbol } dividends { nodes { amount } } splits { ratio }"),
                 400, {"QUERY_TOO_COSTLY"}),
    }
    for name, (query, status, codes) in hostile.items():
        answer, seconds = _refused(base, http_session, query)
        assert answer.status_code == status, (name, answer.text[:300])
        error = _error(answer)
        assert error["extensions"]["code"] in codes, (name, error)
        assert error["extensions"]["status"] == status, (name, error)
        assert seconds < 0.5, (name, seconds)
        if name == "cost":
            assert error["extensions"]["cost"] == 6 * catalog.MAX_TICKERS
            assert error["extensions"]["limit"] == settings.GRAPHQL_MAX_COST
            assert settings.GRAPHQL_MAX_COST < 6 * catalog.MAX_TICKERS
    assert total(metrics(base, http_session, upstream)) == before


def test_a_bad_argument_value_is_an_error_naming_the_argument(client):
    with pytest.raises(TransportQueryError) as raised:
        client.execute(gql('{ ticker(symbol: "AAPL") { chart(interval: "7x") { symbol } } }'))
    error = raised.value.errors[0]
    assert "interval" in error["message"], error
    assert error["path"] == ["ticker", "chart"]
    assert error["extensions"]["code"] == "BAD_REQUEST"
    assert error["extensions"]["status"] in (400, 422)
    assert raised.value.data == {"ticker": {"chart": None}}


def test_get_answers_with_an_etag_and_if_none_match_gives_304(base, http_session):
    query = '{ ticker(symbol: "AAPL") { quoteType { symbol quoteType exchange } } }'
    # (gql's GET sends the JSON body with a GET, which GraphQL over HTTP ignores: the
    # query string is what a GET carries.)
    first = http_session.get(f"{base}/graphql", params={"query": query},
                             headers={"Accept-Encoding": "identity"}, timeout=30)
    assert first.status_code == 200, first.text
    data = first.json()
    assert data["data"]["ticker"]["quoteType"]["symbol"] == "AAPL" and "errors" not in data
    tag = first.headers["ETag"]
    assert re.fullmatch(r'"[0-9a-f]{32}"', tag), tag
    assert first.headers["Cache-Control"] == "no-cache"
    again = http_session.get(f"{base}/graphql", params={"query": query},
                             headers={"If-None-Match": tag, "Accept-Encoding": "identity"},
                             timeout=30)
    assert again.status_code == 304 and again.content == b""
    assert again.headers["ETag"] == tag
    # POST answers are never cached.
    posted = http_session.post(f"{base}/graphql", json={"query": query}, timeout=30)
    assert "ETag" not in posted.headers and posted.headers["Cache-Control"] == "no-store"


def test_a_compressed_get_answer_has_its_own_etag_as_rest_s(base, http_session):
    """A strong ETag names one representation: gzip's is not identity's (REST's suffix)."""
    query = '{ ticker(symbol: "AAPL") { chart(range: "1y") { candles { nodes { close } } } } }'
    tags = {}
    for coding in ("identity", "gzip"):
        answer = http_session.get(f"{base}/graphql", params={"query": query}, timeout=30,
                                  headers={"Accept-Encoding": coding})
        assert answer.status_code == 200
        assert answer.headers.get("Content-Encoding", "identity") == coding
        assert "Accept-Encoding" in answer.headers["Vary"]
        tags[coding] = answer.headers["ETag"]
    assert tags["gzip"] == tags["identity"][:-1] + '-gz"'
    crossed = http_session.get(f"{base}/graphql", params={"query": query}, timeout=30,
                               headers={"Accept-Encoding": "identity",
                                        "If-None-Match": tags["gzip"]})
    assert crossed.status_code == 200


def test_mutations_are_refused(base, http_session):
    posted = http_session.post(f"{base}/graphql", json={"query": "mutation { health { status } }"},
                               timeout=30)
    assert posted.status_code == 400
    assert _error(posted)["extensions"]["code"] == "BAD_REQUEST"
    assert "mutation" in _error(posted)["message"]
    got = http_session.get(f"{base}/graphql", params={"query": "mutation { health { status } }"},
                           timeout=30)
    assert got.status_code == 405


def _cors(headers: Mapping[str, str]) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()
            if name.lower().startswith("access-control-")}


def test_cors_headers_are_rest_s(base, http_session):
    origin = {"Origin": "https://dashboard.example"}
    rest = http_session.get(f"{base}/v2/quotes", params={"symbols": "AAPL"}, headers=origin,
                            timeout=30)
    graphql = http_session.post(f"{base}/graphql", json={"query": "{ health { status } }"},
                                headers=origin, timeout=30)
    assert rest.status_code == graphql.status_code == 200
    assert _cors(graphql.headers) == _cors(rest.headers)
    assert "access-control-allow-origin" in _cors(graphql.headers)
    assert "origin" in graphql.headers["Vary"].lower()
    preflight = {**origin, "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "content-type"}
    rest = http_session.options(f"{base}/v2/quotes", headers=preflight, timeout=30)
    graphql = http_session.options(f"{base}/graphql", headers=preflight, timeout=30)
    assert rest.status_code == graphql.status_code == 200
    assert _cors(graphql.headers) == _cors(rest.headers)
    assert "POST" in graphql.headers["Access-Control-Allow-Methods"]


# -- the v2 bucket pays the query's cost --------------------------------------------------------
def _remaining(answer: requests.Response) -> int:
    match = re.search(r";r=(\d+)", answer.headers["RateLimit"])
    assert match, answer.headers
    return int(match.group(1))


def test_the_v2_bucket_is_charged_the_query_s_cost(base):
    """Without the admin key: the module's bucket of 40, which no other test takes from."""
    url = f"{base}/graphql"

    def post(query: str) -> requests.Response:
        return requests.post(url, json={"query": query}, timeout=60)

    first = post("{ health { status } }")  # cost 1
    assert first.status_code == 200, first.text
    assert f"q={BUCKET};" in first.headers["RateLimit-Policy"]
    start = _remaining(first)
    assert start == BUCKET - 1
    symbols = [f"GQB{i:02d}" for i in range(BUCKET)]  # asked nowhere else
    # 12 charts and 12 indicators, and one quote batch: 25 tokens.
    dashboard = post(tickers(symbols[:12], "quote { symbol } chart { symbol } "
                             "indicators { rsi14 }"))
    assert dashboard.status_code == 200, dashboard.text
    assert "errors" not in dashboard.json()
    assert _remaining(dashboard) == start - 25
    # Over what is left: 429 with Retry-After, nothing taken.
    over = post(tickers(symbols[:start - 25 + 1], "chart { symbol }"))
    assert over.status_code == 429, over.text
    assert int(over.headers["Retry-After"]) > 0
    error = _error(over)
    assert error["extensions"]["code"] == "RATE_LIMITED"
    assert error["extensions"]["cost"] == start - 25 + 1
    assert error["extensions"]["retryAfter"] == int(over.headers["Retry-After"])
    # gql sees the 429's errors (its transport keeps the headers).
    transport = RequestsHTTPTransport(url=url)
    with Client(transport=transport) as session, \
            pytest.raises(TransportQueryError) as raised:
        session.execute(gql(tickers(symbols, "chart { symbol }")))
    assert raised.value.errors[0]["extensions"]["code"] == "RATE_LIMITED"
    assert raised.value.errors[0]["extensions"]["status"] == 429
    assert int(transport.response_headers["Retry-After"]) > 0
    last = post("{ health { status } }")
    assert last.status_code == 200 and _remaining(last) == start - 25 - 1
