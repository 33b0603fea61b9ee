from apps.core.routing import routes_of
from apps.worldnews import views

urlpatterns = routes_of(views)
