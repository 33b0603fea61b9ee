from django.urls import path

from apps.transcripts.views import (
    EarningsTranscriptView,
    V2EarningsTranscriptView,
    V2TranscriptsAllView,
    V2TranscriptView,
)

urlpatterns = [
    path("earnings-transcript/<str:symbol>", EarningsTranscriptView.as_view(),
         name="earnings-transcript"),
]
# The v2 routes, mounted at the root (config.urls mounts this module under v1/).
v2_urlpatterns = [
    path("v2/earnings-transcript/<str:symbol>", V2EarningsTranscriptView.as_view(),
         name="v2-earnings-transcript"),
    path("v2/transcripts/<str:symbol>", V2TranscriptView.as_view(), name="v2-transcript"),
    path("v2/transcripts/<str:symbol>/all", V2TranscriptsAllView.as_view(),
         name="v2-transcripts-all"),
]
