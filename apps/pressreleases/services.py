"""Press releases of a company: Financial Modeling Prep with a key, else the 8-K
press-release exhibits on SEC EDGAR (:mod:`marketdata.providers.sec`).

EDGAR has no "press releases" call: each release is one filing's exhibit, so the releases
are gathered filing by filing, newest first, in rounds of at most :data:`ROUND_SIZE`
concurrent filings (two EDGAR calls each: the filing index, then the exhibit) until
``limit`` releases are found, the 8-Ks run out, or the request deadline is near. Filings
and exhibits are cached a week, so a repeat costs one cached submissions list.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from apps.core.symbols import require_symbol
from marketdata import deadline
from marketdata.cache import note_incomplete
from marketdata.concurrency import gather_partial
from marketdata.errors import MarketDataError, NotFound, UpstreamError, telling_failure
from marketdata.logs import get_logger
from marketdata.providers import sources

log = get_logger("apps.pressreleases")

# Filings fetched at once: 16 EDGAR calls, at its 10 calls/s about 1.6 s a round; small
# enough that one request never holds many of the shared fan-out threads.
ROUND_SIZE = 8
# A new round starts only with at least this much of the request deadline left.
MIN_ROUND_SECONDS = 1.0


def scan_budget(limit: int) -> int:
    """At most this many 8-Ks (that may carry exhibits) are looked at for ``limit``
    releases: a company whose 8-Ks carry no release costs a bounded number of calls."""
    return 2 * limit + 10


def _release(item: Mapping[str, Any], symbol: str) -> dict[str, Any]:
    return {"date": item.get("date"), "symbol": item.get("symbol") or symbol,
            "title": item.get("title"), "text": item.get("text")}


def _time_for_a_round() -> bool:
    left = deadline.remaining()
    return left is None or left >= MIN_ROUND_SECONDS


def edgar_press_releases(symbol: str, limit: int) -> list[dict[str, Any]]:
    """At most ``limit`` releases from the company's recent 8-K filings, newest first.

    404 when EDGAR does not know the ticker; ``[]`` when no recent 8-K carries a readable
    ``EX-99`` exhibit. Filings whose index or exhibit fails are left out (logged); when
    none could be read and some failed, that upstream failure is raised.
    """
    from marketdata.providers import sec

    cik = sec.cik_for(symbol)
    candidates = [f for f in sec.recent_8k_filings(cik, symbol)
                  if sec.may_have_exhibits(f)][:scan_budget(limit)]
    releases: list[dict[str, Any]] = []
    failures: list[MarketDataError] = []
    position = 0
    while len(releases) < limit and position < len(candidates):
        if position and not _time_for_a_round():
            # Out of time: serve what was found (never stored as a whole answer).
            note_incomplete()
            log.info("press releases cut short by the deadline", symbol=symbol,
                     found=len(releases), filings_left=len(candidates) - position)
            break
        batch = candidates[position:position + min(ROUND_SIZE, limit - len(releases))]
        position += len(batch)
        fetched = gather_partial(
            lambda filing: sec.filing_release(cik, filing), batch,
            what="press release filing",
            log_fields=lambda filing: {"symbol": symbol, "accession": filing["accession"]})
        releases.extend(found for _, found in fetched.values if found is not None)
        failures.extend(error for _, error in fetched.left_out)
        if not fetched.values:
            break  # every filing of the round failed: EDGAR is failing, don't go on
    if not releases:
        failure = telling_failure([e for e in failures if isinstance(e, UpstreamError)])
        if failure is not None:
            raise failure
    return [_release(found, symbol) for found in releases[:limit]]


def press_releases(symbol_text: str, limit: int) -> list[dict[str, Any]]:
    """``[{date, symbol, title, text}]``, newest first, at most ``limit``.

    With ``FMP_API_KEY`` set, FMP answers (a refused key or a failure falls back to
    EDGAR); when FMP has nothing for the symbol, EDGAR is asked too, so an unknown ticker
    is a 404 and a company without releases ``[]`` whichever source is configured.
    """
    symbol = require_symbol(symbol_text)

    def from_fmp() -> list[dict[str, Any]] | None:
        from marketdata.providers import fmp

        try:
            found = fmp.press_releases(symbol, limit)
        except NotFound:
            return None  # FMP knows nothing: EDGAR tells unknown from quiet
        return [_release(item, symbol) for item in found[:limit]]

    found = sources.serve("press_releases", {
        "fmp": from_fmp, "sec": lambda: edgar_press_releases(symbol, limit)})
    return edgar_press_releases(symbol, limit) if found is None else found
