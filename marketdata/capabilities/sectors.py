"""Sectors and industries as whole answers (the v2 routes).

Sources: the ``sector_profiles`` and ``industries`` rows of
:mod:`marketdata.capabilities.table`. The v1 sector summaries are in
:mod:`marketdata.capabilities.market`.
"""

from __future__ import annotations

from marketdata.capabilities.table import call
from marketdata.records.sectors import IndustryProfile, SectorProfile


def sector_profile(key: str, lang: str | None = None) -> SectorProfile:
    """One sector by key (:data:`marketdata.records.sectors.SECTORS`), texts in ``lang``
    (BCP 47; the source's default when None); NotFound when the source has no such
    sector."""
    found: SectorProfile = call("sector_profiles", key, lang)
    return found


def industry_profile(slug: str, lang: str | None = None) -> IndustryProfile:
    """One industry by slug (:data:`marketdata.records.sectors.INDUSTRIES`), texts in
    ``lang``; NotFound when the source has no such industry."""
    found: IndustryProfile = call("industries", slug, lang)
    return found
