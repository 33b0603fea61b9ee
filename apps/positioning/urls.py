from apps.core.routing import routes_of
from apps.positioning import views

urlpatterns = routes_of(views)
