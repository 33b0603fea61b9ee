from django.urls import path

from apps.news.views import NewsView

urlpatterns = [
    path("news", NewsView.as_view(), name="news"),
]
