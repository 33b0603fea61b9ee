from apps.core.routing import routes_of
from apps.futures import views

urlpatterns = routes_of(views)
