"""Currency pairs: a live quote first, a reference rate after.

Sources: Yahoo's live quote of the pair, then the ECB reference rate (Frankfurter). A
failing source passes the query on, as for every capability; here a source that does not
list the pair does too, since live sources lack some crosses and the reference rates may
have them. When no source has the pair, the answer is a 404, unless a source failed: then
nobody said the pair does not exist, and the first failure is the answer
(``not_found_passes_on``).
"""

from __future__ import annotations

from marketdata.capabilities.table import YAHOO, Source, declare
from marketdata.records.quotes import ForexQuote


@declare("forex", "Forex (/v2/forex/{from}/{to})",
         Source("yahoo", f"{YAHOO} (live bid/ask)",
                fetcher="marketdata.providers.yahoo.quote:forex_quote"),
         Source("frankfurter", "the ECB reference rates (Frankfurter)",
                fetcher="marketdata.providers.frankfurter:forex_quote"),
         not_found_passes_on=True, not_found="No quote for {base}/{quote}")
def pair_quote(base: str, quote: str) -> ForexQuote:
    """The quote of a pair of validated, upper-cased, different ISO 4217 codes."""
