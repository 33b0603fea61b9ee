from apps.core.routing import routes_of
from apps.filings import views

urlpatterns = routes_of(views)
