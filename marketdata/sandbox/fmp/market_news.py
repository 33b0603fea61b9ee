"""``/stable/news/crypto-latest`` and ``/stable/news/forex-latest`` (``?page=P&limit=N``).

Why these values: FMP's latest crypto and forex articles in its shape ``{symbol,
publishedDate, publisher, title, image, site, text, url}``, newest first: one article
every 47 minutes back from the sandbox clock (floored to the minute step), each about a
pair drawn (seeded by kind and time) from BTCUSD, ETHUSD, SOLUSD, XRPUSD (crypto) or
EURUSD, USDJPY, GBPUSD, AUDUSD (forex), with a headline drawn the same way.
``publishedDate`` is ``YYYY-MM-DD HH:MM:SS`` UTC wall time without a zone (as FMP sends
it). ``limit`` defaults to 20 (at most 250), ``page`` to 0. Sites and links are
example.com names.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from marketdata.sandbox.common import Request, json_response
from marketdata.sandbox.instruments import pick
from marketdata.sandbox.response import SandboxResponse

STEP = timedelta(minutes=47)
DEFAULT_LIMIT, MAX_LIMIT = 20, 250
_PAIRS = {"crypto": ("BTCUSD", "ETHUSD", "SOLUSD", "XRPUSD"),
          "forex": ("EURUSD", "USDJPY", "GBPUSD", "AUDUSD")}
_HEADLINES = ("{pair} climbs as traders price in lower rates",
              "{pair} slips after stronger-than-expected data",
              "{pair} steady ahead of central bank decision",
              "Analysts see {pair} rally extending into next week",
              "{pair} falls to two-week low on risk-off mood",
              "Volatility in {pair} jumps as volumes surge")
_SITES = (("MarketPulse", "marketpulse.example.com"), ("FX Daily", "fxdaily.example.com"),
          ("Coin Journal", "coinjournal.example.com"))


def articles(kind: str, now: datetime, page: int, limit: int) -> list[dict[str, str]]:
    newest = datetime.fromtimestamp(int(now.timestamp()) // int(STEP.total_seconds())
                                    * int(STEP.total_seconds()), UTC)
    out = []
    for index in range(page * limit, page * limit + limit):
        when = newest - index * STEP
        pair = pick(_PAIRS[kind], kind, when)
        title = pick(_HEADLINES, kind, "title", when).format(pair=pair)
        publisher, site = pick(_SITES, kind, "site", when)
        slug = title.lower().replace(" ", "-")
        out.append({"symbol": pair, "publishedDate": when.strftime("%Y-%m-%d %H:%M:%S"),
                    "publisher": publisher, "title": title,
                    "image": f"https://{site}/images/{pair.lower()}.jpg", "site": site,
                    "text": f"{title}. Markets watched {pair} closely.",
                    "url": f"https://{site}/{kind}/{when:%Y/%m/%d}/{slug}"})
    return out


def handle_market_news(req: Request) -> SandboxResponse:
    limit = req.int_arg("limit", DEFAULT_LIMIT)
    page = req.int_arg("page", 0)
    if limit is None or page is None or limit < 0 or page < 0:
        return json_response({"Error Message": "Invalid parameters."}, 400)
    return json_response(articles(req.params["kind"], req.clock(), page,
                                  min(limit, MAX_LIMIT)))
