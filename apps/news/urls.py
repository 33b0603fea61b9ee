from apps.core.routing import routes_of
from apps.news import views

urlpatterns = routes_of(views)
