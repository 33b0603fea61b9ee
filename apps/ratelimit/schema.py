"""OpenAPI: the rate limits are a property of every operation, so they are added in one
post-processing hook instead of on each view.

- every limited /v1 operation: the optional ``x-api-key`` header, the three X-RateLimit
  headers and the IETF ``RateLimit-Policy``/``RateLimit`` pair on its responses, and the
  quota's 429 body (``oneOf`` with the upstream's 429 where the endpoint already lists
  one); /v1/health gets its cooldown instead of the key;
- every /v2 operation: the IETF pair on its responses (the token bucket), the bucket's 429
  ``RateLimitError`` and ``Retry-After``.
"""

from __future__ import annotations

from typing import Any

_OPEN = {"/v1/ping"}
_HEALTH = "/v1/health"
_METHODS = ("get", "head", "post", "put", "patch", "delete")

_SCHEMAS = {
    "RateLimitInfo": {
        "type": "object",
        "properties": {name: {"type": "integer"} for name in
                       ("count", "remaining", "reset_in", "limit")},
        "required": ["count", "remaining", "reset_in", "limit"],
    },
    "RateLimitExceeded": {
        "type": "object",
        "properties": {"detail": {"type": "string", "example": "Rate limit exceeded"},
                       "rate_limit_info": {"$ref": "#/components/schemas/RateLimitInfo"}},
        "required": ["detail", "rate_limit_info"],
    },
    "RateLimitError": {
        "type": "object",
        "properties": {"error": {"type": "string", "example": "Rate limit exceeded"},
                       "message": {"type": "string"},
                       "retryAfterSeconds": {"type": "integer", "minimum": 1}},
        "required": ["error", "message", "retryAfterSeconds"],
    },
}
_HEADERS = {
    "X-RateLimit-Limit": "Requests allowed per day (for /v1/health: 1 per cooldown)",
    "X-RateLimit-Remaining": "Requests remaining in the current period",
    "X-RateLimit-Reset": "Seconds until the limit resets",
}
_RETRY_AFTER = {"Retry-After": "Seconds to wait before retrying"}
# draft-ietf-httpapi-ratelimit-headers: structured fields (strings), when limits are on.
_IETF = {
    "RateLimit-Policy": 'The policy (IETF draft): `"daily";q=<requests>;w=86400` (v1), '
                        '`"health";q=1;w=<cooldown>` (/v1/health), `"bucket";q=<capacity>;'
                        'w=<seconds to refill it>` (v2)',
    "RateLimit": 'What is left of it (IETF draft): `"<policy>";r=<remaining>;t=<seconds '
                 'until more is available>`',
}
_API_KEY = {
    "in": "header", "name": "x-api-key", "required": False, "schema": {"type": "string"},
    "description": "Optional. The admin key (ADMIN_API_KEY) bypasses the rate limits and "
                   "gets no rate-limit headers; any other key is an ordinary request.",
}


def _header_objects(headers: dict[str, str]) -> dict[str, Any]:
    return {name: {"$ref": f"#/components/headers/{name}"} for name in headers}


def _add_429(responses: dict[str, Any], schema: str, description: str,
             headers: dict[str, str]) -> None:
    ref = {"$ref": f"#/components/schemas/{schema}"}
    existing = responses.get("429")
    if existing is None:
        responses["429"] = {"description": description,
                            "content": {"application/json": {"schema": ref}},
                            "headers": _header_objects(headers)}
        return
    content = existing.setdefault("content", {}).setdefault("application/json", {})
    other = content.get("schema")
    content["schema"] = {"oneOf": [ref, other]} if other else ref
    existing["description"] = f"{description}; or: {existing.get('description', '')}"
    existing.setdefault("headers", {}).update(_header_objects(headers))


def postprocess_rate_limits(result: dict[str, Any], generator: Any, request: Any,
                            public: bool) -> dict[str, Any]:
    components = result.setdefault("components", {})
    components.setdefault("schemas", {}).update(_SCHEMAS)
    headers = components.setdefault("headers", {})
    headers.update({name: {"schema": {"type": "integer"}, "description": text}
                    for name, text in {**_HEADERS, **_RETRY_AFTER}.items()})
    headers.update({name: {"schema": {"type": "string"}, "description": text}
                    for name, text in _IETF.items()})
    for path, operations in result.get("paths", {}).items():
        for method in _METHODS:
            operation = operations.get(method)
            if operation is None:
                continue
            responses = operation.setdefault("responses", {})
            if path.startswith("/v1/") and path not in _OPEN:
                for status, response in responses.items():
                    if status not in ("429", "304"):
                        response.setdefault("headers", {}).update(
                            _header_objects({**_HEADERS, **_IETF}))
                if path == _HEALTH:
                    _add_429(responses, "RateLimitExceeded",
                             "Health check cooldown (one per 30 minutes per client) when "
                             "rate limiting is on", {**_HEADERS, **_IETF, **_RETRY_AFTER})
                else:
                    operation.setdefault("parameters", []).append(_API_KEY)
                    _add_429(responses, "RateLimitExceeded",
                             "Daily rate limit exceeded (when rate limiting is on)",
                             {**_HEADERS, **_IETF, **_RETRY_AFTER})
            elif path.startswith("/v2/"):
                for status, response in responses.items():
                    if status not in ("429", "304"):
                        response.setdefault("headers", {}).update(_header_objects(_IETF))
                _add_429(responses, "RateLimitError",
                         "Rate limited by the token bucket", {**_IETF, **_RETRY_AFTER})
    return result
