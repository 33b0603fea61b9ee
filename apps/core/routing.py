"""Routes declared on their views: ``@route("v2/hours", name="v2-hours")`` above a view
says where it answers, and an app's ``urls.py`` is ``urlpatterns = routes_of(views)`` (the
modules of its views), so a new endpoint is its view, in one file, and no list of routes is
edited beside it.

``routes_of`` gives the patterns of the views the modules define, ordered so that a literal
segment comes before a converter in the same place (``v2/filings/search`` before
``v2/filings/<str:symbol>``): the order never depends on where a class sits in its module.
The OpenAPI document sorts its paths itself (drf-spectacular's ``SORT_OPERATIONS``).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any, TypeVar, cast

from django.urls import URLPattern, path

ROUTES = "declared_routes"  # the attribute @route sets: ((pattern, name), ...)
V = TypeVar("V")


def route(pattern: str, *, name: str) -> Callable[[V], V]:
    """Class (or function) decorator: the view answers at ``pattern`` (Django's path syntax,
    no leading slash), named ``name`` (the access log's ``route``). Stacked, a view answers
    at each, in the order written."""
    def declared(view: V) -> V:
        own = vars(view).get(ROUTES, ()) if isinstance(view, type) else \
            getattr(view, ROUTES, ())
        setattr(view, ROUTES, ((pattern, name), *own))
        return view
    return declared


def _specificity(pattern: str) -> tuple[tuple[int, str], ...]:
    return tuple((1 if part.startswith("<") else 0, part) for part in pattern.split("/"))


def routes_of(*modules: ModuleType) -> list[URLPattern]:
    """The URL patterns of the views ``modules`` define with :func:`route`."""
    found: list[tuple[str, str, Any]] = []
    for module, value in ((m, v) for m in modules for v in vars(m).values()):
        if getattr(value, "__module__", None) != module.__name__:
            continue
        declared = vars(value).get(ROUTES, ()) if isinstance(value, type) else \
            getattr(value, ROUTES, ())
        for pattern, name in declared:
            # a class-based view, or a function view as it is
            view = cast(Any, value).as_view() if isinstance(value, type) else value
            found.append((pattern, name, view))
    found.sort(key=lambda item: _specificity(item[0]))
    return [path(pattern, view, name=name) for pattern, name, view in found]
