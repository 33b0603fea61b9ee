from apps.core.routing import routes_of
from apps.profiles import views

urlpatterns = routes_of(views)
