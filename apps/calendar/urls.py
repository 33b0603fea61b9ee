from django.urls import path

from apps.calendar.views import V2CalendarView

urlpatterns = [
    path("v2/calendar", V2CalendarView.as_view(), name="v2-calendar"),
]
