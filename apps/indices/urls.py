from apps.core.routing import routes_of
from apps.indices import views

urlpatterns = routes_of(views)
