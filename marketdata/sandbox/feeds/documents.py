"""Every publisher's feed of :mod:`marketdata.records.feeds`, as a deterministic RSS 2.0 or
Atom 1.0 document.

Why these values: the feeds endpoint reads, merges and sorts documents of both kinds, with
dates in several offsets, so the sandbox sends both: Atom for the SEC's EDGAR filings feed
(as EDGAR does) and for every third publisher of the table, RSS 2.0 for the rest. Each
feed has :data:`ENTRIES` items, one every few hours back from the sandbox clock (the hour,
floored, so the document is the same all hour), newest first; their dates carry the
publisher's offset (``-0500``/``-05:00`` for the US ones, ``+0100`` for the ECB,
``+0000`` for the others), so text order and time order differ. Headlines are drawn,
seeded by (publisher, hour), from a list per beat (central banks, crypto, markets,
technology); links point at the publisher's host with a slug of the headline. The EDGAR
feed lists the sandbox's filers with the asked form type (``type``, default 10-K).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from email.utils import format_datetime
from urllib.parse import urlsplit
from xml.sax.saxutils import escape

from marketdata.records.feeds import PUBLISHERS, Publisher
from marketdata.sandbox.common import Request, text_response
from marketdata.sandbox.instruments import pick, stable_hash
from marketdata.sandbox.response import SandboxResponse

ENTRIES = 8
_ATOM = frozenset({"sec-filings"} | {p.slug for i, p in enumerate(PUBLISHERS) if i % 3 == 2})
_US = frozenset({"federal-reserve", "sec", "sec-filings", "marketwatch", "cnbc", "bloomberg",
                 "nyt", "bea", "cfpb", "wsj", "fortune", "businesswire", "calculated-risk",
                 "ritholtz", "hackernews", "techcrunch", "venturebeat", "yc"})
_CET = frozenset({"ecb"})
_BEATS = {
    "central": ("Central bank holds policy rate steady, signals patience on cuts",
                "Officials see inflation easing but warn of sticky services prices",
                "Minutes show policymakers divided over the pace of balance sheet runoff",
                "Board announces results of annual bank stress test",
                "Governor says labor market remains strong despite slower hiring",
                "Policy statement: rates unchanged, outlook for growth revised lower"),
    "crypto": ("Bitcoin rallies to record high as ETF inflows surge",
               "Ether slips as network fees fall to multi-year low",
               "Stablecoin issuer publishes reserve attestation",
               "Crypto lender files for bankruptcy after withdrawals freeze",
               "Exchange lists new token amid strong trading volume",
               "Regulators propose rules for digital asset custody"),
    "markets": ("Stocks climb as strong earnings lift technology shares",
                "Treasury yields fall after weak jobs report",
                "Oil drops on rising inventories and weaker demand outlook",
                "Dollar gains against euro as rate expectations shift",
                "Shares of retailer plunge after profit warning",
                "Investors cheer upbeat guidance from chipmakers"),
    "tech": ("Startup raises Series B to expand AI developer tools",
             "Chipmaker unveils faster processor for data centers",
             "Cloud provider reports outage affecting thousands of customers",
             "Open-source project reaches one million downloads",
             "Founders share lessons from scaling a marketplace",
             "Software maker beats estimates on subscription growth"),
}
_BEAT_OF = {"federal-reserve": "central", "ecb": "central", "boe": "central",
            "bea": "central", "cfpb": "central", "sec": "central", "coindesk": "crypto",
            "cointelegraph": "crypto", "techcrunch": "tech", "hackernews": "tech",
            "venturebeat": "tech", "yc": "tech"}
_FILERS = (("APPLE INC", "0000320193"), ("MICROSOFT CORP", "0000789019"),
           ("NVIDIA CORP", "0001045810"), ("AMAZON COM INC", "0001018724"),
           ("ALPHABET INC.", "0001652044"), ("JPMORGAN CHASE & CO", "0000019617"),
           ("EXXON MOBIL CORP", "0000034088"), ("WALMART INC.", "0000104169"))


def publisher_at(host: str, path: str) -> Publisher | None:
    """The publisher whose feed URL has this host and path (the query is not compared)."""
    for publisher in PUBLISHERS:
        parts = urlsplit(publisher.url)
        if parts.hostname == host and parts.path.rstrip("/") == path.rstrip("/"):
            return publisher
    return None


def _zone(slug: str) -> timezone:
    if slug in _US:
        return timezone(timedelta(hours=-5))
    if slug in _CET:
        return timezone(timedelta(hours=1))
    return UTC


def _slugify(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def entries(publisher: Publisher, now: datetime, form_type: str) -> list[dict[str, object]]:
    """``{title, link, published (aware), summary}`` newest first (see the module doc)."""
    hour = now.astimezone(UTC).replace(minute=0, second=0, microsecond=0)
    host = urlsplit(publisher.url).hostname
    out: list[dict[str, object]] = []
    when = hour
    for index in range(ENTRIES):
        when = when - timedelta(hours=1 + stable_hash(publisher.slug, hour, index) % 5)
        if publisher.takes_form_type:
            name, cik = _FILERS[(stable_hash(hour, index) % len(_FILERS))]
            title = f"{form_type} - {name} ({cik}) (Filer)"
            link = (f"https://www.sec.gov/Archives/edgar/data/{int(cik)}/"
                    f"{cik}{when:%y}{index:06d}-index.htm")
            summary = f"<b>Filed:</b> {when:%Y-%m-%d} <b>AccNo:</b> {cik}-{when:%y}-{index:06d}"
        else:
            title = pick(_BEATS[_BEAT_OF.get(publisher.slug, "markets")], publisher.slug,
                         hour, index)
            link = f"https://{host}/news/{when:%Y/%m/%d}/{_slugify(title)}-{index}"
            summary = f"<p>{title}. Reported by {publisher.display_name(form_type)}.</p>"
        out.append({"title": title, "link": link, "summary": summary,
                    "published": when.astimezone(_zone(publisher.slug))})
    return out


def rss(publisher: Publisher, items: list[dict[str, object]]) -> str:
    body = "".join(
        f"<item><title>{escape(str(i['title']))}</title><link>{escape(str(i['link']))}</link>"
        f"<guid isPermaLink=\"true\">{escape(str(i['link']))}</guid>"
        f"<pubDate>{format_datetime(i['published'])}</pubDate>"  # type: ignore[arg-type]
        f"<description>{escape(str(i['summary']))}</description></item>"
        for i in items)
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel>'
            f"<title>{escape(publisher.name)}</title><link>{escape(publisher.url)}</link>"
            f"<description>{escape(publisher.name)} (sandbox)</description>{body}"
            "</channel></rss>")


def atom(publisher: Publisher, items: list[dict[str, object]], form_type: str) -> str:
    body = "".join(
        f"<entry><title>{escape(str(i['title']))}</title>"
        f"<link rel=\"alternate\" type=\"text/html\" href=\"{escape(str(i['link']))}\"/>"
        f"<id>{escape(str(i['link']))}</id>"
        f"<updated>{i['published'].isoformat()}</updated>"  # type: ignore[attr-defined]
        f"<summary type=\"html\">{escape(str(i['summary']))}</summary></entry>"
        for i in items)
    updated = items[0]["published"].isoformat() if items else ""  # type: ignore[attr-defined]
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<feed xmlns="http://www.w3.org/2005/Atom">'
            f"<title>{escape(publisher.display_name(form_type))}</title>"
            f"<id>{escape(publisher.url)}</id><updated>{updated}</updated>{body}</feed>")


def handle_feed(req: Request) -> SandboxResponse:
    """The feed at the request's host and path; 404 for any other path."""
    publisher = publisher_at(req.upstream_host or req.host, req.path)
    if publisher is None:
        return text_response("Not Found", 404, content_type="text/html;charset=utf-8")
    form_type = (req.arg("type") or "10-K") if publisher.takes_form_type else "10-K"
    items = entries(publisher, req.clock(), form_type)
    if publisher.slug in _ATOM:
        return text_response(atom(publisher, items, form_type),
                             content_type="application/atom+xml;charset=utf-8")
    return text_response(rss(publisher, items), content_type="application/rss+xml;charset=utf-8")
