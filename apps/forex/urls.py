from apps.core.routing import routes_of
from apps.forex import views

urlpatterns = routes_of(views)
