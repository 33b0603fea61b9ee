from apps.core.routing import routes_of
from apps.pressreleases import views

urlpatterns = routes_of(views)
