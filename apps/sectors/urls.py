from django.urls import path

from apps.sectors.views import SectorDetailsView, SectorForSymbolView, SectorsView

# `path` converters: a value with a '/' still reaches the view and gets the endpoint's own
# 404/422 body instead of the router's generic one.
urlpatterns = [
    path("sectors", SectorsView.as_view(), name="sectors"),
    path("sectors/symbol/<path:symbol>", SectorForSymbolView.as_view(), name="sector-symbol"),
    path("sectors/details/<path:sector>", SectorDetailsView.as_view(), name="sector-details"),
]
