"""CSV of the tabular endpoints (issue 27, item 4): ``Accept: text/csv`` or ``format=csv``.

Every CSV answer is checked against the JSON answer of the same URL, parsed independently:
the header row is the JSON records' member names (nested objects as dotted names), each cell
the JSON value as the JSON body writes it (null empty). Then ``fields``, paging (``Link``),
negotiation with q-values, 406 and 400/422 on the other endpoints, errors always JSON, and
the response cache keeping the two representations apart on both serving paths. Sandbox
mode throughout; a hypothesis property checks that any table parses back to its strings.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.core import tabular
from tests.config.fastpath_client import django_path, fast_path

CSV_TYPE = "text/csv; charset=utf-8; header=present"
CSV_ACCEPT = {"HTTP_ACCEPT": "text/csv"}
FMP_KEY = "0123456789abcdef0123456789abcdef"


# -- reading both answers independently -----------------------------------------------------
def _nodes(value: Any) -> list[Any]:
    """A bare list, or a connection's nodes."""
    return value["nodes"] if isinstance(value, dict) and "nodes" in value else value


def _flat(record: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in record.items():
        if isinstance(value, dict) and value:
            out.update(_flat(value, f"{prefix}{name}."))
        else:
            out[f"{prefix}{name}"] = value
    return out


def _chart_rows(body: dict) -> list[dict]:
    candles = _nodes(body["candles"])
    patterns = _nodes(body["patterns"]) if "patterns" in body else None
    return [{**c, **({"patterns": patterns[i]} if patterns is not None else {})}
            for i, c in enumerate(candles)]


def _nested(outer: str, inner: str, carry: str) -> Callable[[Any], list[dict]]:
    return lambda body: [{carry: item[carry], **row} for item in _nodes(body[outer])
                         for row in _nodes(item[inner])]


def _member(name: str) -> Callable[[Any], list[dict]]:
    return lambda body: _nodes(body[name])


def _top(body: Any) -> list[dict]:
    return _nodes(body)


# (target, the JSON answer's records) for every CSV endpoint.
SAMPLES: list[tuple[str, Callable[[Any], list[dict]]]] = [
    ("/v1/historical?symbol=AAPL&range=1mo&interval=1d",
     lambda body: [{"date": key, **bar} for key, bar in body.items()]),
    ("/v2/chart/AAPL?range=5d", _chart_rows),
    ("/v2/chart/AAPL?range=1mo&patterns=true&limit=5", _chart_rows),
    ("/v2/capital-gains/VFIAX", _top),
    ("/v2/capital-gains?symbols=VFIAX,AAPL", _nested("capitalGains", "capitalGains", "symbol")),
    ("/v2/dividends/KO?range=5y", _member("dividends")),
    ("/v2/dividends?symbols=KO,SPY&range=2y", _nested("dividends", "dividends", "symbol")),
    ("/v2/splits/KO", _top),
    ("/v2/options/AAPL/greeks?moneyness=0.9,1.1", _member("contracts")),
    ("/v2/options/SPY/surface?expirations=2", _member("grid")),
    ("/v2/splits?symbols=AAPL,KO", _nested("splits", "splits", "symbol")),
    ("/v2/macro/series/CPIAUCSL?limit=20", _member("observations")),
    ("/v2/macro/treasury-yields", _top),
    ("/v2/positioning/cot/GC=F?limit=10", _member("observations")),
    ("/v2/screeners/day-gainers?count=5", _member("quotes")),
    ("/v2/screeners/most-actives?count=3&format=both", _member("quotes")),
    ("/v2/financials/AAPL/income?metrics=TotalRevenue,NetIncome",
     lambda body: [{"metric": item["metric"], **value} for item in body
                   for value in item["values"]]),
    ("/v2/filings/AAPL?limit=5", _member("filings")),
    ("/v2/filings/AAPL/fails-to-deliver", _top),
    ("/v2/filings/AAPL/insiders?start=2024-01-01&end=2025-06-30", _member("transactions")),
    ("/v2/filings/AAPL/congressional-trades", _top),
    ("/v2/etf/DIA/holdings", _member("holdings")),
    ("/v2/short/AAPL/volume", _member("rows")),
    ("/v2/short/AAPL/interest", _member("settlements")),
    ("/v2/filings/1067983/13f?period=2024-06-30", _member("holdings")),
    ("/v2/filings/13f/search?name=capital", _top),
    ("/v2/crypto/coins?count=5", _top),
    ("/v2/crypto/trending", _top),
    ("/v2/calendar?symbols=AAPL,MSFT,KO&range=3mo", _top),
    ("/v2/calendars/earnings?start=2025-01-20&end=2025-01-31", _top),
    ("/v2/calendars/dividends?symbols=AAPL,KO&start=2025-01-01&end=2025-03-31", _top),
    ("/v2/calendars/splits?start=2020-08-25&end=2020-09-05", _top),
    ("/v2/calendars/ipos?start=2025-03-03&end=2025-03-14", _top),
    ("/v2/calendars/economic?start=2025-03-03&end=2025-03-14", _top),
    ("/v2/press-releases/AAPL?limit=3", _top),
    ("/v2/grading-actions/AAPL", _top),
    ("/v2/earnings-surprises/AAPL", _member("surprises")),
    ("/v2/index-constituents/%5EDJI", _top),
    ("/v2/currencies", _top),
    ("/v2/trending?region=US", _top),
]


@pytest.fixture
def sandbox(sandbox_upstream, settings):
    settings.FMP_API_KEY = FMP_KEY  # congressional trades are keyed (the sandbox serves them)
    return sandbox_upstream


def parse_csv(response) -> list[list[str]]:
    """RFC 4180 text: CRLF after every row (the last included), read by the csv module."""
    text = response.content.decode("utf-8")
    assert text.endswith("\r\n")
    assert "\n" not in text.replace("\r\n", "") or '"' in text  # bare LF only inside quotes
    return list(csv.reader(io.StringIO(text, newline="")))


def reads_as_number(text: str) -> bool:
    """Whether a spreadsheet reads a signed ``text`` as a plain number (``-1.20``,
    ``+0.69%``, ``-1,234.5``, ``+1e-7``): a sign, digits (thousands in groups of three after
    commas), an optional fraction and exponent, an optional ``%``, and nothing else."""
    body = text[1:].removesuffix("%")
    if text[:1] not in ("+", "-") or not body.isascii():
        return False
    mantissa, marker, exponent = body.lower().partition("e")
    if marker and not exponent.removeprefix("+").removeprefix("-").isdigit():
        return False
    whole, _, fraction = mantissa.partition(".")
    if fraction and not fraction.isdigit():
        return False
    if not whole:
        return fraction != ""
    head, *groups = whole.split(",")
    return head.isdigit() and (not groups or (len(head) <= 3 and all(
        len(group) == 3 and group.isdigit() for group in groups)))


def expected_text(text: str) -> str:
    """A text cell as the CSV writes it (OWASP's CSV-injection rule): ``'`` before text a
    spreadsheet would run as a formula: a start of ``=``, ``@``, tab, CR, LF or NUL, or of
    ``+``/``-`` when the text is not a plain signed number."""
    if text[:1] in ("=", "@", "\t", "\r", "\n", "\0") or (
            text[:1] in ("+", "-") and not reads_as_number(text)):
        return "'" + text
    return text


def expected_cell(value: Any) -> str:
    """What the JSON body has for a value: "" for null, the string (neutralised:
    :func:`expected_text`), else the JSON token."""
    if value is None:
        return ""
    if isinstance(value, str):
        return expected_text(value)
    return orjson.dumps(value).decode()


def assert_same_table(csv_response, records: list[dict]) -> list[str]:
    rows = [_flat(record) for record in records]
    header, *body = parse_csv(csv_response)
    columns = list(dict.fromkeys(name for row in rows for name in row))
    if rows:
        assert header == [expected_text(name) for name in columns]
    assert len(body) == len(rows)
    for line, row in zip(body, rows, strict=True):
        assert line == [expected_cell(row.get(name)) for name in columns], (line, row)
        for cell, name in zip(line, columns, strict=True):
            value = row.get(name)
            if isinstance(value, float) and not isinstance(value, bool):
                assert float(cell) == value  # the same number, read back
    return header


@pytest.fixture(autouse=True)
def _one_minute_for_the_option_analytics(monkeypatch):
    """The JSON and the CSV of a greeks or surface answer are two computations: at one
    time, as two requests within a minute are (apps.options.analytics.now)."""
    from apps.options import analytics

    fixed = analytics.now()
    monkeypatch.setattr(analytics, "now", lambda: fixed)


@pytest.mark.parametrize(("target", "records"), SAMPLES, ids=[t for t, _ in SAMPLES])
def test_the_csv_is_the_json_as_a_table(api, sandbox, target, records):
    as_json = api.get(target)
    assert as_json.status_code == 200, (target, as_json.content[:300])
    json_rows = records(as_json.json())
    as_csv = api.get(target, **CSV_ACCEPT)
    assert as_csv.status_code == 200
    assert as_csv["Content-Type"] == CSV_TYPE
    assert "Accept" in as_csv["Vary"] and "Accept" in as_json["Vary"]
    header = assert_same_table(as_csv, json_rows)
    assert header, target
    # format=csv where the spec leaves `format` free: the same bytes.
    if tabular.offers_format_param(_view_of(target)):
        separator = "&" if "?" in target else "?"
        by_query = api.get(f"{target}{separator}format=csv")
        assert by_query.status_code == 200 and by_query.content == as_csv.content
        assert by_query["Content-Type"] == CSV_TYPE


def _view_of(target: str) -> type:
    from django.urls import resolve

    return resolve(target.split("?")[0].replace("%5E", "^")).func.cls


def test_the_samples_cover_every_csv_view():
    from django.urls import get_resolver

    def views(resolver):
        for pattern in resolver.url_patterns:
            if hasattr(pattern, "url_patterns"):
                yield from views(pattern)
            else:
                yield getattr(pattern.callback, "cls", None)

    tabular_views = {v for v in views(get_resolver()) if getattr(v, "csv_table", None)
                     is not None}
    sampled = {_view_of(t) for t, _ in SAMPLES}
    assert tabular_views == sampled


def test_json_is_unchanged_by_the_csv_offer(api, sandbox):
    target = "/v2/dividends/KO?range=5y&limit=3"
    plain = api.get(target)
    for accept in ("application/json", "*/*", "application/json, text/csv;q=0.9",
                   "text/csv;q=0.5, */*", "application/*", ""):
        answer = api.get(target, HTTP_ACCEPT=accept)
        assert answer.status_code == 200 and answer.content == plain.content, accept
        assert answer["Content-Type"] == "application/json"
        assert answer.get("Link") is None
    assert api.get(f"{target}&format=json", HTTP_ACCEPT="text/csv").content == plain.content


@pytest.mark.parametrize(("accept", "csv_wins"), [
    ("text/csv", True),
    ("text/csv; charset=utf-8", True),
    ("text/*", True),
    ("text/csv, application/json", True),  # equal q, equally specific: the first listed
    ("application/json, text/csv", False),
    ("application/json;q=0.5, text/csv", True),
    ("text/csv;q=0.1, application/json", False),
    ("text/csv, */*", True),  # the explicit type beats the wildcard at equal q
    ("*/*, text/csv;q=0.9", False),
    ("*/*", False),
    ("", False),
])
def test_negotiation_with_q_values(api, sandbox, accept, csv_wins):
    answer = api.get("/v2/splits/KO", HTTP_ACCEPT=accept)
    assert answer.status_code == 200
    assert answer["Content-Type"] == (CSV_TYPE if csv_wins else "application/json")
    assert (tabular.representation(accept) == "csv") == csv_wins


def test_fields_select_the_columns(api, sandbox):
    split = api.get("/v2/splits/KO?fields=ratio,timestamp", **CSV_ACCEPT)
    assert parse_csv(split)[0] == ["timestamp", "ratio"]  # the JSON's member order
    # A batch keeps its carried symbol.
    batch = api.get("/v2/dividends?symbols=KO&range=1y&fields=amount", **CSV_ACCEPT)
    assert parse_csv(batch)[0] == ["symbol", "amount"]
    # The chart's `fields` selects top-level members; in CSV it also names candle columns.
    chart = api.get("/v2/chart/AAPL?range=5d&fields=close,volume", **CSV_ACCEPT)
    rows = parse_csv(chart)
    assert rows[0] == ["close", "volume"] and len(rows) > 1
    full = api.get("/v2/chart/AAPL?range=5d&fields=candles", **CSV_ACCEPT)
    assert parse_csv(full)[0] == ["timestamp", "open", "high", "low", "close", "adjClose",
                                  "volume"]
    # A member asked for is a column even when null everywhere; an object is its parts.
    screener = api.get("/v2/screeners/day-gainers?count=3&format=both"
                       "&fields=symbol,regularMarketPrice,preMarketPrice", **CSV_ACCEPT)
    header = parse_csv(screener)[0]
    assert header[0] == "symbol" and "regularMarketPrice.raw" in header
    assert "preMarketPrice" in header or "preMarketPrice.raw" in header
    as_json = api.get("/v2/screeners/day-gainers?count=3&format=both"
                      "&fields=symbol,regularMarketPrice,preMarketPrice").json()
    assert_same_table(screener, _nodes(as_json["quotes"]))


def test_an_empty_table_still_has_its_header(api, sandbox):
    answer = api.get("/v2/splits/AAPL?range=1d", **CSV_ACCEPT)
    assert answer.status_code == 200
    assert answer.content == b"timestamp,numerator,denominator,ratio\r\n"
    chart = api.get("/v2/chart/AAPL?range=5d&fields=meta", **CSV_ACCEPT)
    assert chart.content.startswith(b"timestamp,open,high,low,close,adjClose,volume")


def test_paging_links_to_the_next_page(api, sandbox):
    target = "/v2/macro/series/CPIAUCSL?limit=3"
    pages, json_rows = [], []
    link = target
    while link is not None and len(pages) < 4:
        answer = api.get(link, **CSV_ACCEPT)
        assert answer.status_code == 200
        pages.append(parse_csv(answer))
        json_rows.extend(api.get(link).json()["observations"]["nodes"])
        header = answer.get("Link")
        link = None
        if header is not None:
            assert header.startswith("</v2/macro/series/CPIAUCSL?") and \
                header.endswith('>; rel="next"')
            link = header[1:header.index(">")]
            assert "limit=3" in link and "cursor=" in link
    assert len(pages) == 4 and all(page[0] == ["date", "value"] for page in pages)
    csv_rows = [row for page in pages for row in page[1:]]
    assert csv_rows == [[r["date"], expected_cell(r["value"])] for r in json_rows]
    assert len(csv_rows) == 12
    # The last page has no Link; a page size past the end neither.
    everything = api.get("/v2/splits?symbols=KO&limit=5", **CSV_ACCEPT)
    assert everything.get("Link") is None
    last = api.get("/v2/crypto/trending?limit=1000", **CSV_ACCEPT)
    assert last.status_code == 200 and last.get("Link") is None
    # A batch pages over its symbols with its own parameter names kept in the link.
    batch = api.get("/v2/dividends?symbols=KO,SPY&range=1y&limit=1", **CSV_ACCEPT)
    assert batch["Link"] == '</v2/dividends?symbols=KO,SPY&range=1y&limit=1&cursor=MA>; ' \
                           'rel="next"'
    assert {row[0] for row in parse_csv(batch)[1:]} == {"KO"}
    second = api.get("/v2/dividends?symbols=KO,SPY&range=1y&limit=1&cursor=MA", **CSV_ACCEPT)
    assert {row[0] for row in parse_csv(second)[1:]} == {"SPY"}
    assert second.get("Link") is None


def test_json_without_link(api, sandbox):
    answer = api.get("/v2/macro/series/CPIAUCSL?limit=3")
    assert answer.status_code == 200 and answer.get("Link") is None


@pytest.mark.parametrize(("target", "body"), [
    ("/v2/quote-type/AAPL", {"error": "Could not satisfy the request Accept header.",
                             "status": 406}),
    ("/v2/options/AAPL", {"error": "Could not satisfy the request Accept header.",
                          "status": 406}),
    ("/v1/quotes?symbols=AAPL", {"detail": "Could not satisfy the request Accept header."}),
])
def test_csv_alone_elsewhere_is_a_406(api, sandbox, target, body):
    answer = api.get(target, **CSV_ACCEPT)
    assert answer.status_code == 406
    assert answer["Content-Type"] == "application/json"
    assert answer.json() == body
    # Also acceptable JSON, even ranked lower: JSON.
    fallback = api.get(target, HTTP_ACCEPT="text/csv, application/json;q=0.1")
    assert fallback.status_code == 200 and fallback["Content-Type"] == "application/json"


def test_a_tabular_endpoint_406s_what_it_cannot_write(api, sandbox):
    answer = api.get("/v2/splits/KO", HTTP_ACCEPT="text/html")
    assert answer.status_code == 406
    assert answer.json() == {"error": "Could not satisfy the request Accept header.",
                             "status": 406}
    assert "Accept" in answer["Vary"]
    v1 = api.get("/v1/historical?symbol=AAPL", HTTP_ACCEPT="application/xml, text/html;q=0.9")
    assert v1.status_code == 406 and v1.json() == {
        "detail": "Could not satisfy the request Accept header."}


def test_format_csv_elsewhere_is_an_invalid_value(api, sandbox):
    v2 = api.get("/v2/quote-type/AAPL?format=csv")
    assert v2.status_code == 400
    assert v2.json()["status"] == 400 and v2.json()["error"].startswith("format: ")
    v1 = api.get("/v1/quotes?symbols=AAPL&format=CSV")
    assert v1.status_code == 422
    assert list(v1.json()["errors"]) == ["format"]
    # Where `format` is the spec's (a quote's number format), its own rules answer.
    quote = api.get("/v2/quote/AAPL?format=csv")
    assert quote.status_code == 400 and "raw" in quote.json()["error"]
    # A screener's lenient format: csv is not a format there, so the default (raw) JSON.
    screener = api.get("/v2/screeners/day-gainers?count=2&format=csv")
    assert screener.status_code == 200 and screener["Content-Type"] == "application/json"
    # Any other value of a free `format` is still ignored there, as before.
    assert api.get("/v2/quote-type/AAPL?format=xml").status_code == 200


def test_format_on_a_tabular_endpoint_is_json_or_csv(api, sandbox):
    bad = api.get("/v2/splits/KO?format=xml", **CSV_ACCEPT)
    assert bad.status_code == 400 and bad["Content-Type"] == "application/json"
    assert bad.json() == {"error": "format: Input should be 'json' or 'csv'", "status": 400}
    v1 = api.get("/v1/historical?symbol=AAPL&format=xlsx")
    assert v1.status_code == 422 and "format" in v1.json()["errors"]
    assert api.get("/v2/splits/KO?format=csv", HTTP_ACCEPT="application/json")[
        "Content-Type"] == CSV_TYPE


@pytest.mark.parametrize("target", [
    "/v2/chart/A..B?range=5d",  # 404 (a malformed symbol)
    "/v2/chart/AAPL?range=decade",  # 400
    "/v2/chart/AAPL?range=5d&cursor=garbled!",  # 400
    "/v1/historical?symbol=AAPL&range=1y&interval=1m",  # 400
    "/v1/historical?range=1mo",  # 422
])
def test_errors_are_json_even_when_csv_was_asked(api, sandbox, target):
    for extra in ({"HTTP_ACCEPT": "text/csv"}, {}):
        url = target + ("&format=csv" if not extra else "")
        answer = api.get(url, **extra)
        assert answer.status_code >= 400, url
        assert answer["Content-Type"] == "application/json", url
        body = answer.json()
        assert ("error" in body) if url.startswith("/v2/") else ("detail" in body or
                                                                   "errors" in body)


def test_head_of_a_csv_answer(api, sandbox):
    get = api.get("/v2/splits/KO", **CSV_ACCEPT)
    head = api.head("/v2/splits/KO", **CSV_ACCEPT)
    assert head.status_code == 200 and head["Content-Type"] == CSV_TYPE
    assert head.content == b"" and get.content


# -- the response cache: one entry per representation, on both paths -------------------------
CACHE_TARGETS = ["/v2/macro/series/CPIAUCSL?limit=2",
                 "/v1/historical?symbol=AAPL&range=5d&interval=1d",
                 "/v2/chart/AAPL?range=5d&limit=2"]


@pytest.mark.parametrize("target", CACHE_TARGETS)
def test_the_cache_keeps_json_and_csv_apart(sandbox, target):
    as_json = django_path(target)
    as_csv = django_path(target, {"accept": "text/csv"})
    assert as_json.status == as_csv.status == 200
    assert as_json.header("content-type") == "application/json"
    assert as_csv.header("content-type") == CSV_TYPE
    # Both stored, each under its own key: hits on either path give each its own body.
    for answer in (django_path(target, {"accept": "text/csv"}), fast_path(
            target, {"accept": "text/csv"})):
        assert answer.status == 200 and answer.body == as_csv.body
        assert answer.header("x-cache") == "HIT"
        assert answer.header("content-type") == CSV_TYPE
        assert answer.header("link") == as_csv.header("link")
        assert "Accept" in answer.header("vary")
    for headers in (None, {"accept": "application/json"}, {"accept": "*/*"}):
        for answer in (django_path(target, headers), fast_path(target, headers)):
            assert answer.status == 200 and answer.body == as_json.body
            assert answer.header("content-type") == "application/json"
            assert answer.header("link") is None and "Accept" in answer.header("vary")
    assert fast_path(target, {"accept": "text/csv"}).answered_by_fast_path


def test_csv_first_then_json(sandbox):
    target = "/v2/splits/KO?range=max"
    as_csv = django_path(target, {"accept": "text/csv;q=0.9, application/json;q=0.1"})
    assert as_csv.header("content-type") == CSV_TYPE
    as_json = fast_path(target)
    assert as_json.status == 0  # no JSON entry yet: the fast path falls through
    as_json = django_path(target)
    assert as_json.header("content-type") == "application/json"
    assert fast_path(target, {"accept": "text/csv"}).body == as_csv.body


def test_a_json_answer_to_a_csv_request_is_not_kept(sandbox):
    """A view without CSV answers "CSV, else JSON" with JSON; that answer must not be
    served to "CSV only", which is a 406, from the cache on either path."""
    target = "/v2/quote-type/AAPL"
    lenient = django_path(target, {"accept": "text/csv, application/json;q=0.5"})
    assert lenient.status == 200 and lenient.header("content-type") == "application/json"
    assert django_path(target, {"accept": "text/csv"}).status == 406
    assert fast_path(target, {"accept": "text/csv"}).status == 0
    # JSON requests still share the plain entry.
    django_path(target)
    assert fast_path(target).header("x-cache") == "HIT"


def test_cache_keys():
    from apps.core.response_cache import cache_key

    plain = cache_key("GET", "/v2/splits/KO", "")
    assert cache_key("GET", "/v2/splits/KO", "", accept="application/json") == plain
    assert cache_key("GET", "/v2/splits/KO", "", accept="*/*") == plain
    assert cache_key("GET", "/v2/splits/KO", "", accept="text/html") == plain
    as_csv = cache_key("GET", "/v2/splits/KO", "", accept="text/csv")
    assert as_csv != plain
    assert cache_key("GET", "/v2/splits/KO", "", accept="text/*, */*;q=0.1") == as_csv
    # Never the key of another path, language or query.
    assert as_csv not in {cache_key("GET", p, "", accept="") for p in
                          ("csv:/v2/splits/KO", "/v2/splits/KO#csv")}
    assert cache_key("GET", "/v2/quote/AAPL", "", "de", accept="text/csv") != \
        cache_key("GET", "/v2/quote/AAPL", "", "de")


# -- units and properties ----------------------------------------------------------------------
# No deadline: a shared CI machine's pauses are not the property's failures.
PROPERTY = settings(max_examples=200, deadline=None)
_SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2 ** 63), 2 ** 63 - 1),
                     st.floats(allow_nan=False, allow_infinity=False), st.text())
_NAMES = st.text(min_size=1, max_size=12)


@PROPERTY
@given(st.lists(_NAMES, min_size=1, max_size=6, unique=True).flatmap(
    lambda names: st.tuples(st.just(names), st.lists(
        st.fixed_dictionaries({n: _SCALARS for n in names}), max_size=8))))
def test_any_table_parses_back_to_its_strings(table):
    names, rows = table
    body = tabular.write_csv(names, rows)
    text = body.decode("utf-8")
    assert text.endswith("\r\n")
    parsed = list(csv.reader(io.StringIO(text, newline="")))
    assert parsed[0] == [expected_text(name) for name in names]
    assert parsed[1:] == [[tabular.cell(row[n]) for n in names] for row in rows]
    for row, line in zip(rows, parsed[1:], strict=True):
        for name, cell in zip(names, line, strict=True):
            value = row[name]
            if value is None:
                assert cell == ""
            elif isinstance(value, bool):
                assert cell == ("true" if value else "false")
            elif isinstance(value, int | float):
                assert orjson.loads(cell) == value and cell == orjson.dumps(value).decode()
            else:
                assert cell == expected_text(value)


_JSON = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=5), inner, max_size=3)),
    max_leaves=10)


@PROPERTY
@given(st.lists(st.dictionaries(st.text(min_size=1, max_size=6), _JSON, max_size=5),
                max_size=6))
def test_any_records_render_as_their_flattened_json(records):
    body = tabular.render_table(records, tabular.Table())
    parsed = list(csv.reader(io.StringIO(body.decode("utf-8"), newline="")))
    flat = [tabular.flatten(r) for r in records]
    header = list(dict.fromkeys(n for row in flat for n in row))
    assert parsed[0] == [expected_text(n) for n in header] or (not header and parsed[0] == [])
    for row, line in zip(flat, parsed[1:], strict=True):
        for name, cell in zip(header, line, strict=True):
            value = row.get(name)
            if isinstance(value, float) and math.isfinite(value):
                assert float(cell) == value
            elif isinstance(value, list):
                assert orjson.loads(cell) == orjson.loads(orjson.dumps(value))


@PROPERTY
@given(st.text(max_size=80))
def test_negotiation_never_fails(accept):
    chosen = tabular.negotiate(accept)
    assert chosen in (None, tabular.JSON_MEDIA_TYPE, tabular.CSV_MEDIA_TYPE)
    assert tabular.representation(accept) in ("", "csv")


def test_csv_quoting_is_rfc_4180():
    body = tabular.write_csv(["a", "b,c", 'd"'], [
        {"a": "x,y", "b,c": 'say "hi"', 'd"': "line\r\nbreak"},
        {"a": None, "b,c": 1.5e-07, 'd"': True},
        {"a": "", "b,c": 12345678901234567890 // 10 ** 3, 'd"': [1, "two", None]},
    ])
    assert body == (b'a,"b,c","d"""\r\n'
                    b'"x,y","say ""hi""","line\r\nbreak"\r\n'
                    b',1.5e-7,true\r\n'
                    b',12345678901234567,"[1,""two"",null]"\r\n')


def test_a_table_may_be_a_function_of_the_answer():
    """``csv_table`` may be a function turning the JSON-ready answer into rows."""

    def rows(data):
        return [{"symbol": symbol, **values} for symbol, values in data.items()]

    class View:
        csv_table = rows

    table = tabular.table_of(View())
    assert table is rows
    body = tabular.render_table({"AAPL": {"close": 1.5, "note": None}, "KO": {"close": 2}},
                                table)
    assert body == b"symbol,close,note\r\nAAPL,1.5,\r\nKO,2,\r\n"
    assert tabular.schema_columns({"type": "object"}, table) == ()
