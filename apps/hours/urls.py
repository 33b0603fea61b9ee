from django.urls import path

from apps.hours.views import V2HoursView

urlpatterns = [
    path("v2/hours", V2HoursView.as_view(), name="v2-hours"),
]
