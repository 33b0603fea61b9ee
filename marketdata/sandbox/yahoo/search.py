"""GET /v1/finance/search?q=...&quotesCount=6&newsCount=4: quotes and news for a query.

Why: the search fallback and the news endpoints read this one Yahoo answer, so the sandbox
serves it in the recorded shape (``shared/upstream/yahoo/v1-search``): ``quotes[]`` with
``exchange, shortname, quoteType, symbol, index, score, typeDisp, longname, exchDisp`` (and
the sector keys for equities), ``news[]`` with ``uuid, title, publisher, link,
providerPublishTime, type, thumbnail.resolutions, relatedTickers``.

Quotes: the instruments of a small universe (the famous symbols and the listed ETFs) whose
symbol or name matches the query, exact symbol first, then symbol prefixes, then names;
when none matches and the query is itself a plausible symbol, that symbol's synthetic
instrument (the sandbox's rule: every plausible symbol exists). Unknown symbols match
nothing. No crumb is needed, as on Yahoo.

News: each topic (the best-matching instrument, else "the market") has a deterministic
stream of articles, article k published at ``k * period + jitter`` seconds since the epoch;
the newest ``newsCount`` articles not later than the sandbox clock are returned, so
``providerPublishTime`` moves with the clock and repeated calls agree. Articles carry
``relatedTickers`` with the topic's symbol; market articles name other symbols or none
(like Yahoo's full-text filler). About one article in seven has no thumbnail. Links and
images point at ``*.sandbox.invalid`` (a reserved, never-resolving domain).

Flags (``/v2/search`` sends them): ``enableLogoUrl=true`` adds a ``logoUrl`` to equity
quotes (as Yahoo does for the brands it has); ``enableResearchReports=true`` fills
``researchReports`` with the best-matching equity's two newest reports (one a week,
``reportDate`` in epoch milliseconds). ``enableFuzzyQuery``, ``enableCulturalAssets``,
``lang`` and ``region`` change nothing here.
"""

from __future__ import annotations

import re
from typing import Any

from marketdata.sandbox.instruments import (
    EQUITY,
    FAMOUS,
    KNOWN_ETFS,
    TYPE_DISP,
    Instrument,
    get_instrument,
    is_known_symbol,
    pick,
    stable_hash,
    unit,
)
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.common import Request, finance_error, json_response

MAX_COUNT = 100
_EXCH_DISP = {"NMS": "NASDAQ", "NGM": "NASDAQ", "NCM": "NASDAQ", "NAS": "NASDAQ",
              "NYQ": "NYSE", "PCX": "NYSEArca", "NIM": "Nasdaq GIDS", "SNP": "SNP",
              "DJI": "DJI", "CXI": "Cboe Indices", "WCB": "Chicago Options"}
_PUBLISHERS = ("Sandbox Newswire", "Synthetic Markets Daily", "Example Finance Video",
               "Mock Street Journal", "Test Ticker Times")
_TOPIC_TITLES = (
    "{name} shares move as investors weigh the quarterly outlook",
    "What analysts expect from {name} ({symbol}) this week",
    "{name} unveils a new product lineup",
    "Is {symbol} a buy after its latest move?",
    "{name} schedules its next earnings call",
    "Options traders eye {symbol} ahead of key data",
    "{name} in focus as investors rotate between sectors",
    "{symbol}: three things to watch before the open",
)
_MARKET_TITLES = (
    "Stocks drift as traders await inflation data",
    "Treasury yields edge higher ahead of central bank minutes",
    "Oil prices steady as the supply outlook shifts",
    "Tech shares lead a broad market rally",
    "Dollar slips against major currencies",
    "Small caps lag as rate-cut bets fade",
    "Earnings season: what to watch this week",
    "Consumer sentiment improves for a second month",
)
_MARKET_TICKERS = (("^GSPC",), ("SPY", "QQQ"), ("^DJI",), ("^IXIC", "NVDA"), ())
_SIZES = ((1024, 512), (800, 533), (2000, 1500), (1200, 800), (2167, 1218))
_SLUG = re.compile(r"[^a-z0-9]+")


# -- quotes ----------------------------------------------------------------------------------
def _universe() -> list[str]:
    return list(dict.fromkeys([*FAMOUS, *sorted(KNOWN_ETFS)]))


def all_instruments() -> list[Instrument]:
    """The search universe (what an empty Algolia query lists)."""
    return [i for i in map(get_instrument, _universe()) if i is not None]


def _name(inst: Instrument) -> str:
    return inst.long_name or inst.short_name


def match_instruments(query: str) -> list[Instrument]:
    """Instruments matching ``query``, best first (shared with the Algolia sandbox)."""
    q = " ".join(query.split()).upper()
    if not q:
        return []
    ranked: list[tuple[int, int, str, Instrument]] = []
    for symbol in _universe():
        inst = get_instrument(symbol)
        if inst is None:
            continue
        names = f"{inst.short_name} {inst.long_name or ''}".upper()
        if symbol == q:
            rank = 0
        elif symbol.lstrip("^").startswith(q.lstrip("^")):
            rank = 1
        elif re.search(r"(^|[^A-Z0-9])" + re.escape(q), names):
            rank = 2
        elif q in names:
            rank = 3
        else:
            continue
        ranked.append((rank, len(symbol), symbol, inst))
    ranked.sort(key=lambda r: r[:3])
    found = [r[3] for r in ranked]
    if not any(r[0] == 0 for r in ranked) and is_known_symbol(q) and not any(
            r[0] == 2 for r in ranked):
        inst = get_instrument(q)
        if inst is not None:
            found.insert(0, inst)
    return found


def _quote(inst: Instrument, rank: int, logo: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "exchange": inst.exchange.code,
        "shortname": inst.short_name,
        "quoteType": inst.kind,
        "symbol": inst.symbol,
        "index": "quotes",
        "score": (3_000_000 if rank == 0 else 20_000) + int(unit("score", inst.symbol) * 900),
        "typeDisp": TYPE_DISP.get(inst.kind, inst.kind.title()),
    }
    if inst.long_name:
        out["longname"] = inst.long_name
    out["exchDisp"] = _EXCH_DISP.get(inst.exchange.code, inst.exchange.full_name)
    if inst.kind == EQUITY and inst.sector:
        out.update({"sector": inst.sector, "sectorDisp": inst.sector,
                    "industry": inst.industry, "industryDisp": inst.industry,
                    "dispSecIndFlag": True})
    if logo and inst.kind == EQUITY:
        # Yahoo sends a brand logo (150x150) for the equities it has one for.
        out["logoUrl"] = f"https://s.yimg.com/sandbox/brands/150x150_{_logo_slug(inst)}.png"
    out["isYahooFinance"] = True
    return out


def _logo_slug(inst: Instrument) -> str:
    return inst.symbol.lower().replace("^", "").replace("=", "-").replace(".", "-")


# -- research reports ------------------------------------------------------------------------
_REPORT_PROVIDERS = ("Sandbox Research", "Synthetic Analytics")
_REPORT_HEADLINES = (
    "{name}: raising our fair value estimate after the quarter",
    "{name}: margins hold up as demand normalises",
    "{name}: maintaining our rating into the next earnings report",
)
_REPORT_PERIOD = 7 * 86400


def research_reports(topic: Instrument | None, now: int, count: int = 2) -> list[dict[str, Any]]:
    """The newest analyst reports on an equity (none for other kinds or no topic):
    ``{reportHeadline, author, reportDate (epoch milliseconds), id, provider}``, one a
    week."""
    if topic is None or topic.kind != EQUITY:
        return []
    out: list[dict[str, Any]] = []
    k = now // _REPORT_PERIOD
    while len(out) < count and k >= 0:
        published = k * _REPORT_PERIOD + int(unit("report-jitter", topic.symbol, k) * 86400)
        if published <= now:
            out.append({
                "reportHeadline": _rotate(_REPORT_HEADLINES, topic.symbol, k).format(
                    name=_name(topic)),
                "author": pick(("A. Analyst", "B. Researcher", "C. Strategist"), "author",
                               topic.symbol, k),
                "reportDate": published * 1000,
                "id": f"SBX_{stable_hash('report', topic.symbol, k) % 10**10:010d}",
                "provider": pick(_REPORT_PROVIDERS, "report-provider", topic.symbol, k),
            })
        k -= 1
    return out


# -- news ------------------------------------------------------------------------------------
def _uuid(*parts: object) -> str:
    h = f"{stable_hash('news-uuid', *parts):016x}{stable_hash('news-uuid2', *parts):016x}"
    return f"{h[:8]}-{h[8:12]}-3{h[13:16]}-{h[16:20]}-{h[20:32]}"


def _rotate(titles: tuple[str, ...], key: str, k: int) -> str:
    """Consecutive articles of a topic get different headlines."""
    return titles[(stable_hash("titles", key) + k) % len(titles)]


def _article(topic: Instrument | None, k: int, published: int) -> dict[str, Any]:
    key = topic.symbol if topic else "market"
    if topic is not None:
        title = _rotate(_TOPIC_TITLES, key, k).format(name=_name(topic), symbol=topic.symbol)
        related = [topic.symbol]
        peer = pick(list(FAMOUS), "peer", key, k)
        if unit("peer?", key, k) < 0.3 and peer != topic.symbol:
            related.append(peer)
    else:
        title = _rotate(_MARKET_TITLES, key, k)
        related = list(pick(_MARKET_TICKERS, "tickers", key, k))
    publisher = pick(_PUBLISHERS, "publisher", key, k)
    video = "Video" in publisher
    uuid = _uuid(key, k)
    slug = "-".join(_SLUG.sub(" ", title.lower()).split()[:6])
    item: dict[str, Any] = {
        "uuid": uuid,
        "title": title,
        "publisher": publisher,
        "link": f"https://finance.sandbox.invalid/{'video' if video else 'news'}/"
                f"{slug}-{stable_hash('link', key, k) % 10**9:09d}.html",
        "providerPublishTime": published,
        "type": "VIDEO" if video else "STORY",
    }
    if unit("thumb", key, k) >= 1 / 7:
        width, height = pick(_SIZES, "size", key, k)
        base = f"https://img.sandbox.invalid/news/{uuid}"
        item["thumbnail"] = {"resolutions": [
            {"url": f"{base}/original.jpg", "width": width, "height": height,
             "tag": "original"},
            {"url": f"{base}/140x140.jpg", "width": 140, "height": 140, "tag": "140x140"},
        ]}
    if related:
        item["relatedTickers"] = related
    return item


def news_for(topic: Instrument | None, now: int, count: int) -> list[dict[str, Any]]:
    """The newest ``count`` articles of the topic's stream published by ``now``."""
    key = topic.symbol if topic else "market"
    period = 1800 if topic is None else int(3600 * (2 + 4 * unit("news-period", key)))
    out: list[dict[str, Any]] = []
    k = now // period
    while len(out) < count and k >= 0:
        published = k * period + int(unit("news-jitter", key, k) * period * 0.8)
        if published <= now:
            out.append(_article(topic, k, published))
        k -= 1
    return out


# -- endpoint --------------------------------------------------------------------------------
def _count(req: Request, name: str, default: int) -> int:
    try:
        value = int(req.arg(name) or default)
    except ValueError:
        value = default
    return max(0, min(MAX_COUNT, value))


def _flag(req: Request, name: str) -> bool:
    return (req.arg(name) or "").lower() == "true"


def handle_search(req: Request) -> SandboxResponse:
    query = req.arg("q")
    if query is None or not query.strip():
        return finance_error("Bad Request", "Missing required query parameter: q", 400)
    quotes_count = _count(req, "quotesCount", 6)
    news_count = _count(req, "newsCount", 4)
    matches = match_instruments(query)
    norm = " ".join(query.split()).upper()
    logo = _flag(req, "enableLogoUrl")
    quotes = [_quote(inst, 0 if inst.symbol == norm else 1, logo)
              for inst in matches[:quotes_count]]
    news = news_for(matches[0] if matches else None, req.now(), news_count)
    reports = (research_reports(matches[0] if matches else None, req.now())
               if _flag(req, "enableResearchReports") else [])
    spent = 20 + stable_hash("took", norm) % 60
    return json_response({
        "explains": [], "count": len(quotes) + len(news) + len(reports), "quotes": quotes,
        "news": news,
        "nav": [], "lists": [], "researchReports": reports, "screenerFieldResults": [],
        "totalTime": spent, "timeTakenForQuotes": 400 + spent % 30,
        "timeTakenForNews": 700 if news_count else 0, "timeTakenForAlgowatchlist": 400,
        "timeTakenForPredefinedScreener": 400, "timeTakenForCrunchbase": 0,
        "timeTakenForNav": 0, "timeTakenForResearchReports": 90 if reports else 0,
        "timeTakenForScreenerField": 0, "timeTakenForCulturalAssets": 0,
        "timeTakenForSearchLists": 0,
    })
