"""GraphiQL's files (``/graphql/assets/<digest>/<name>``): React, GraphiQL and the page's
own bootstrap, content-addressed and cached for a year (:mod:`apps.core.assets`). The page
itself is :func:`apps.graphql.graphiql.page`, sent by the endpoint at ``/graphql``."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from apps.core.routing import route
from apps.graphql.graphiql import ASSETS


@route("graphql/assets/<str:digest>/<str:name>", name="graphql-asset")
def asset(request: HttpRequest, digest: str, name: str) -> HttpResponse:
    """``GET /graphql/assets/<digest>/<name>``: one of GraphiQL's files."""
    return ASSETS.response(request, digest, name)
