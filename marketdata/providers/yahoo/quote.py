"""v7 quote: one batch call for many symbols (simple quotes, streams)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from marketdata.cache import fetch_many_through
from marketdata.errors import UpstreamBadResponse
from marketdata.formatting import raw
from marketdata.providers import yahoo
from marketdata.providers.yahoo.client import get_json

MAX_BATCH = 50


@dataclass
class QuoteSnapshot:
    """The v7 fields our quote shapes use (raw numbers; percents in percent units)."""

    symbol: str
    name: str | None
    quote_type: str | None
    currency: str | None
    price_hint: int
    market_state: str | None
    price: float | None
    change: float | None
    change_percent: float | None
    previous_close: float | None
    open: float | None
    day_high: float | None
    day_low: float | None
    volume: int | None
    market_time: int | None
    pre_market_price: float | None
    pre_market_time: int | None
    post_market_price: float | None
    post_market_time: int | None

    @property
    def pre_market_current(self) -> bool:
        """Pre-market trade newer than the last regular-session trade."""
        return (self.pre_market_price is not None and self.pre_market_time is not None
                and self.pre_market_time > (self.market_time or 0))

    @property
    def post_market_current(self) -> bool:
        return (self.post_market_price is not None and self.post_market_time is not None
                and self.post_market_time > (self.market_time or 0))


def _num(item: dict[str, Any], key: str) -> Any:
    return raw(item.get(key))


def parse_quote(item: dict[str, Any]) -> QuoteSnapshot:
    hint = _num(item, "priceHint")
    volume = _num(item, "regularMarketVolume")
    return QuoteSnapshot(
        symbol=str(item["symbol"]).upper(),
        name=item.get("longName") or item.get("shortName") or item.get("displayName"),
        quote_type=item.get("quoteType"),
        currency=item.get("currency"),
        price_hint=int(hint) if isinstance(hint, int | float) else 2,
        market_state=item.get("marketState"),
        price=_num(item, "regularMarketPrice"),
        change=_num(item, "regularMarketChange"),
        change_percent=_num(item, "regularMarketChangePercent"),
        previous_close=_num(item, "regularMarketPreviousClose"),
        open=_num(item, "regularMarketOpen"),
        day_high=_num(item, "regularMarketDayHigh"),
        day_low=_num(item, "regularMarketDayLow"),
        volume=int(volume) if isinstance(volume, int | float) else None,
        market_time=_num(item, "regularMarketTime"),
        pre_market_price=_num(item, "preMarketPrice"),
        pre_market_time=_num(item, "preMarketTime"),
        post_market_price=_num(item, "postMarketPrice"),
        post_market_time=_num(item, "postMarketTime"),
    )


def parse_quotes(payload: Any) -> dict[str, QuoteSnapshot]:
    """v7 body -> {SYMBOL: snapshot}; Yahoo silently omits unknown symbols."""
    try:
        results = payload["quoteResponse"]["result"] or []
    except (KeyError, TypeError) as exc:
        raise UpstreamBadResponse("yahoo", "Yahoo Finance quote answer has no "
                                  "quoteResponse.result") from exc
    out: dict[str, QuoteSnapshot] = {}
    for item in results:
        if isinstance(item, dict) and item.get("symbol"):
            snapshot = parse_quote(item)
            out[snapshot.symbol] = snapshot
    return out


def _fetch_batch(symbols: list[str]) -> dict[str, QuoteSnapshot]:
    found: dict[str, QuoteSnapshot] = {}
    for start in range(0, len(symbols), MAX_BATCH):
        chunk = symbols[start:start + MAX_BATCH]
        payload = get_json("quote", f"{yahoo.QUERY1}/v7/finance/quote",
                           {"symbols": ",".join(chunk)})
        found.update(parse_quotes(payload))
    return found


def fetch_quotes(symbols: list[str]) -> dict[str, QuoteSnapshot]:
    """Snapshots for validated symbols (one upstream call for all uncached ones)."""
    return fetch_many_through("yahoo", "quote", symbols, _fetch_batch, "quote", group="quotes")
