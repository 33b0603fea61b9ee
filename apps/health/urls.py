from django.urls import path

from apps.health.views import HealthView, PingView, V2HealthView

urlpatterns = [
    path("v1/ping", PingView.as_view(), name="ping"),
    path("v1/health", HealthView.as_view(), name="health"),
    path("v2/health", V2HealthView.as_view(), name="v2-health"),
]
