from django.urls import path

from apps.hours.exchanges import V2ExchangesView
from apps.hours.views import V2HoursView

urlpatterns = [
    path("v2/hours", V2HoursView.as_view(), name="v2-hours"),
    path("v2/exchanges", V2ExchangesView.as_view(), name="v2-exchanges"),
]
