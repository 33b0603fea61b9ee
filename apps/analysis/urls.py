from django.urls import path

from apps.analysis.views import AnalysisAliasView, AnalysisView, V2AnalysisView

urlpatterns = [
    path("v1/analysis/<str:symbol>", AnalysisView.as_view(), name="analysis"),
    # The reference implementation's sub-routes (documented aliases).
    path("v1/analysis/<str:symbol>/<str:analysis_type>", AnalysisAliasView.as_view(),
         name="analysis-by-path"),
    path("v2/analysis/<str:symbol>/<str:type>", V2AnalysisView.as_view(),
         name="analysis-v2"),
]
