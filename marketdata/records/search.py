"""Security search: the securities whose name or symbol matches a query, and the kinds of
security ``/v1/search`` lists, whichever source answered."""

from __future__ import annotations

from dataclasses import dataclass

# The kinds of security a search lists ("trust": a mutual fund); sources map theirs to these.
SECURITY_TYPES = ("stock", "etf", "trust")


@dataclass(frozen=True)
class Security:
    """One match: ``exchange`` as its source writes it (a short name such as ``NASDAQ``, or
    Yahoo's code such as ``NMS``), ``type`` one of :data:`SECURITY_TYPES`."""

    name: str
    symbol: str
    exchange: str
    type: str


@dataclass(frozen=True)
class SecurityMatches:
    """The matches of one search, best first, and the source that answered (the client is
    told which one: the exchange spelling differs)."""

    securities: list[Security]
    source: str
