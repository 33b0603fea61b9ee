from apps.core.routing import routes_of
from apps.search import views

urlpatterns = routes_of(views)
