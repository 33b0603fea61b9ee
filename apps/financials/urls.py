from django.urls import path

from apps.financials.views import FinancialsView, V2FinancialsBatchView, V2FinancialsView

urlpatterns = [
    path("financials/<str:symbol>", FinancialsView.as_view(), name="financials"),
]

# Mounted at the root (config/urls.py): the v2 routes.
v2_urlpatterns = [
    path("v2/financials", V2FinancialsBatchView.as_view(), name="v2-financials-batch"),
    path("v2/financials/<str:symbol>/<str:statement>", V2FinancialsView.as_view(),
         name="v2-financials"),
]
