from apps.core.routing import routes_of
from apps.options import views

urlpatterns = routes_of(views)
