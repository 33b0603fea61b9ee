"""Sectors and industries as whole answers (the v2 routes).

Sources: Yahoo Finance's sectors and industries. The v1 sector summaries are in
:mod:`marketdata.capabilities.market`.
"""

from __future__ import annotations

from marketdata.capabilities.table import YAHOO, Source, declare
from marketdata.records.sectors import IndustryProfile, SectorProfile

SECTORS = "marketdata.providers.yahoo.sectors"


@declare("sector_profiles", "A whole sector (/v2/sectors/{sector})",
         Source("yahoo", f"{YAHOO} sectors", fetcher=f"{SECTORS}:sector_profile"))
def sector_profile(key: str, lang: str | None = None) -> SectorProfile:
    """One sector by key (:data:`marketdata.records.sectors.SECTORS`), texts in ``lang``
    (BCP 47; the source's default when None); NotFound when the source has no such
    sector."""


@declare("industries", "A whole industry (/v2/industries/{industry})",
         Source("yahoo", f"{YAHOO} industries", fetcher=f"{SECTORS}:industry_profile"))
def industry_profile(slug: str, lang: str | None = None) -> IndustryProfile:
    """One industry by slug (:data:`marketdata.records.sectors.INDUSTRIES`), texts in
    ``lang``; NotFound when the source has no such industry."""
