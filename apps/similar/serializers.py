from apps.core.params import IntegerParam, QuerySerializer, SymbolParam
from apps.core.v2 import (
    ERRORS_SCHEMA,
    BatchPageQuery,
    FieldsQuery,
    SymbolsParam,
    connection_schema,
    nullable,
    object_schema,
)


class SimilarQuery(QuerySerializer):
    symbol = SymbolParam(help_text="Ticker symbol, e.g. AAPL; a malformed one is an unknown "
                                   "symbol (404)")
    limit = IntegerParam(required=False, default=10, min_value=1, max_value=20,
                         help_text="How many similar symbols, 1 to 20")


# -- v2 -------------------------------------------------------------------------------------------
class V2RecommendationsQuery(FieldsQuery):
    limit = IntegerParam(required=False, default=5, min_value=1, max_value=50,
                         help_text="How many similar symbols, 1 to 50; default 5")


class V2RecommendationsBatchQuery(BatchPageQuery):
    symbols = SymbolsParam(help_text="Comma-separated symbols (at most 50); "
                                     "`pageCursor`/`pageLimit` page over them")
    limit = IntegerParam(required=False, default=10, min_value=1, max_value=50,
                         help_text="How many similar symbols per symbol, 1 to 50; default 10")


RECOMMENDATIONS_SCHEMA = object_schema({
    "symbol": {"type": "string"},
    "recommendations": {"type": "array", "description": "Yahoo's best match first",
                        "items": object_schema({"symbol": {"type": "string"},
                                                "score": nullable("number", description=(
                                                    "Yahoo's similarity score, higher is "
                                                    "closer"))},
                                               required=("symbol", "score"))},
    "providerId": {"type": "string", "description": "The source: `Yahoo`"},
}, "Symbols similar to `symbol` (\"people also watch\"); `fields` selects these members")
RECOMMENDATIONS_SCHEMA["example"] = {
    "symbol": "AAPL", "recommendations": [{"symbol": "AMZN", "score": 0.297723}],
    "providerId": "Yahoo"}
RECOMMENDATIONS_BATCH_SCHEMA = object_schema({
    "recommendations": connection_schema(RECOMMENDATIONS_SCHEMA, "one item per served "
                                                                 "symbol, request order"),
    "errors": ERRORS_SCHEMA,
}, required=("recommendations", "errors"))
