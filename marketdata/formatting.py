"""The v1 interface's formatted strings: '+0.69%', '6,506.48', '2.5T', 'Feb 05, 2024'.

Rules follow the reference notes (section 2.2): Yahoo-style prices carry thousands
separators, simple quotes use plain fixed decimals, changes and percents carry an explicit
sign ('+' for zero too), large numbers are abbreviated. Values may arrive as bare numbers
or Yahoo ``{raw, fmt}`` objects; :func:`raw` reads both.
"""

from __future__ import annotations

import dataclasses
import math
from datetime import UTC, date, datetime
from decimal import ROUND_HALF_UP, Context, Decimal
from typing import Any, TypeGuard

_SUFFIXES = ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k"))


def _finite(value: Any) -> TypeGuard[float]:
    return value is not None and math.isfinite(value)


def raw(value: Any) -> Any:
    """The number inside a Yahoo value: ``{raw, fmt}`` -> raw; bare numbers pass through.

    Empty objects (Yahoo sends ``{}`` for missing values) and NaN give None.
    """
    if isinstance(value, dict):
        value = value.get("raw")
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def number(value: Any) -> float | None:
    """A Yahoo value ({raw, fmt} or bare) as a float; None when missing, not a number or NaN
    (a missing field is shown as null, never as an error)."""
    value = raw(value)
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def json_number(value: Any) -> int | float | None:
    """A JSON number as the upstream sent it (310 stays 310, 236.38 stays 236.38); None for
    anything else (missing, strings, booleans, NaN)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def integer(value: Any) -> int | None:
    """A count or quantity ({raw, fmt} or bare) as an int: 1.0e9 -> 1000000000."""
    value = number(value)
    return None if value is None else round(value)


def mapping(value: Any) -> dict[str, Any]:
    """An object field of an upstream payload; {} when it is missing or not an object."""
    return value if isinstance(value, dict) else {}


def rows(value: Any) -> list[dict[str, Any]]:
    """The objects of an upstream list field (anything else in the list is skipped)."""
    return [row for row in value if isinstance(row, dict)] if isinstance(value, list) else []


def text(value: Any, *, clean: bool = True) -> str | None:
    """A string field. ``clean``: whitespace runs collapsed and trimmed (Yahoo pads short
    names), blank -> None. ``clean=False`` passes the string through as sent (an empty
    ``fromGrade`` means "no grade before"). Anything not a string gives None."""
    if not isinstance(value, str):
        return None
    if not clean:
        return value
    return " ".join(value.split()) or None


# Enough digits for any float's integer part (the default 28 fails above 1e28).
_CONTEXT = Context(prec=400)


def _decimal(value: float, decimals: int) -> Decimal:
    # Round the shortest repr of the float, half up, so 2.675 -> "2.68" as a person reads it,
    # not the binary expansion's '2.67'.
    quant = Decimal(1).scaleb(-decimals)
    rounded = Decimal(repr(float(value))).quantize(quant, rounding=ROUND_HALF_UP,
                                                   context=_CONTEXT)
    return rounded.copy_abs() if rounded.is_zero() else rounded  # never print '-0.00'


def round_half_up(value: float, decimals: int = 2) -> float:
    """A number rounded the way :func:`fixed` prints it (JSON numbers in responses)."""
    return float(_decimal(value, decimals))


def fixed(value: float | None, decimals: int = 2, commas: bool = False) -> str | None:
    """'1234.50' or, with commas, '1,234.50'. None, NaN and infinities give None."""
    if not _finite(value):
        return None
    d = _decimal(value, decimals)
    return f"{d:,.{decimals}f}" if commas else f"{d:.{decimals}f}"


def signed(text: str | None) -> str | None:
    """Prefix '+' unless the string already carries a sign ('-0.00' stays as is)."""
    if text is None:
        return None
    return text if text[:1] in "+-" else f"+{text}"


def signed_fixed(value: float | None, decimals: int = 2, commas: bool = False) -> str | None:
    return signed(fixed(value, decimals, commas))


def percent(value: float | None, *, fraction: bool = False, sign: bool = True,
            decimals: int = 2) -> str | None:
    """'+0.69%': ``fraction=True`` when the input is 0.0069 rather than 0.69."""
    if not _finite(value):
        return None
    if fraction:
        # Scale the decimal repr, not the float: 0.02345 * 100 is 2.3449999999999998.
        value = float(Decimal(repr(float(value))).scaleb(2))
    text = f"{fixed(value, decimals)}%"  # value is finite here, so fixed() is not None
    return signed(text) if sign else text


def compact(value: float | None, decimals: int = 2) -> str | None:
    """Abbreviate large magnitudes: 3688676720640 -> '3.69T', 2.5e12 -> '2.5T', 950 -> '950'.

    The unit is chosen after rounding, so 999,999.999 is '1M', not '1000k'.
    """
    if not _finite(value):
        return None
    for threshold, suffix in _SUFFIXES:
        scaled = _decimal(value / threshold, decimals)
        if abs(scaled) >= 1:
            return _trim(format(scaled, "f")) + suffix
    return _trim(format(_decimal(value, decimals), "f"))


def _trim(text: str) -> str:
    return text.rstrip("0").rstrip(".") if "." in text else text


def price(value: float | None, price_hint: int | None = 2, commas: bool = True) -> str | None:
    """A price with the instrument's own precision (Yahoo's priceHint: 2 for stocks, 4 FX)."""
    decimals = price_hint if isinstance(price_hint, int) and 0 <= price_hint <= 8 else 2
    return fixed(value, max(decimals, 2), commas)


def long_date(value: Any) -> str | None:
    """'Feb 05, 2024' from an epoch (seconds), an ISO date string or a date."""
    if value is None:
        return None
    if isinstance(value, int | float):
        day = datetime.fromtimestamp(value, UTC).date()
    elif isinstance(value, str):
        try:
            day = date.fromisoformat(value[:10])
        except ValueError:
            return None
    elif isinstance(value, datetime):
        day = value.date()
    elif isinstance(value, date):
        day = value
    else:
        return None
    return day.strftime("%b %d, %Y")


def utc_datetime(value: Any) -> datetime | None:
    """An epoch in seconds ({raw, fmt} or bare), an ISO date/datetime string or a datetime,
    as an aware UTC datetime. Missing or unreadable values give None: a missing date stays
    missing, it is never replaced by "now"."""
    value = raw(value)
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    if isinstance(value, datetime):
        return value.astimezone(UTC) if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    try:
        return datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):
        return None


def json_ready(item: Any) -> dict[str, Any]:
    """A parsed dataclass as JSON-ready values (datetimes as ISO 8601 UTC strings)."""
    return {k: iso_datetime(v) if isinstance(v, datetime) else v
            for k, v in dataclasses.asdict(item).items()}


def iso_datetime(value: Any) -> str | None:
    """'2024-12-31T00:00:00Z' (ISO 8601, UTC, whole seconds) from anything
    :func:`utc_datetime` reads; None when the value is missing."""
    moment = utc_datetime(value)
    return None if moment is None else moment.strftime("%Y-%m-%dT%H:%M:%SZ")


_AGO_UNITS = ((365 * 86400, "year"), (30 * 86400, "month"), (86400, "day"), (3600, "hour"),
              (60, "minute"))


def relative_time(epoch: float, now: float) -> str:
    """'just now', '1 minute ago', '5 minutes ago', '2 hours ago', '3 days ago',
    '1 month ago' (30 days), '2 years ago' (365 days): the largest whole unit, floored.

    Under a minute, and timestamps in the future (clock skew), are 'just now'.
    """
    elapsed = int(now - epoch)
    for seconds, name in _AGO_UNITS:
        if elapsed >= seconds:
            count = elapsed // seconds
            return f"{count} {name}{'' if count == 1 else 's'} ago"
    return "just now"
