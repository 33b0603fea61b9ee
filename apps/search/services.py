"""Security search: the primary provider (Algolia), with Yahoo Finance as the automatic
fallback when the primary fails or the caller asks for the secondary provider (the
``security_search`` capability, :mod:`marketdata.capabilities.search`)."""

from __future__ import annotations

from marketdata.capabilities import capability, search
from marketdata.logs import get_logger

log = get_logger("apps.search")

SECONDARY = capability("security_search").sources[-1].name


def search_securities(query: str, hits: int, security_type: str | None = None,
                      use_primary: bool = True) -> tuple[list[dict[str, str]], str]:
    """(results, provider that answered). Never more than ``hits`` results; an empty list
    when nothing matches. When both providers fail, the secondary's error is raised."""
    if not use_primary:
        log.info("secondary search provider requested", provider=SECONDARY)
    matches = search.securities(query, hits, security_type, use_primary=use_primary)
    return ([{"name": s.name, "symbol": s.symbol, "exchange": s.exchange, "type": s.type}
             for s in matches.securities], matches.source)
