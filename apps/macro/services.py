"""v2 macro use cases: a FRED series (keyed API, keyless CSV fallback) and the Treasury's
daily par yield curve of a year. Sources are chosen by :mod:`marketdata.providers.sources`."""

from __future__ import annotations

from typing import Any

from marketdata.errors import NotFound
from marketdata.providers import fred, sources, treasury
from marketdata.symbols import display_symbol


def require_series_id(text: str) -> str:
    """The canonical series id, or NotFound: a malformed id can never exist upstream (the
    project's rule "invalid symbols are unknown symbols"), so it is never sent there."""
    series_id = fred.normalize_series_id(text)
    if series_id is None:
        raise NotFound(f"Series not found: '{display_symbol(text)}'")
    return series_id


def macro_series(series_text: str) -> dict[str, Any]:
    """GqlMacroSeries ``{id, observations: [{date, value}]}``, observations oldest first
    (a bare list; the view pages it)."""
    series_id = require_series_id(series_text)
    observations = sources.serve("macro_series", {
        "fred_api": lambda: fred.series_from_api(series_id),
        "fred_graph": lambda: fred.series_from_graph(series_id),
    })
    return {"id": series_id,
            "observations": [{"date": o.date, "value": o.value} for o in observations]}


def treasury_yields(year: int, current_year: int) -> list[dict[str, Any]]:
    """The Treasury yield rows of ``year`` (validated), newest first."""
    return sources.serve("treasury_yields", {
        "treasury": lambda: treasury.yield_curve(year, current_year)})
