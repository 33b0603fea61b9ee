"""Query declaration of ``GET /v2/company-profile/{symbol}``; its answer is the record
:class:`marketdata.records.companies.CompanyProfile`."""

from __future__ import annotations

from apps.core.v2 import FieldsQuery


class V2CompanyProfileQuery(FieldsQuery):
    """``fields`` only."""
