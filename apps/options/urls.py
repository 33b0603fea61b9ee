from django.urls import path

from apps.options.views import V2OptionsBatchView, V2OptionsView

urlpatterns = [
    path("v2/options", V2OptionsBatchView.as_view(), name="v2-options-batch"),
    path("v2/options/<str:symbol>", V2OptionsView.as_view(), name="v2-options"),
]
