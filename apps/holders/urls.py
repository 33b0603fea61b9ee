from apps.core.routing import routes_of
from apps.holders import views

urlpatterns = routes_of(views)
