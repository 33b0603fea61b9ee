from django.urls import path

from apps.similar.views import SimilarView

urlpatterns = [path("similar", SimilarView.as_view(), name="similar")]
