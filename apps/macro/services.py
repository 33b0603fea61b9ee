"""v2 macro use cases: a FRED series (keyed API, keyless CSV fallback) and the Treasury's
daily par yield curve of a year, through :mod:`marketdata.capabilities.macro`, as records
(their members are declared on them: :mod:`marketdata.records.macro`)."""

from __future__ import annotations

from marketdata.capabilities import macro
from marketdata.records.macro import MacroSeries, YieldCurveRow


def macro_series(series_text: str) -> MacroSeries:
    """GqlMacroSeries ``{id, observations: [{date, value}]}``, observations oldest first
    (a bare list; the view pages it)."""
    return macro.series(series_text)


def treasury_yields(year: int, current_year: int) -> list[YieldCurveRow]:
    """The Treasury yield rows of ``year`` (validated), newest first."""
    return macro.treasury_yields(year, current_year)
