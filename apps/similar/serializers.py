from apps.core.params import IntegerParam, QuerySerializer, SymbolParam
from apps.core.v2 import BatchPageQuery, FieldsQuery, SymbolsParam


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
