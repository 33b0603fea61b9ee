"""The schema's SDL as a file: what ``schema.graphql`` holds (``manage.py graphql_schema``)."""

from __future__ import annotations

import orjson


def openapi_document() -> dict:
    """``/openapi.json`` as this process serves it."""
    from django.test import Client

    response = Client().get("/openapi.json", HTTP_ACCEPT="application/json")
    if response.status_code != 200:
        raise RuntimeError(f"GET /openapi.json answered {response.status_code}")
    return orjson.loads(response.content)


def current_sdl() -> str:
    from apps.graphql.endpoint import build_with_subscriptions

    header = ('# The GraphQL schema of /graphql, generated from /openapi.json (the records\'\n'
              '# declarations) by `make graphql-schema`; CI checks it is current.\n\n')
    return header + build_with_subscriptions(openapi_document()).sdl + "\n"
