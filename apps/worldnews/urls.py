from django.urls import path

from apps.worldnews.views import V2WorldNewsView

urlpatterns = [
    path("v2/worldnews/news/<str:symbol>", V2WorldNewsView.as_view(), name="v2-world-news"),
]
