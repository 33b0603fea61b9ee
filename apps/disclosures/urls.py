from django.urls import path

from apps.disclosures.views import V2CongressionalTradesView, V2FailsToDeliverView

urlpatterns = [
    path("v2/filings/<str:symbol>/fails-to-deliver", V2FailsToDeliverView.as_view(),
         name="v2-fails-to-deliver"),
    path("v2/filings/<str:symbol>/congressional-trades", V2CongressionalTradesView.as_view(),
         name="v2-congressional-trades"),
]
