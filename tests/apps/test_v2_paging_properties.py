"""Property tests over every paged v2 endpoint, in sandbox mode (the real parsers run).

For random ``limit`` values, following ``pageInfo.endCursor`` from the first page must visit
every item of the unpaged answer exactly once, in order; ``fields`` must never return a
member that was not requested, other than the documented always-present ones, and must
return every requested one (null when there is no value).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from apps.charts.services import Chart
from apps.core.v2 import encode_cursor
from marketdata.indicators.indicator_set import IndicatorSet
from marketdata.providers.yahoo.full_quote import QUOTE_MEMBERS
from marketdata.records.institutions import InstitutionalFiler
from marketdata.records.members import member_names


@dataclass(frozen=True)
class Paged:
    """One paged endpoint: its URL, where the paged list sits (None: the body itself), and
    for the ``fields`` property the members of an item that ``fields`` filters (``within``:
    the member of each item that holds them, for batch wrappers), plus the members always
    present."""

    url: str
    member: str | None
    members: tuple[str, ...] = ()
    within: str | None = None
    always: tuple[str, ...] = ()

    def with_query(self, extra: str) -> str:
        return self.url + ("&" if "?" in self.url else "?") + extra


PAGED = [
    Paged("/v2/indicators?symbols=AAPL,MSFT,SPY,QQQ,NVDA&range=3mo", "indicators",
          member_names(IndicatorSet), within="indicators"),
    Paged("/v2/quotes?symbols=AAPL,MSFT,SPY,QQQ,NVDA,KO", "quotes", tuple(QUOTE_MEMBERS),
          always=("symbol",)),
    Paged("/v2/charts?symbols=AAPL,MSFT,SPY,QQQ,NVDA&range=5d", "charts",
          tuple(m for m in member_names(Chart) if m not in ("events", "patterns")), within="chart"),
    Paged("/v2/chart/AAPL?range=3mo", "candles"),
    Paged("/v2/analysis/AAPL/recommendations", "trend"),
    Paged("/v2/analysis/AAPL/upgrades-downgrades", "history"),
    Paged("/v2/analysis/AAPL/earnings-estimate", "trend"),
    Paged("/v2/analysis/AAPL/earnings-history", "history"),
    Paged("/v2/holders/AAPL/institutional", "ownershipList"),
    Paged("/v2/holders/AAPL/mutualfund", "ownershipList"),
    Paged("/v2/holders/AAPL/insider-transactions", "transactions"),
    Paged("/v2/holders/AAPL/insider-roster", "holders"),
    # `fields` selects the holdings answer's own members, not the rows': paging only
    Paged("/v2/filings/1067983/13f?period=2024-06-30", "holdings"),
    Paged("/v2/filings/13f/search?name=capital", None, member_names(InstitutionalFiler),
          always=("cik",)),
]
_IDS = [p.url for p in PAGED]
_SETTINGS = settings(max_examples=12, deadline=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture])


def _items(body: Any, endpoint: Paged) -> Any:
    return body if endpoint.member is None else body[endpoint.member]


def _get(api, url: str) -> Any:
    response = api.get(url)
    assert response.status_code == 200, (url, response.content[:300])
    return response.json()


@pytest.mark.parametrize("endpoint", PAGED, ids=_IDS)
@_SETTINGS
@given(limit=st.integers(min_value=1, max_value=9))
def test_following_end_cursor_visits_every_item_once(api, sandbox_upstream, endpoint, limit):
    everything = _items(_get(api, endpoint.url), endpoint)
    assert isinstance(everything, list) and everything, endpoint.url
    seen: list[Any] = []
    cursor = None
    for _ in range(len(everything) + 2):
        query = f"limit={limit}" + (f"&cursor={cursor}" if cursor else "")
        connection = _items(_get(api, endpoint.with_query(query)), endpoint)
        assert [edge["node"] for edge in connection["edges"]] == connection["nodes"]
        assert len(connection["nodes"]) <= limit
        assert connection["pageInfo"]["hasPreviousPage"] is (cursor is not None)
        seen.extend(connection["nodes"])
        if not connection["pageInfo"]["hasNextPage"]:
            break
        cursor = connection["pageInfo"]["endCursor"]
    assert seen == everything


@pytest.mark.parametrize("endpoint", [p for p in PAGED if p.members],
                         ids=[p.url for p in PAGED if p.members])
@_SETTINGS
@given(data=st.data())
def test_fields_never_returns_an_unrequested_member(api, sandbox_upstream, endpoint, data):
    asked = data.draw(st.lists(st.sampled_from((*endpoint.members, "bogus", "")),
                               min_size=1, max_size=6))
    known = set(asked) & set(endpoint.members)
    items = _items(_get(api, endpoint.with_query("fields=" + ",".join(asked))), endpoint)
    assert items
    for item in items:
        filtered = item[endpoint.within] if endpoint.within else item
        if known:
            assert set(filtered) == known | set(endpoint.always), (asked, sorted(filtered))
        else:  # nothing known asked for: everything
            assert set(filtered) >= set(endpoint.members) - {"bogus"}


# -- order: time-ordered lists ----------------------------------------------------------------
def _moment(text: str) -> datetime:
    """An ISO 8601 time with or without an offset (FMP's wall time), compared as a moment."""
    moment = datetime.fromisoformat(text)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass(frozen=True)
class Ordered:
    """A time-ordered list with ``order``: its URL, where the list sits (None: the body),
    the member of an item that dates it (or a function of the item), the list's default
    order, whether ``cursor``/``limit`` page it, and the names of those two parameters."""

    url: str
    member: str | None
    key: str | Callable[[Any], Any]
    default: str
    paged: bool = True
    page: tuple[str, str] = ("cursor", "limit")

    def with_query(self, extra: str) -> str:
        return self.url + ("&" if "?" in self.url else "?") + extra

    def when(self, item: Any) -> Any:
        return self.key(item) if callable(self.key) else item[self.key]

    def paging(self, limit: int, cursor: str | None = None) -> str:
        name, size = self.page
        return f"{size}={limit}" + (f"&{name}={cursor}" if cursor else "")


ORDERED = [
    Ordered("/v2/macro/series/DGS10", "observations", "date", "asc"),
    Ordered("/v2/macro/treasury-yields?year=2024", None, "date", "desc"),
    Ordered("/v2/positioning/cot/GC=F", "observations", "reportDate", "asc"),
    Ordered("/v2/filings/AAPL", "filings", "filingDate", "desc"),
    Ordered("/v2/filings/AAPL/fails-to-deliver", None, "date", "desc"),
    Ordered("/v2/filings/AAPL/insiders?start=2024-01-01&end=2025-06-30", "transactions",
            "transactionDate", "desc"),
    Ordered("/v2/short/AAPL/volume", "rows", "date", "desc"),
    Ordered("/v2/short/AAPL/interest", "settlements", "settlementDate", "desc"),
    # ordered by value, not time: `desc` largest first
    Ordered("/v2/filings/1067983/13f?period=2024-06-30", "holdings", "value", "desc"),
    Ordered("/v2/news?count=30", None, "providerPublishTime", "desc"),
    Ordered("/v2/worldnews/news/AAPL", None, "time", "desc"),
    Ordered("/v2/dividends/AAPL", "dividends", "timestamp", "asc"),
    Ordered("/v2/splits/NVDA", None, "timestamp", "asc", paged=False),
    Ordered("/v2/chart/AAPL?range=3mo", "candles", "timestamp", "asc"),
    Ordered("/v2/feeds", None, lambda entry: _moment(entry["published"]), "desc"),
    Ordered("/v2/crypto/news", None, lambda article: _moment(article["time"]), "desc",
            page=("pageCursor", "pageLimit")),
    Ordered("/v2/forex/news", None, lambda article: _moment(article["time"]), "desc",
            page=("pageCursor", "pageLimit")),
    Ordered("/v2/grading-actions/AAPL", None, "date", "desc"),
    Ordered("/v2/press-releases/AAPL", None, "date", "desc", paged=False),
    Ordered("/v2/earnings-surprises/AAPL", "surprises", "date", "desc", paged=False),
    Ordered("/v2/transcripts/AAPL/all", None, lambda call: (call["year"], call["quarter"]),
            "desc"),
    Ordered("/v2/capital-gains/VTSAX", None, "timestamp", "asc", paged=False),
    Ordered("/v2/calendar?symbols=AAPL,MSFT&range=3mo", None, "timestamp", "asc",
            paged=False),
    Ordered("/v2/holders/AAPL/insider-transactions", "transactions", "startDate", "desc"),
    Ordered("/v2/analysis/AAPL/upgrades-downgrades", "history", "epochGradeDate", "desc"),
    Ordered("/v2/analysis/AAPL/earnings-history", "history", "quarter", "asc"),
    Ordered("/v2/analysis/AAPL/recommendations", "trend",
            lambda month: int(month["period"].removesuffix("m")), "desc"),
]
_ORDERED_IDS = [o.url for o in ORDERED]
_PAGED_ORDERED = [o for o in ORDERED if o.paged]


def _list(body: Any, endpoint: Ordered) -> Any:
    return body if endpoint.member is None else body[endpoint.member]


@pytest.mark.parametrize("endpoint", ORDERED, ids=_ORDERED_IDS)
def test_order_desc_gives_the_newest_first(api, sandbox_upstream, endpoint):
    """``order=desc`` (with ``limit=5`` where the list is paged) gives the newest five,
    newest first; ``order=asc`` the oldest; the default is the documented one."""
    default = _list(_get(api, endpoint.url), endpoint)
    asc = _list(_get(api, endpoint.with_query("order=asc")), endpoint)
    desc = _list(_get(api, endpoint.with_query("order=desc")), endpoint)
    assert len(asc) >= 2 and desc == asc[::-1]
    assert default == (asc if endpoint.default == "asc" else desc)
    keys = [endpoint.when(item) for item in desc]
    assert keys == sorted(keys, reverse=True), keys[:10]
    if endpoint in _PAGED_ORDERED:
        newest = _list(_get(api, endpoint.with_query("order=desc&" + endpoint.paging(5))),
                       endpoint)
        assert newest["nodes"] == desc[:5]
        assert newest["pageInfo"]["hasNextPage"] is (len(desc) > 5)


@pytest.mark.slow("walks DGS10's ~9,000 observations page by page, 12 examples")
@pytest.mark.parametrize("endpoint", _PAGED_ORDERED, ids=[o.url for o in _PAGED_ORDERED])
@_SETTINGS
@given(limit=st.integers(min_value=1, max_value=9), order=st.sampled_from(("asc", "desc")))
def test_walking_one_order_gives_the_other_reversed(api, sandbox_upstream, endpoint, limit,
                                                    order):
    other = "desc" if order == "asc" else "asc"
    everything = _list(_get(api, endpoint.with_query(f"order={other}")), endpoint)
    # At most ~4 pages: the walk of a long list (DGS10 has ~9,000 days) starts near its end.
    skip = max(len(everything) - 4 * limit, 0)
    cursor = encode_cursor(skip - 1, order != endpoint.default) if skip else None
    seen: list[Any] = []
    for _ in range(len(everything) + 2):
        query = f"order={order}&" + endpoint.paging(limit, cursor)
        connection = _list(_get(api, endpoint.with_query(query)), endpoint)
        assert [edge["node"] for edge in connection["edges"]] == connection["nodes"]
        seen.extend(connection["nodes"])
        if not connection["pageInfo"]["hasNextPage"]:
            break
        cursor = connection["pageInfo"]["endCursor"]
    assert seen == everything[::-1][skip:]


@pytest.mark.parametrize("endpoint", ORDERED, ids=_ORDERED_IDS)
@pytest.mark.parametrize("value", ["", "up", "DESC", "ascending"])
def test_invalid_order_is_400_before_any_upstream_call(api, sandbox_upstream, endpoint, value):
    response = api.get(endpoint.with_query(f"order={value}"))
    assert response.status_code == 400, response.content
    assert response.json() == {"error": "order: Input should be 'asc' or 'desc'", "status": 400}
    assert sandbox_upstream.request_log == []


@pytest.mark.parametrize("endpoint", _PAGED_ORDERED, ids=[o.url for o in _PAGED_ORDERED])
def test_a_cursor_of_the_other_order_is_400(api, sandbox_upstream, endpoint):
    for order, other in (("asc", "desc"), ("desc", "asc")):
        cursor = _list(_get(api, endpoint.with_query(f"order={order}&{endpoint.paging(2)}")),
                       endpoint)["pageInfo"]["endCursor"]
        sandbox_upstream.reset_log()
        name = endpoint.page[0]
        response = api.get(endpoint.with_query(f"order={other}&{name}={cursor}"))
        assert response.status_code == 400, response.content
        body = response.json()
        assert body["status"] == 400 and body["error"].startswith(
            f"{name}: Cursor from a page of the other order"), body
        assert sandbox_upstream.request_log == []


@pytest.mark.parametrize("url", ["/v2/holders/AAPL/institutional",
                                 "/v2/holders/AAPL/major",
                                 "/v2/holders/AAPL/insider-roster",
                                 "/v2/analysis/AAPL/earnings-estimate"])
def test_order_has_no_effect_on_a_module_type_that_is_not_time_ordered(api, sandbox_upstream,
                                                                       url):
    """The module endpoints' `order` applies to their time-ordered types (its default is
    each type's own order); another type ignores it, as a type without a list ignores
    `cursor`/`limit`: neither order reverses a list that is not ordered in time."""
    plain = _get(api, url)
    assert _get(api, f"{url}?order=asc") == plain
    assert _get(api, f"{url}?order=desc") == plain
    paged = _get(api, f"{url}?limit=2")
    for order in ("asc", "desc"):
        assert _get(api, f"{url}?limit=2&order={order}") == paged
