"""Currency pairs: a live quote first, a reference rate after.

Sources (the ``forex`` row of :mod:`marketdata.capabilities.table`): Yahoo's live quote of
the pair, then the ECB reference rate (Frankfurter). A failing source passes the query on,
as for every capability; here a source that does not list the pair does too, since live
sources lack some crosses and the reference rates may have them. When no source has the
pair, the answer is a 404, unless a source failed: then nobody said the pair does not
exist, and the first failure is the answer.
"""

from __future__ import annotations

from collections.abc import Callable

from marketdata.capabilities.table import Source, capability, serve
from marketdata.errors import NotFound, UpstreamError
from marketdata.records.quotes import ForexQuote


def pair_quote(base: str, quote: str) -> ForexQuote:
    """The quote of a pair of validated, upper-cased, different ISO 4217 codes."""
    sources = [s for s in capability("forex").active_sources() if s.fetcher is not None]
    failures: list[UpstreamError] = []
    lacking: list[str] = []  # the sources that do not list the pair, in the order asked

    def through(source: Source) -> Callable[[], ForexQuote]:
        fetch = source.fetch_function()

        def ask() -> ForexQuote:
            try:
                answer: ForexQuote = fetch(base, quote)
            except NotFound:
                lacking.append(source.name)
                raise
            except UpstreamError as exc:
                failures.append(exc)
                raise
            return answer

        return ask

    try:
        return serve("forex", {source.name: through(source) for source in sources})
    except NotFound:
        if failures:  # a later source lacks the pair, and an earlier one never answered
            raise failures[0] from None
    # A source does not list the pair: the ones after it may.
    names = [source.name for source in sources]
    for source in sources[names.index(lacking[0]) + 1:]:
        try:
            answer: ForexQuote = source.fetch_function()(base, quote)
            return answer
        except NotFound:
            continue
    raise NotFound(f"No quote for {base}/{quote}")
