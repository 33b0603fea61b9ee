from apps.core.routing import routes_of
from apps.graphql import views

urlpatterns = routes_of(views)
