"""GraphQL at ``/graphql``: queries over HTTP, subscriptions over WebSocket, GraphiQL for
browsers; every field a REST operation of ``/openapi.json`` run in process."""
