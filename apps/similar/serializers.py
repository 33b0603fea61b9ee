from apps.core.params import IntegerParam, QuerySerializer, SymbolParam


class SimilarQuery(QuerySerializer):
    symbol = SymbolParam(help_text="Ticker symbol, e.g. AAPL; a malformed one is an unknown "
                                   "symbol (404)")
    limit = IntegerParam(required=False, default=10, min_value=1, max_value=20,
                         help_text="How many similar symbols, 1 to 20")
