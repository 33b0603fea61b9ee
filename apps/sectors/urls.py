from django.urls import register_converter
from django.urls.converters import PathConverter

from apps.core.routing import routes_of
from apps.sectors import views


class AnyTextConverter(PathConverter):
    """Django's ``path`` converter (``.+``) without its one gap: ``.`` does not match a line
    feed, so ``/v1/sectors/details/%0A`` matched no route (404, which the endpoint does not
    list). This one matches any non-empty text: any path value, even one with a '/' or a
    control character, reaches the view and gets the endpoint's own 404/422 body instead of
    the router's generic 404."""

    regex = r"[\s\S]+"


register_converter(AnyTextConverter, "anytext")

urlpatterns = routes_of(views)
