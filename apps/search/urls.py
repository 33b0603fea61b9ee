from django.urls import path

from apps.search.views import SearchView, V2LookupView, V2SearchView

urlpatterns = [
    path("search", SearchView.as_view(), name="search"),
]

# The v2 routes, mounted at the root (config.urls mounts this module under v1/).
v2_urlpatterns = [
    path("v2/search", V2SearchView.as_view(), name="v2-search"),
    path("v2/lookup", V2LookupView.as_view(), name="v2-lookup"),
]
