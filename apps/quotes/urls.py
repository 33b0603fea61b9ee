from django.urls import path

from apps.quotes.views import (
    QuotesView,
    SimpleQuotesView,
    V2QuotesView,
    V2QuoteTypeView,
    V2QuoteView,
)

urlpatterns = [
    path("v1/quotes", QuotesView.as_view(), name="quotes"),
    path("v1/simple-quotes", SimpleQuotesView.as_view(), name="simple-quotes"),
    path("v2/quote/<str:symbol>", V2QuoteView.as_view(), name="v2-quote"),
    path("v2/quotes", V2QuotesView.as_view(), name="v2-quotes"),
    path("v2/quote-type/<str:symbol>", V2QuoteTypeView.as_view(), name="v2-quote-type"),
]
