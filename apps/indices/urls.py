from django.urls import path

from apps.indices.views import IndicesView

urlpatterns = [
    path("indices", IndicesView.as_view(), name="indices"),
]
