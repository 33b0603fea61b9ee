"""OpenAPI pieces shared by every endpoint: the spec's error bodies as named schemas."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Any

from drf_spectacular.openapi import AutoSchema
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse
from rest_framework import serializers

from apps.core.cursors import encode_cursor
from apps.core.errors import DETAIL_ERRORS, DETAIL_LIST, ERRORS


class ErrorDetail(serializers.Serializer):
    detail = serializers.CharField()



class ValidationErrorDetail(serializers.Serializer):
    detail = serializers.CharField(default="Invalid request")
    # A declared field, not Serializer.errors: the metaclass moves it out of the class.
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Parameter name -> messages")


class ValidationErrorItem(serializers.Serializer):
    type = serializers.CharField()
    loc = serializers.ListField(child=serializers.CharField())
    msg = serializers.CharField()
    input = serializers.JSONField(allow_null=True)


class ValidationErrorList(serializers.Serializer):
    detail = ValidationErrorItem(many=True)


class ValidationErrors(serializers.Serializer):
    # A declared field, not Serializer.errors: the metaclass moves it out of the class.
    errors = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Parameter name -> messages")


class UpstreamErrorBody(serializers.Serializer):
    detail = serializers.CharField()
    provider = serializers.CharField(help_text="Which upstream provider failed, e.g. yahoo")
    code = serializers.CharField(help_text="upstream_bad_response | upstream_unavailable | "
                                 "upstream_timeout | upstream_rate_limited")


UPSTREAM_503 = ("Upstream unreachable, its endpoint's circuit open after repeated failures, "
                "or too many calls to it in flight from this server (Retry-After)")
UPSTREAM_504 = ("Upstream timed out, or the request deadline (REQUEST_DEADLINE_SECONDS from "
                "arrival) passed before it answered")
_VALIDATION = {DETAIL_ERRORS: ValidationErrorDetail, DETAIL_LIST: ValidationErrorList,
               ERRORS: ValidationErrors}
# What each status means on every v1 endpoint that lists it; ``notes`` adds what is
# particular to one endpoint.
_DESCRIPTIONS = {
    400: "Incompatible interval and range (the compatibility table is in the operation's "
         "description). Every parameter is valid on its own, so the parameter schemas cannot "
         "express this",
    404: "Unknown symbol or no data. A malformed symbol (not ASCII letters, digits and "
         "`. - = &` after an optional leading `^`; more than 24 characters; `..`; control "
         "characters) is an unknown symbol: never sent upstream, always 404. A path value "
         "with `/` (`%2F`) matches no route: 404",
    422: "Missing or invalid parameter. An empty value (`count=`) is an invalid value, not an "
         "absent parameter (the default applies only when the parameter is left out)",
}


# Any endpoint, whatever it lists: Django refuses a query of too many parameters
# (apps.core.exceptions), and an unexpected error is a 500; both ``{detail}``.
TOO_MANY_PARAMETERS = ("More than DATA_UPLOAD_MAX_NUMBER_FIELDS (1,000) query parameters "
                       "(`Too many query parameters`)")
SERVER_ERROR = ("Unexpected error (`Internal server error`; the response's X-Correlation-ID "
                "finds it in the logs)")


def error_responses(*statuses: int, upstream: bool = False, style: str = DETAIL_ERRORS,
                    notes: dict[int, str] | None = None) -> dict[int, OpenApiResponse]:
    """Responses for the listed statuses, plus 429/502/503/504 when the endpoint calls an
    upstream provider, plus the 400 of too many query parameters and the 500 every endpoint
    can answer. ``notes`` appends endpoint-specific text to a status's description (e.g.
    the indicator's 400 for too little history)."""
    out: dict[int, OpenApiResponse] = {}
    for status in (*statuses, *(s for s in (400, 500) if s not in statuses)):
        schema = _VALIDATION[style] if status == 422 else ErrorDetail
        text = _DESCRIPTIONS.get(status, "") if status in statuses else ""
        if notes and status in notes:
            text = f"{text}. {notes[status]}" if text else notes[status]
        if status == 400:
            text = f"{text}; or: {TOO_MANY_PARAMETERS}" if text else TOO_MANY_PARAMETERS
        elif status == 500:
            text = text or SERVER_ERROR
        out[status] = OpenApiResponse(schema, description=text)
    if upstream:
        out[429] = OpenApiResponse(UpstreamErrorBody, description="Upstream rate limited us")
        out[502] = OpenApiResponse(UpstreamErrorBody, description="Bad upstream answer")
        out[503] = OpenApiResponse(UpstreamErrorBody, description=UPSTREAM_503)
        out[504] = OpenApiResponse(UpstreamErrorBody, description=UPSTREAM_504)
    return out


class ApiError(serializers.Serializer):
    error = serializers.CharField()
    status = serializers.IntegerField()
    provider = serializers.CharField(required=False,
                                     help_text="Upstream failures: which provider failed")


_V2_DESCRIPTIONS = {
    400: "Missing or invalid parameter (unknown enum value, bad path segment, non-integer or "
         "out-of-range `limit`, garbled `cursor`, malformed JSON body), or incompatible "
         "interval and range",
    404: "Unknown symbol, no data, or no such route",
    429: "Rate limited: by this service's token bucket (RateLimitError with "
         "`retryAfterSeconds` and `Retry-After`), or by the upstream (ApiError with "
         "`provider` and `Retry-After`)",
    500: "Internal server error",
    502: "Bad upstream answer", 503: UPSTREAM_503, 504: UPSTREAM_504,
}


BODY_TOO_LARGE = "Request body over REQUEST_BODY_MAX_BYTES (default 1 MiB)"


def v2_error_responses() -> dict[int, OpenApiResponse]:
    """The four statuses every v2 endpoint lists, plus the upstream failures."""
    return {status: OpenApiResponse(ApiError, description=text)
            for status, text in _V2_DESCRIPTIONS.items()}


_PATH_DESCRIPTIONS = {
    "symbol": "Ticker symbol, e.g. AAPL, BRK-B, ^GSPC, EURUSD=X; a malformed one is an "
              "unknown symbol (404, never sent upstream)",
}


class V2AutoSchema(AutoSchema):
    """The OpenAPI operation of a :class:`apps.core.v2.V2ApiView`, derived from what the view
    declares: its query serializer and path enums (parameters), body serializer (request
    body), ``response_schema`` (200) and the v2 error statuses. No per-view ``extend_schema``
    block is needed; a view that still has one overrides these."""

    def _v2(self, name: str) -> Any:
        return getattr(self.view, name, None)

    def get_override_parameters(self) -> list[Any]:
        params = list(super().get_override_parameters())
        query = self._v2("query_serializer")
        if query is not None and query not in params:
            params.append(query)
        path_choices = self._v2("path_choices") or {}
        for name, choices in path_choices.items():
            params.append(OpenApiParameter(name, OpenApiTypes.STR, OpenApiParameter.PATH,
                                           enum=list(choices)))
        path = self.path or ""
        # A view may describe its own path values (a COT symbol is a contract code or a
        # futures root, a macro series an id); the shared words cover the rest. A described
        # path enum keeps its values (the description's parameter replaces the one above).
        described = {**_PATH_DESCRIPTIONS, **(self._v2("path_descriptions") or {})}
        for name, text in described.items():
            if "{" + name + "}" in path:
                # A description, or a schema with one ({"description", "pattern", ...}).
                schema = {"type": "string", **text} if isinstance(text, dict) else None
                if name in path_choices:
                    schema = {"type": "string", "enum": list(path_choices[name]),
                              **(schema or {})}
                params.append(OpenApiParameter(
                    name, OpenApiTypes.STR if schema is None else
                    {k: v for k, v in schema.items() if k != "description"},
                    OpenApiParameter.PATH,
                    # No description ("" or None) leaves the parameter undescribed.
                    description=text if isinstance(text, str) else text.get("description", "")))
        return params

    def get_request_serializer(self) -> Any:
        body = self._v2("body_serializer")
        return body if body is not None else super().get_request_serializer()

    def get_response_serializers(self) -> Any:
        schema = self._v2("response_schema")
        if schema is None:
            return super().get_response_serializers()
        extra = {status: OpenApiResponse(ApiError, description=text)
                 for status, text in (self._v2("extra_responses") or {}).items()}
        if self._v2("body_serializer") is not None:  # a JSON body: the parser's limit
            extra.setdefault(413, OpenApiResponse(ApiError, description=BODY_TOO_LARGE))
        return {200: OpenApiResponse(schema, description="OK"), **v2_error_responses(),
                **extra}

    def get_operation_id(self) -> str:
        return self._v2("operation_id") or super().get_operation_id()

    def get_tags(self) -> list[str]:
        tag = self._v2("tag")
        return [tag] if tag else super().get_tags()

    def get_summary(self) -> str | None:
        return self._v2("summary") or super().get_summary()

    # drf-spectacular's own get_description() drops ViewInspector's (path, method) arguments
    # with the same ignore; this override matches drf-spectacular's signature.
    def get_description(self) -> str:  # type: ignore[override]
        text = self._v2("description")
        return text if text else super().get_description()


def postprocess_nullable(result: dict[str, Any], generator: Any, request: Any, public: bool,
                         **kwargs: Any) -> dict[str, Any]:
    """OpenAPI 3.1 has no ``nullable``: hand-written schemas that still say
    ``nullable: true`` get ``null`` added to their type (or a null alternative), so a client
    generated from the document accepts the nulls the service sends."""

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
            return
        if not isinstance(node, dict):
            return
        for value in node.values():
            walk(value)
        alternatives = node.get("oneOf")
        if isinstance(alternatives, list) and {} in alternatives:
            # drf-spectacular writes a nullable JSONField as oneOf [{}, null]: null then
            # matches both, which oneOf forbids. {} alone already admits any value.
            node.pop("oneOf")
        if node.pop("nullable", False) is True:
            kind = node.get("type")
            if isinstance(kind, str):
                node["type"] = [kind, "null"]
            elif isinstance(kind, list):
                if "null" not in kind:
                    kind.append("null")
            elif "oneOf" in node:
                # anyOf, not another oneOf member: an alternative that already admits null
                # would make null match twice, which oneOf forbids.
                node["anyOf"] = [{"oneOf": node.pop("oneOf")}, {"type": "null"}]
            else:
                alternatives = {k: node.pop(k) for k in list(node) if k not in (
                    "description", "title", "default", "example", "examples")}
                if alternatives:  # an empty schema is any value, null included
                    node["anyOf"] = [alternatives, {"type": "null"}]

    walk(result)
    return result


# -- enum values as code generators name them ----------------------------------------------
_NAME_DELIMITERS = ". _-"


def generated_constant(value: str, position: int) -> str:
    """The constant a code generator names an enum value by (openapi-python-client 0.29:
    the value upper-cased, split at ``. _-`` and joined with ``_``; ``VALUE_<position>`` when
    it does not start with a letter). Two values with the same constant make the generator
    fail ("Duplicate key ... in enum") or silently keep one."""
    if not value[:1].isalpha():
        return f"VALUE_{position}"
    kept = "".join(c for c in value.upper()
                   if c.isidentifier() or c.isdecimal() or c in _NAME_DELIMITERS)
    return "_".join(re.findall(f"[^{re.escape(_NAME_DELIMITERS)}]+", kept))


def _drop_spellings(schema: dict[str, Any]) -> list[str]:
    """Remove from ``schema``'s enum every value whose generated constant an earlier value
    already has (the first spelling listed is the canonical one); the removed values."""
    enum = schema.get("enum")
    if not isinstance(enum, list):
        return []
    seen: set[str] = set()
    kept: list[Any] = []
    dropped: list[str] = []
    for position, value in enumerate(enum):
        if isinstance(value, str):
            name = generated_constant(value, position)
            if name in seen:
                dropped.append(value)
                continue
            seen.add(name)
        kept.append(value)
    if dropped:
        schema["enum"] = kept
    return dropped


def _accepted_note(description: str | None, dropped: list[str]) -> str:
    note = "Also accepted: " + ", ".join(f"`{value}`" for value in dropped)
    return f"{description}\n\n{note}" if description else note


# Member names a generated model's ``from_dict`` also uses for its own variables
# (openapi-python-client 0.29 reads the members out of ``d``; a member ``d`` replaces that
# dict with its value and the next read fails).
GENERATOR_LOCALS = ("d", "cls")


def unnameable_member(name: str) -> bool:
    """Whether a code generator fails on a member of this name: one of
    :data:`GENERATOR_LOCALS`, or one with ``%`` (openapi-typescript 7 builds a JSON pointer
    from each member name and URI-decodes it: ``STOCH %K(14,3,3)`` throws)."""
    return name in GENERATOR_LOCALS or "%" in name


def exact_pattern(name: str) -> str:
    """A regular expression matching ``name`` only, escaping just the syntax characters
    (an escaped space or ``%`` is an error in a Unicode-mode ECMAScript pattern)."""
    return "^" + re.sub(r"([\\^$.|?*+()\[\]{}/])", r"\\\1", name) + "$"


def _move_unnameable_members(schema: dict[str, Any]) -> None:
    """Declare the members :func:`unnameable_member` names by an exact ``patternProperties``
    instead of ``properties``: the same constraint to a validator, and a generated client
    keeps them among an object's additional properties (``model["d"]``)."""
    members = schema.get("properties")
    if not isinstance(members, dict):
        return
    for name in [name for name in members if unnameable_member(name)]:
        schema.setdefault("patternProperties", {})[exact_pattern(name)] = members.pop(name)


def postprocess_code_generators(result: dict[str, Any], generator: Any, request: Any,
                                public: bool, **kwargs: Any) -> dict[str, Any]:
    """The document as code generators can use it, its meaning unchanged:

    - an enum lists each value once as a generator names it: where the service accepts
      several spellings of one value (``earnings-estimate`` and ``earnings_estimate``,
      ``ASC`` and ``asc``), the later ones leave the enum and are named in the description
      instead (the views still accept them);
    - a member a generator cannot name (``d``, ``STOCH %K(14,3,3)``) is declared by
      ``patternProperties`` (:func:`_move_unnameable_members`).
    """

    def walk(node: Any, describe: dict[str, Any] | None = None, names: bool = False) -> None:
        if isinstance(node, list):
            for item in node:
                walk(item)
            return
        if not isinstance(node, dict):
            return
        if names:  # a map of member names to their schemas
            for value in node.values():
                walk(value)
            return
        dropped = _drop_spellings(node)
        if dropped:
            target = describe if describe is not None else node
            target["description"] = _accepted_note(target.get("description"), dropped)
        _move_unnameable_members(node)
        for key, value in node.items():
            if key in ("example", "examples", "default"):
                continue  # values, not schemas
            # A parameter's own description is the one documentation tools show.
            is_parameter = key == "schema" and "in" in node and "name" in node
            walk(value, node if is_parameter else None,
                 names=key in ("properties", "patternProperties"))

    walk(result)
    return result


# Example values of parameters by name, and by (path prefix, name) where one name means
# different things: what Swagger's "Try it out" starts from, and what a generated client's
# test calls each operation with. Every parameter gets one (from here, else ``fields``'s
# from the view's declared members, else its default, else its first allowed value, else one
# from its type), and all of an operation's examples together must answer a success:
# tests/apps/test_schema_examples.py calls every GET with them.
def _last_year() -> int:
    """A year with every quarter's reports out (transcripts, Treasury yields)."""
    return datetime.now(UTC).year - 1


def _monthly_expiry() -> int:
    """Next month's standard option expiration (its third Friday, 00:00 UTC, as Yahoo
    lists expirations), in Unix seconds: always a listed date for an optionable symbol."""
    today = datetime.now(UTC).date()
    first = (today.replace(day=1) + timedelta(days=32)).replace(day=1)
    friday = first + timedelta(days=(4 - first.weekday()) % 7 + 14)
    return int(datetime(friday.year, friday.month, friday.day, tzinfo=UTC).timestamp())


# A callable is called when the document is built (a date relative to today).
PARAMETER_EXAMPLES: dict[str, Any] = {
    "symbol": "AAPL", "symbols": "AAPL,MSFT", "q": "apple", "query": "apple",
    "interval": "1d", "range": "1mo", "from": "EUR", "to": "USD",
    "limit": 10, "pageLimit": 10, "lang": "en-US", "benchmark": "SPY",
    "year": _last_year, "quarter": "Q4", "x-api-key": "my-api-key",
}
PATH_PARAMETER_EXAMPLES: dict[tuple[str, str], Any] = {
    ("/v2/crypto/", "id"): "bitcoin",
    ("/v2/crypto/", "query"): "bitcoin",
    ("/v2/macro/series/", "id"): "GDP",
    ("/v2/futures/", "symbol"): "GC=F",
    ("/v2/index-constituents/", "symbol"): "^GSPC",
    ("/v2/positioning/", "symbol"): "GC=F",
    ("/v2/etf/", "symbol"): "SPY",
    ("/v2/filings/search", "q"): "climate risk",
    ("/v2/filings/search", "forms"): "10-K",
    ("/v2/filings/search", "startDate"): "2024-01-01",
    ("/v2/filings/search", "endDate"): "2024-12-31",
    ("/v2/filings/{cik}/13f", "cik"): "1067983",
    ("/v2/filings/{cik}/13f", "period"): "2024-06-30",
    ("/v2/filings/13f/search", "name"): "berkshire",
    ("/v2/filings/", "concepts"): "Revenues,NetIncomeLoss",
    ("/v2/filings/", "form"): "10-K",
    # insider transactions: the default window (the last 365 days), written out
    ("/v2/filings/", "start"): lambda: (datetime.now(UTC).date()
                                        - timedelta(days=365)).isoformat(),
    ("/v2/filings/", "end"): lambda: datetime.now(UTC).date().isoformat(),
    ("/v2/filings/", "codes"): "P,S",
    ("/v2/filings/", "insider"): "smith",
    ("/v2/financials", "metrics"): "TotalRevenue,NetIncome",
    ("/v2/feeds", "sources"): "sec,cnbc",
    ("/v2/feeds", "formType"): "8-K",
    ("/v1/indicators", "functions"): "RSI,MACD",
    ("/v2/filings/search", "from"): 0,
    ("/v2/chart/", "start"): 1735689600,  # 2025-01-01
    ("/v2/chart/", "end"): 1738368000,  # 2025-02-01
    ("/v2/options", "date"): _monthly_expiry,
    ("/v2/options", "expiration"): _monthly_expiry,
    ("/v2/options", "moneyness"): "0.9,1.1",
    ("/v2/options", "strikes"): "200,250",
    # the calendars by date: the default window, written out
    ("/v2/calendars/", "start"): lambda: datetime.now(UTC).date().isoformat(),
    ("/v2/calendars/", "end"): lambda: (datetime.now(UTC).date()
                                        + timedelta(days=7)).isoformat(),
    ("/v2/calendars/", "country"): "US",
    # short volume and interest: the last 60 days (within either window's cap)
    ("/v2/short/", "start"): lambda: (datetime.now(UTC).date()
                                      - timedelta(days=60)).isoformat(),
    ("/v2/short/", "end"): lambda: datetime.now(UTC).date().isoformat(),
    # /v1/indicator's period parameters, each its usual default; each is taken by some
    # functions only (its description lists them), so a call sends those of its function.
    **{("/v1/indicator", name): value for name, value in {
        "lookBackPeriod": 14, "fastPeriod": 12, "slowPeriod": 26, "signalPeriod": 9,
        "stdDev": 2, "smooth": 3, "stochPeriod": 14, "multiplier": 3, "tenkanPeriod": 9,
        "kijunPeriod": 26, "senkouPeriod": 52, "smaPeriods": 20}.items()},
}
# ``fields`` where the view's first declared members would not show what the answer is for.
FIELDS_EXAMPLES: dict[str, str] = {
    "/v2/quote/{symbol}": "symbol,regularMarketPrice,marketCap",
    "/v2/quotes": "symbol,regularMarketPrice,marketCap",
    "/v2/indices": "symbol,shortName,regularMarketPrice",
    "/v2/chart/{symbol}": "symbol,meta,candles",
    "/v2/charts": "symbol,meta,candles",
}
_FIELDS_COUNT = 3  # members in a derived ``fields`` example


def _resolve(node: Any, components: dict[str, Any]) -> Any:
    while isinstance(node, dict) and "$ref" in node:
        node = components.get(node["$ref"].rsplit("/", 1)[-1], {})
    return node


def _member_names(schema: Any, components: dict[str, Any]) -> list[str]:
    """The members of the objects an answer is made of: its own, or its items' (a list, or
    the first alternative that is one)."""
    schema = _resolve(schema, components)
    if not isinstance(schema, dict):
        return []
    if isinstance(schema.get("properties"), dict):
        return list(schema["properties"])
    if "items" in schema:
        return _member_names(schema["items"], components)
    for key in ("oneOf", "anyOf"):
        for alternative in schema.get(key) or []:
            names = _member_names(alternative, components)
            if names:
                return names
    return []


def fields_example(path: str, members: tuple[str, ...], operation: dict[str, Any],
                   components: dict[str, Any]) -> str | None:
    """``fields``: the first members the view declares it selects among (declaration order
    puts the identifying ones first), else the first members of the 200's objects."""
    if path in FIELDS_EXAMPLES:
        return FIELDS_EXAMPLES[path]
    if not members:
        content = ((operation.get("responses") or {}).get("200") or {}).get("content") or {}
        schema = (content.get("application/json") or {}).get("schema")
        members = tuple(_member_names(schema, components))
    return ",".join(members[:_FIELDS_COUNT]) or None


def _typed_example(name: str, schema: dict[str, Any]) -> Any:
    """An example from the parameter's type alone: the first page's cursor, the smallest
    allowed number, ``false``."""
    if name in ("cursor", "pageCursor"):
        return encode_cursor(0)
    kind = schema.get("type")
    if kind == "boolean":
        return False
    if kind == "integer":
        return max(int(schema.get("minimum", 1)), 1)
    if kind == "array":
        item = _typed_example(name, schema.get("items") or {})
        return None if item is None else [item]
    return None


def parameter_example(path: str, parameter: dict[str, Any]) -> Any:
    """The example of one parameter of ``path`` (None when it has none)."""
    name = parameter.get("name", "")
    for (prefix, known), value in PATH_PARAMETER_EXAMPLES.items():
        if known == name and path.startswith(prefix):
            return value() if callable(value) else value
    if name in PARAMETER_EXAMPLES:
        value = PARAMETER_EXAMPLES[name]
        return value() if callable(value) else value
    schema = parameter.get("schema") or {}
    if "default" in schema:
        return schema["default"]
    enum = [v for v in schema.get("enum") or (schema.get("items") or {}).get("enum") or []
            if v is not None]
    if enum:
        return [enum[0]] if schema.get("type") == "array" else enum[0]
    return _typed_example(name, schema)


def _declared_members(generator: Any) -> dict[tuple[str, str], tuple[str, ...]]:
    """(path, method) -> the members the view's ``fields`` selects among (its ``output``)."""
    out: dict[tuple[str, str], tuple[str, ...]] = {}
    for path, _regex, method, callback in getattr(generator, "endpoints", None) or ():
        output = getattr(getattr(callback, "cls", None), "output", None)
        members = tuple(getattr(output, "members", ()) or ())
        out[(path, method.lower())] = members
    return out


def postprocess_examples(result: dict[str, Any], generator: Any, request: Any, public: bool,
                         **kwargs: Any) -> dict[str, Any]:
    """An ``example`` on every parameter that has none (optional ones too: "Try it out"
    sends them all, and a generated client's users copy them), each a value that keeps the
    call working with the others."""
    components = (result.get("components") or {}).get("schemas") or {}
    declared = _declared_members(generator)
    for path, operations in result.get("paths", {}).items():
        for method, operation in operations.items():
            if not isinstance(operation, dict):
                continue
            parameters = operation.get("parameters", [])
            for position, parameter in enumerate(parameters):
                if "example" in parameter or "examples" in parameter:
                    continue
                if parameter.get("name") == "fields" and parameter.get("in") == "query":
                    example = fields_example(path, declared.get((path, method), ()),
                                             operation, components)
                else:
                    example = parameter_example(path, parameter)
                if example is not None:
                    # A copy: hooks may share one parameter object between operations.
                    parameters[position] = {**parameter, "example": example}
    return result
