from django.urls import path, register_converter
from django.urls.converters import PathConverter

from apps.sectors.views import (
    SectorDetailsView,
    SectorForSymbolView,
    SectorsView,
    V2IndustryView,
    V2SectorView,
)


class AnyTextConverter(PathConverter):
    """Django's ``path`` converter (``.+``) without its one gap: ``.`` does not match a line
    feed, so ``/v1/sectors/details/%0A`` matched no route (404, which the endpoint does not
    list). This one matches any non-empty text."""

    regex = r"[\s\S]+"


register_converter(AnyTextConverter, "anytext")

# Any path value, even one with a '/' or a control character, reaches the view and gets
# the endpoint's own 404/422 body instead of the router's generic 404.
urlpatterns = [
    path("sectors", SectorsView.as_view(), name="sectors"),
    path("sectors/symbol/<anytext:symbol>", SectorForSymbolView.as_view(),
         name="sector-symbol"),
    path("sectors/details/<anytext:sector>", SectorDetailsView.as_view(),
         name="sector-details"),
]

v2_urlpatterns = [
    path("v2/sectors/<str:sector>", V2SectorView.as_view(), name="v2-sector"),
    path("v2/industries/<str:industry>", V2IndustryView.as_view(), name="v2-industry"),
]
