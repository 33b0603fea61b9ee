"""Symbol checks at the HTTP edge: an invalid symbol is an unknown symbol (404)."""

from marketdata.errors import NotFound
from marketdata.symbols import display_symbol, normalize_symbol


def require_symbol(text: str) -> str:
    """The canonical symbol, or NotFound: a malformed symbol can never resolve upstream."""
    symbol = normalize_symbol(text)
    if symbol is None:
        raise NotFound(f"Symbol not found: '{display_symbol(text)}'")
    return symbol
