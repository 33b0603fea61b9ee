"""Yahoo's ``formatted=true`` number objects ({"raw", "fmt", "longFmt"}).

Why: quoteSummary modules are built once with typed values; ``render`` turns them into
bare numbers (``formatted=false``) or Yahoo-like objects (``formatted=true``), so both
shapes always agree.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any


@dataclass(frozen=True)
class V:
    """A typed number: kind in price|pct|big|date|num|int."""

    kind: str
    raw: float | int | None
    dp: int = 2


def price(x: float | None, dp: int = 2) -> V:
    return V("price", x, dp)


def pct(x: float | None) -> V:
    return V("pct", x)


def big(x: float | int | None) -> V:
    return V("big", x)


def day(epoch: int | None) -> V:
    return V("date", epoch)


def num(x: float | None, dp: int = 2) -> V:
    return V("num", x, dp)


def integer(x: int | None) -> V:
    return V("int", x)


def abbreviate(x: float) -> str:
    """3690000000000 -> "3.69T", 950200000000 -> "950.20B", 53200000 -> "53.20M"."""
    sign = "-" if x < 0 else ""
    a = abs(x)
    for limit, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if a >= limit:
            return f"{sign}{a / limit:.2f}{suffix}"
    return f"{sign}{a:.0f}" if float(a).is_integer() else f"{sign}{a:.2f}"


def _format(v: V) -> dict[str, Any]:
    x = v.raw
    if x is None:
        return {}
    if v.kind == "price":
        return {"raw": x, "fmt": f"{x:,.{v.dp}f}"}
    if v.kind == "pct":
        return {"raw": x, "fmt": f"{x * 100:.2f}%"}
    if v.kind == "big":
        return {"raw": x, "fmt": abbreviate(x), "longFmt": f"{round(x):,}"}
    if v.kind == "date":
        return {"raw": x, "fmt": datetime.fromtimestamp(x, UTC).strftime("%Y-%m-%d")}
    if v.kind == "int":
        return {"raw": x, "fmt": str(x), "longFmt": f"{x:,}"}
    return {"raw": x, "fmt": f"{x:.{v.dp}f}"}


def render(obj: Any, formatted: bool) -> Any:
    """Replace every V in a nested structure by its raw or formatted form."""
    if isinstance(obj, V):
        return _format(obj) if formatted else obj.raw
    if isinstance(obj, dict):
        return {k: render(val, formatted) for k, val in obj.items()}
    if isinstance(obj, list):
        return [render(val, formatted) for val in obj]
    return obj
