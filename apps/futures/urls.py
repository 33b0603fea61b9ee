from django.urls import path

from apps.futures.views import V2FuturesView

urlpatterns = [
    path("v2/futures/<str:symbol>", V2FuturesView.as_view(), name="v2-futures"),
]
