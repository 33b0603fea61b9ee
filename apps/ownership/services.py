"""Institutional ownership: a manager's 13F holdings for one quarter and 13F filers by name
(the capabilities of :mod:`marketdata.capabilities.institutions`), as records (their members
are declared on them: :mod:`marketdata.records.institutions`)."""

from __future__ import annotations

import re
from dataclasses import replace

from marketdata.capabilities import institutions
from marketdata.errors import FieldError, InvalidParameters, NotFound
from marketdata.records.institutions import Holding, InstitutionalFiler, InstitutionalHoldings

_CIK = re.compile(r"[0-9]{1,10}", re.ASCII)
CIK_RULE = "Input should be a CIK: 1 to 10 digits (leading zeros allowed), e.g. 1067983"


def cik_of(text: str) -> int:
    """The CIK a path value names: 1 to 10 digits, leading zeros allowed; anything else is
    a 400 before any upstream call. Zero is well formed but no filer's (404, no call)."""
    if not _CIK.fullmatch(text):
        raise InvalidParameters([FieldError("cik", CIK_RULE, "string_pattern_mismatch",
                                             text[:40], location="path")])
    cik = int(text)
    if cik == 0:
        raise NotFound("No EDGAR filer has CIK 0")
    return cik


def by_value(holding: tuple[int, Holding]) -> tuple[int, str, str, int]:
    """Largest value first; ties by issuer, CUSIP, then table position (a value missing
    from the table counts as none)."""
    position, row = holding
    return (-(row.value or 0), (row.issuer or "").upper(), row.cusip or "", position)


def holdings(cik_text: str, period: str | None) -> InstitutionalHoldings:
    """The manager's holdings for ``period`` (None: the latest quarter), largest value
    first (``order=asc`` reverses them in the paging)."""
    found = institutions.holdings(cik_of(cik_text), period)
    ordered = [row for _, row in sorted(enumerate(found.holdings), key=by_value)]
    return replace(found, holdings=ordered)


def filers(name: str) -> list[InstitutionalFiler]:
    """13F filers whose EDGAR name holds every word of ``name``, most relevant first."""
    return institutions.filers(name)
