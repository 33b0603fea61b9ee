from django.urls import path

from apps.holders.views import HoldersAliasView, HoldersView, V2HoldersView

urlpatterns = [
    path("v1/holders/<str:symbol>", HoldersView.as_view(), name="holders"),
    # The reference implementation's sub-routes and bodies (documented aliases).
    path("v1/holders/<str:symbol>/<str:holder_type>", HoldersAliasView.as_view(),
         name="holders-by-path"),
    path("v2/holders/<str:symbol>/<str:type>", V2HoldersView.as_view(),
         name="holders-v2"),
]
