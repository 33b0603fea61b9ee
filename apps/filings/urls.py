from django.urls import path

from apps.filings.views import (
    V2CompanyFactsView,
    V2FilerCikView,
    V2FilingSearchView,
    V2FilingsView,
)

# `search` first: it is not a symbol.
urlpatterns = [
    path("v2/filings/search", V2FilingSearchView.as_view(), name="v2-filings-search"),
    path("v2/filings/<str:symbol>", V2FilingsView.as_view(), name="v2-filings"),
    path("v2/filings/<str:symbol>/facts", V2CompanyFactsView.as_view(), name="v2-filings-facts"),
    path("v2/filings/<str:symbol>/cik", V2FilerCikView.as_view(), name="v2-filings-cik"),
]
