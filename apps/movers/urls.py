from django.urls import path

from apps.movers.views import ActivesView, GainersView, LosersView

urlpatterns = [
    path("actives", ActivesView.as_view(), name="actives"),
    path("gainers", GainersView.as_view(), name="gainers"),
    path("losers", LosersView.as_view(), name="losers"),
]
