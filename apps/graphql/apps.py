from django.apps import AppConfig


class GraphqlConfig(AppConfig):
    name = "apps.graphql"
    label = "graphql_api"
    verbose_name = "GraphQL endpoint (queries and subscriptions over the HTTP API)"

    def prepare(self) -> None:
        """``manage.py prepare``: GraphiQL's assets loaded and compressed once per host,
        before the server starts, not by each worker."""
        from apps.graphql import graphiql

        graphiql.ASSETS.warm()
