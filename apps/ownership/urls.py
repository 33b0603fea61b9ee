from apps.core.routing import routes_of
from apps.ownership import views

urlpatterns = routes_of(views)
