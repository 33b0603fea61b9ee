"""Bars: the price history behind charts, historical prices, indicators, backtests and
capital gains, whichever source served it, and the interval and range vocabularies.

One record (:class:`Bars`) serves every reader: the v2 chart shows it as sent, the v1
historical prices and indicators read its :meth:`Bars.candles` view (the v1 rules), the
backtest engine and the indicator kernels take its columns as arrays
(:class:`marketdata.indicators.bars.PriceArrays`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from marketdata.errors import BadRequest, NotFound
from marketdata.records.members import member, member_names, members_of

# -- vocabularies ---------------------------------------------------------------------------
RANGES = ("1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y", "2y", "5y", "10y", "max")
INTERVALS = ("1m", "5m", "15m", "30m", "1h", "1d", "1wk", "1mo")
# v2 adds the other bar sizes of the spec.
V2_INTERVALS = ("1m", "2m", "5m", "15m", "30m", "1h", "90m", "1d", "5d", "1wk", "1mo", "3mo")
V2_RANGES = ("1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "ytd", "max")
INTRADAY = frozenset({"1m", "2m", "5m", "15m", "30m", "1h", "90m"})

# Which ranges an intraday interval is served for (the spec's compatibility table).
_COMPATIBLE = {
    "1m": ("1d", "5d"),
    "2m": ("1d", "5d", "1mo"),
    "5m": ("1d", "5d", "1mo"),
    "15m": ("1d", "5d", "1mo"),
    "30m": ("1d", "5d", "1mo"),
    "1h": ("1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y"),
    "90m": ("1d", "5d", "1mo"),  # 60 days of 2m..90m bars are kept
}


def check_range_interval(range_: str, interval: str) -> None:
    """Raise BadRequest (400) for combinations the spec's table rules out."""
    if range_ == "max" and interval not in ("1mo", "3mo"):  # 3mo: v2 only
        raise BadRequest("If range is max, interval must be 1mo")
    allowed = _COMPATIBLE.get(interval)
    if allowed is not None and range_ not in allowed:
        raise BadRequest(f"If interval is {interval}, range must be {', '.join(allowed)}")


# How far back (days) intraday bars are served, and the longest 1m span per request: an
# absolute window outside these is refused (400) before any upstream call.
INTRADAY_LOOKBACK_DAYS = {"1m": 30, "2m": 60, "5m": 60, "15m": 60, "30m": 60, "90m": 60,
                          "1h": 730}
ONE_MINUTE_SPAN_DAYS = 8


def check_window(interval: str, start: int, end: int, now: int) -> None:
    """Raise BadRequest (400) for an absolute window that cannot be served: ``start`` not
    before ``end``, or intraday bars further back (or, for 1m, over a longer span) than
    they are kept."""
    if start >= end:
        raise BadRequest("`start` must be before `end`")
    lookback = INTRADAY_LOOKBACK_DAYS.get(interval)
    if lookback is None:
        return
    if interval == "1m" and end - start > ONE_MINUTE_SPAN_DAYS * 86400:
        raise BadRequest(f"If interval is 1m, the window (`start` to `end`) must span at "
                         f"most {ONE_MINUTE_SPAN_DAYS} days")
    if start < now - lookback * 86400:
        raise BadRequest(f"If interval is {interval}, `start` must be within the last "
                         f"{lookback} days")


# -- the chart's meta -----------------------------------------------------------------------
@dataclass(frozen=True)
class ChartMeta:
    """The v2 chart's ``meta``, in the spec's spelling and order: a source fills what it
    knows, None elsewhere. :attr:`Bars.meta` holds these members as a dict by name
    (:func:`chart_meta`), which the v1 views read too; the answers make this record of it
    (:meth:`of`)."""

    chart_previous_close: float | None = member("Close before the chart's first bar")
    fifty_two_week_high: float | None = member()
    fifty_two_week_low: float | None = member()
    previous_close: float | None = member("The previous session's close")
    regular_market_day_high: float | None = member()
    regular_market_day_low: float | None = member()
    regular_market_price: float | None = member()
    currency: str | None = member("ISO 4217 code of the prices")
    data_granularity: str | None = member("The bar size served")
    exchange_name: str | None = member()
    exchange_timezone_name: str | None = member("IANA time zone of the exchange")
    full_exchange_name: str | None = member()
    instrument_type: str | None = member("e.g. `EQUITY`, `ETF`, `INDEX`")
    range: str | None = member("The range served")
    symbol: str | None = member()
    timezone: str | None = member("Abbreviation of the exchange's time zone")
    first_trade_date: int | None = member("Unix seconds")
    gmt_offset: int | None = member("The exchange's offset from UTC, seconds (Yahoo's "
                                    "`gmtoffset`)")
    price_hint: int | None = member("Decimal places the prices are shown with")
    regular_market_time: int | None = member("Unix seconds")
    regular_market_volume: int | None = member()
    has_pre_post_market_data: bool | None = member()

    @classmethod
    def of(cls, values: dict[str, Any]) -> ChartMeta:
        """The record of a meta dict by the members' names (:func:`chart_meta`)."""
        return cls(**{m.attribute: values.get(m.name) for m in members_of(ChartMeta)})


# The members of the v2 chart's ``meta`` in the spec's spelling and order, and their JSON
# types (the kind a source's value is checked against: :func:`typed_meta_value`).
META_MEMBERS = member_names(ChartMeta)
META_KINDS: dict[str, str] = {
    m.name: next(kind for kind in m.schema["type"] if kind != "null")
    for m in members_of(ChartMeta)}


def typed_meta_value(value: Any, kind: str) -> Any:
    """``value`` when it is of the member's kind (an integer is a number too), else None."""
    if value is None or (isinstance(value, bool) and kind != "boolean"):
        return None
    if kind == "number":
        return float(value) if isinstance(value, int | float) else None
    if kind == "integer":
        return int(value) if isinstance(value, int | float) else None
    if kind == "boolean":
        return value if isinstance(value, bool) else None
    return value if isinstance(value, str) else None


def chart_meta(values: dict[str, Any]) -> dict[str, Any]:
    """Every meta member, in the spec's order, typed (None where unknown or mistyped)."""
    return {name: typed_meta_value(values.get(name), META_KINDS[name]) for name in META_MEMBERS}


# -- the record -----------------------------------------------------------------------------
@dataclass
class BarEvents:
    """Corporate events of the window, each list oldest first.

    ``dividends`` and ``capital_gains``: ``(timestamp, amount)``; ``splits``:
    ``(timestamp, numerator, denominator, ratio)`` with ``ratio`` such as ``"4:1"``."""

    dividends: list[tuple[int, float]]
    splits: list[tuple[int, float, float, str]]
    capital_gains: list[tuple[int, float]]


NO_EVENTS = BarEvents([], [], [])


@dataclass
class Candles:
    """The v1 view of bars: only bars with every value (a bar without a volume is left
    out), prices as floats, oldest first."""

    symbol: str
    currency: str | None
    exchange_timezone: str | None
    price_hint: int
    interval: str
    timestamps: list[int]
    open: list[float]
    high: list[float]
    low: list[float]
    close: list[float]
    volume: list[int]
    adjclose: list[float | None] | None

    def __len__(self) -> int:
        return len(self.timestamps)

    @property
    def decimals(self) -> int:
        """Decimal places shown for this instrument's prices: its price hint, at least 2."""
        return max(2, self.price_hint)


@dataclass
class Bars:
    """A symbol's bars for one interval and window, as its source sent them.

    Every bar has an open, high, low and close (a bar without one is not a price and never
    gets here); ``volume`` items are None where the source has no volume; ``adjclose`` is
    None when the source sends no adjusted close at all, an item None where it has none for
    that bar. Repeated timestamps are merged (the last bar kept). No bars is a valid answer
    (an empty window of a known symbol). ``meta`` has the chart meta members by the spec's
    names (:func:`chart_meta`); ``source`` names the provider that served them.
    """

    interval: str
    meta: dict[str, Any]
    timestamps: list[int]
    open: list[float]
    high: list[float]
    low: list[float]
    close: list[float]
    volume: list[int | None]
    adjclose: list[float | None] | None
    events: BarEvents
    source: str

    def __len__(self) -> int:
        return len(self.timestamps)

    @property
    def symbol(self) -> str | None:
        value = self.meta.get("symbol")
        return value if isinstance(value, str) and value else None

    def volumes(self) -> list[int]:
        """The v2 volumes: a missing or negative volume is 0."""
        return [0 if v is None or v < 0 else int(v) for v in self.volume]

    def candles(self) -> Candles:
        """The v1 view (:class:`Candles`); no bar with a volume is NotFound, as v1 has it."""
        keep = [i for i, volume in enumerate(self.volume) if volume is not None]
        if not keep:
            raise NotFound("No data returned for symbol")
        hint = self.meta.get("priceHint")
        adj = self.adjclose
        return Candles(
            symbol=self.symbol or "",
            currency=self.meta.get("currency"),
            exchange_timezone=self.meta.get("exchangeTimezoneName"),
            price_hint=int(hint) if isinstance(hint, int | float) else 2,
            interval=self.interval,
            timestamps=[self.timestamps[i] for i in keep],
            open=[float(self.open[i]) for i in keep],
            high=[float(self.high[i]) for i in keep],
            low=[float(self.low[i]) for i in keep],
            close=[float(self.close[i]) for i in keep],
            volume=[int(self.volume[i]) for i in keep],  # type: ignore[arg-type]  # kept: not None
            adjclose=None if adj is None else
            [None if adj[i] is None else float(adj[i]) for i in keep],  # type: ignore[arg-type]
        )
