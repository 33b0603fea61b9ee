from django.urls import path

from apps.transcripts.views import EarningsTranscriptView

urlpatterns = [
    path("earnings-transcript/<str:symbol>", EarningsTranscriptView.as_view(),
         name="earnings-transcript"),
]
