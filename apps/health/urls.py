from django.urls import path

from apps.health.views import HealthView, PingView

urlpatterns = [
    path("ping", PingView.as_view(), name="ping"),
    path("health", HealthView.as_view(), name="health"),
]
