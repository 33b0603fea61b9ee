from django.urls import path

from apps.financials.views import FinancialsView

urlpatterns = [
    path("financials/<str:symbol>", FinancialsView.as_view(), name="financials"),
]
