"""Currency pairs: a live quote first, a reference rate after.

Sources (the ``forex`` row of :mod:`marketdata.capabilities.table`): Yahoo's live quote of
the pair, then the ECB reference rate (Frankfurter). A failing source passes the query on,
as for every capability; here a source that does not list the pair does too, since live
sources lack some crosses and the reference rates may have them. When no source has the
pair, the answer is a 404, unless a source failed: then nobody said the pair does not
exist, and the first failure is the answer (the row's ``not_found_passes_on``).
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.errors import NotFound
from marketdata.records.quotes import ForexQuote


def pair_quote(base: str, quote: str) -> ForexQuote:
    """The quote of a pair of validated, upper-cased, different ISO 4217 codes."""
    try:
        answer: ForexQuote = call("forex", base, quote)
    except NotFound:
        raise NotFound(f"No quote for {base}/{quote}") from None
    return answer
