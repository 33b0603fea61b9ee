from django.urls import path

from apps.health.metrics import metrics_view
from apps.health.views import (
    HealthView,
    IndexView,
    PingView,
    ReadyzView,
    V2HealthView,
    V2PingView,
)

urlpatterns = [
    path("", IndexView.as_view(), name="index"),
    path("readyz", ReadyzView.as_view(), name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    path("v1/ping", PingView.as_view(), name="ping"),
    path("v1/health", HealthView.as_view(), name="health"),
    path("v2/health", V2HealthView.as_view(), name="v2-health"),
    path("v2/ping", V2PingView.as_view(), name="v2-ping"),
]
