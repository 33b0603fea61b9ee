from django.urls import path

from apps.quotes.views import QuotesView, SimpleQuotesView

urlpatterns = [
    path("v1/quotes", QuotesView.as_view(), name="quotes"),
    path("v1/simple-quotes", SimpleQuotesView.as_view(), name="simple-quotes"),
]
