from apps.core.routing import routes_of
from apps.disclosures import views

urlpatterns = routes_of(views)
