"""v2 macro use cases: a FRED series (keyed API, keyless CSV fallback) and the Treasury's
daily par yield curve of a year, through :mod:`marketdata.capabilities.macro`."""

from __future__ import annotations

from typing import Any

from marketdata.capabilities import macro


def macro_series(series_text: str) -> dict[str, Any]:
    """GqlMacroSeries ``{id, observations: [{date, value}]}``, observations oldest first
    (a bare list; the view pages it)."""
    series = macro.series(series_text)
    return {"id": series.id,
            "observations": [{"date": o.date, "value": o.value} for o in series.observations]}


def treasury_yields(year: int, current_year: int) -> list[dict[str, Any]]:
    """The Treasury yield rows of ``year`` (validated), newest first."""
    return macro.treasury_yields(year, current_year)
