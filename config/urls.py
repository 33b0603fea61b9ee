"""Root URLs: the v1 API, schema and docs (served offline), admin; JSON for unknown routes."""

from django.contrib import admin
from django.urls import include, path
from drf_spectacular.views import (
    SpectacularJSONAPIView,
    SpectacularRedocView,
    SpectacularSwaggerView,
)

urlpatterns = [
    path("v1/", include("apps.health.urls")),
    path("v1/", include("apps.historical.urls")),
    path("v1/", include("apps.quotes.urls")),
    path("openapi.json", SpectacularJSONAPIView.as_view(), name="schema"),
    path("docs", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("redoc", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
    path("admin/", admin.site.urls),
]

handler404 = "apps.core.views.not_found"
handler500 = "apps.core.views.server_error"
handler400 = "apps.core.views.bad_request"
handler403 = "apps.core.views.permission_denied"
