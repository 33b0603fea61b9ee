from apps.core.routing import routes_of
from apps.explorer import views

urlpatterns = routes_of(views)
