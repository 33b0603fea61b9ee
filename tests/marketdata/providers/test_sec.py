"""SEC EDGAR parsers and fetches (:mod:`marketdata.providers.sec`).

The submissions parser runs on the real recording (AAPL, re-serialised by finance-query:
keys alphabetised, no ``items`` array, arrays of unequal length). No recording exists of
``company_tickers.json``, a filing's ``-index.htm`` or an exhibit: those tests use
hand-made bodies in EDGAR's real shapes (the index page's ``table.tableFile`` with Seq,
Description, Document, Type and Size columns; exhibits as EDGAR filers write them).
"""

from __future__ import annotations

import time

import pytest
import responses

from marketdata import deadline
from marketdata.errors import DeadlineExceeded, NotFound, UpstreamBadResponse
from marketdata.providers import sec

SUBMISSIONS = "sec/edgar-submissions/CIK0000320193-finance-query.json"

TICKERS = {
    "0": {"cik_str": 320193, "ticker": "AAPL", "title": "Apple Inc."},
    "1": {"cik_str": 1067983, "ticker": "BRK-B", "title": "BERKSHIRE HATHAWAY INC"},
    "2": {"cik_str": "1652044", "ticker": "GOOGL", "title": "Alphabet Inc."},
    "3": {"cik_str": 1652044, "ticker": "goog", "title": "Alphabet Inc."},
    "4": {"cik_str": None, "ticker": "NOPE", "title": "broken row"},
    "5": "not a row",
}

INDEX_PAGE = """<html><body><div id="formDiv"><div id="formHeader">
<div id="formName"><strong>Form 8-K</strong> - Current report:</div></div></div>
<div id="formDiv"><p>Document Format Files</p>
<table class="tableFile" summary="Document Format Files">
<tr><th scope="col"><acronym title="Sequence Number">Seq</acronym></th>
<th scope="col">Description</th><th scope="col">Document</th><th scope="col">Type</th>
<th scope="col">Size</th></tr>
<tr><td scope="row">1</td><td scope="row">8-K</td><td scope="row">
<a href="/ix?doc=/Archives/edgar/data/320193/000032019324000081/aapl-20240502.htm">
aapl-20240502.htm</a> &nbsp;&nbsp;<span style="color: green">iXBRL</span></td>
<td scope="row">8-K</td><td scope="row">38447</td></tr>
<tr class="evenRow"><td scope="row">2</td><td scope="row">EX-99.2</td><td scope="row">
<a href="/Archives/edgar/data/320193/000032019324000081/a8-kex992q2.htm">a8-kex992q2.htm</a>
</td><td scope="row">EX-99.2</td><td scope="row">1200</td></tr>
<tr><td scope="row">3</td><td scope="row">EX-99.1</td><td scope="row">
<a href="/Archives/edgar/data/320193/000032019324000081/a8-kex991q2202403302024.htm">
a8-kex991q2202403302024.htm</a></td><td scope="row">EX-99.1</td><td scope="row">107052</td></tr>
<tr><td scope="row">&nbsp;</td><td scope="row">Complete submission text file</td>
<td scope="row"><a href="/Archives/edgar/data/320193/000032019324000081/0000320193-24-000081.txt">
0000320193-24-000081.txt</a></td><td scope="row">&nbsp;</td><td scope="row">4805447</td></tr>
</table></div>
<div><p>Data Files</p><table class="tableFile" summary="Data Files">
<tr><th scope="col">Seq</th><th scope="col">Description</th><th scope="col">Document</th>
<th scope="col">Type</th><th scope="col">Size</th></tr>
<tr><td>4</td><td>XBRL TAXONOMY EXTENSION SCHEMA DOCUMENT</td>
<td><a href="/Archives/edgar/data/320193/000032019324000081/aapl-20240502.xsd">
aapl-20240502.xsd</a></td>
<td>EX-101.SCH</td><td>2840</td></tr></table></div></body></html>"""

# Apple's EX-99.1 as filed (abridged): bold headline under a logo, a body paragraph, a table.
APPLE_RELEASE = """<html><head><title>Document</title><style>p {margin:0}</style></head>
<body><div style="display:none"><ix:header>hidden XBRL header</ix:header></div>
<div style="text-align:right"><span style="font-weight:700">Exhibit 99.1</span></div>
<div style="text-align:center"><img src="aapllogo.jpg" alt="Apple logo"></div>
<div style="text-align:center"><span style="font-weight:700;font-size:14pt">Apple reports
 second quarter results</span></div>
<div style="text-align:center"><span style="font-style:italic">Announces&#160;largest
 buyback in its history</span></div>
<div><span>CUPERTINO, CALIFORNIA &#8212; Apple&#174; today announced financial results for
its fiscal 2024 second quarter ended March 30, 2024. The Company posted quarterly revenue of
$90.8 billion, down 4 percent year over year, and quarterly earnings per diluted share of
$1.53, up 1 percent year over year.</span></div>
<table><tr><td><b>Net sales</b></td><td>$</td><td>90,753</td></tr></table>
<script>var x = 1;</script><!-- a comment -->
</body></html>"""


# -- company list -----------------------------------------------------------------------------
def test_company_tickers_parse():
    assert sec.parse_company_tickers(TICKERS) == {"AAPL": 320193, "BRK-B": 1067983,
                                                  "GOOGL": 1652044, "GOOG": 1652044}


@pytest.mark.parametrize("payload", [{}, [], {"0": {"ticker": "A"}}, "text", None])
def test_company_tickers_without_rows_is_a_502(payload):
    with pytest.raises(UpstreamBadResponse):
        sec.parse_company_tickers(payload)


def test_ticker_spellings():
    assert sec.ticker_spellings("BRK.B") == ["BRK.B", "BRK-B"]
    assert sec.ticker_spellings("AAPL") == ["AAPL"]


# -- submissions (the recording) --------------------------------------------------------------
def test_submissions_recording(recording):
    filings = sec.parse_submissions(recording(SUBMISSIONS))
    # 105 of the 1,000 recent filings are 8-Ks (the 8-K/A is not); newest first.
    assert len(filings) == 105
    assert filings[:2] == [
        {"accession": "0000320193-26-000011", "date": "2026-04-30",
         "document": "aapl-20260430.htm", "items": None},
        {"accession": "0001140361-26-015711", "date": "2026-04-20",
         "document": "ef20071035_8k.htm", "items": None}]
    assert filings[-1] == {"accession": "0001193125-15-186064", "date": "2015-05-13",
                           "document": "d923398d8k.htm", "items": None}
    assert [f["date"] for f in filings] == sorted((f["date"] for f in filings), reverse=True)
    # Without an items array every 8-K is looked at.
    assert all(sec.may_have_exhibits(f) for f in filings)


def test_submissions_items_and_bad_rows():
    """Hand-made, in EDGAR's real shape with the ``items`` array."""
    payload = {"cik": "0000000001", "filings": {"recent": {
        "accessionNumber": ["0000000001-25-000003", "0000000001-25-000002", "bad",
                            "0000000001-25-000001"],
        "filingDate": ["2025-03-01", "2025-02-01", "2025-01-15", "2025-01-01"],
        "form": ["8-K", "8-K", "8-K", "10-Q"],
        "items": ["2.02,9.01", "5.07", "9.01", ""],
        "primaryDocument": ["a.htm", "b.htm", "c.htm", "d.htm"]}, "files": []}}
    filings = sec.parse_submissions(payload)
    assert filings == [
        {"accession": "0000000001-25-000003", "date": "2025-03-01", "document": "a.htm",
         "items": ["2.02", "9.01"]},
        {"accession": "0000000001-25-000002", "date": "2025-02-01", "document": "b.htm",
         "items": ["5.07"]}]
    assert [sec.may_have_exhibits(f) for f in filings] == [True, False]


@pytest.mark.parametrize("payload", [[], {"filings": {}}, {"filings": {"recent": {}}}])
def test_submissions_without_filings_is_a_502(payload):
    with pytest.raises(UpstreamBadResponse):
        sec.parse_submissions(payload)


# -- filing index -----------------------------------------------------------------------------
def test_filing_index_documents_by_column_name():
    documents = sec.parse_filing_index(INDEX_PAGE)
    assert documents == [
        {"type": "8-K", "document": "aapl-20240502.htm"},
        {"type": "EX-99.2", "document": "a8-kex992q2.htm"},
        {"type": "EX-99.1", "document": "a8-kex991q2202403302024.htm"},
        {"type": "EX-101.SCH", "document": "aapl-20240502.xsd"}]
    # The lowest-numbered EX-99, whatever its place in the table.
    assert sec.press_release_document(documents) == "a8-kex991q2202403302024.htm"


def test_filing_index_columns_in_another_order():
    page = ('<table class="tableFile"><tr><th>Type</th><th>Seq</th><th>Document</th></tr>'
            '<tr><td>EX-99</td><td>2</td><td><a href="/Archives/x/ex99.txt">ex99.txt</a>'
            "</td></tr></table>")
    assert sec.parse_filing_index(page) == [{"type": "EX-99", "document": "ex99.txt"}]


def test_press_release_document_rules():
    assert sec.press_release_document([{"type": "8-K", "document": "a.htm"},
                                       {"type": "EX-10.1", "document": "b.htm"}]) is None
    # PDFs and images are not read; EX-99 alone counts as number 0.
    assert sec.press_release_document([{"type": "EX-99.1", "document": "r.pdf"},
                                       {"type": "EX-99.3", "document": "r3.htm"}]) == "r3.htm"
    assert sec.press_release_document([{"type": "EX-99.1", "document": "a.htm"},
                                       {"type": "EX-99", "document": "b.htm"}]) == "b.htm"


def test_document_names_are_never_urls():
    page = ('<table class="tableFile"><tr><th>Document</th><th>Type</th></tr>'
            '<tr><td><a href="https://evil.example/x?y=1">x</a></td><td>EX-99.1</td></tr>'
            '<tr><td><a href="../../../etc/passwd">p</a></td><td>EX-99.2</td></tr>'
            "</table>")
    documents = sec.parse_filing_index(page)
    # Only the last path segment survives, and only when it is a plain file name.
    assert documents == [{"type": "EX-99.1", "document": "x"},
                         {"type": "EX-99.2", "document": "passwd"}]


def test_filing_index_without_a_document_table_is_a_502():
    with pytest.raises(UpstreamBadResponse):
        sec.parse_filing_index("<html><body><p>Nothing</p></body></html>")


# -- exhibits ---------------------------------------------------------------------------------
def test_apple_release():
    found = sec.read_exhibit(APPLE_RELEASE.encode(), "a8-kex991q2202403302024.htm")
    assert found["title"] == "Apple reports second quarter results"
    assert found["text"].split("\n") == [
        "Apple reports second quarter results",
        "Announces largest buyback in its history",
        "CUPERTINO, CALIFORNIA — Apple® today announced financial results for its fiscal 2024 "
        "second quarter ended March 30, 2024. The Company posted quarterly revenue of $90.8 "
        "billion, down 4 percent year over year, and quarterly earnings per diluted share of "
        "$1.53, up 1 percent year over year.",
        "Net sales $ 90,753"]


@pytest.mark.parametrize("top, title", [
    # <h1> after a banner heading and a date line
    ("<p>Exhibit 99.1</p><h2>NEWS RELEASE</h2><p>April 30, 2025</p><h1>Acme Widgets Wins "
     "Big Contract</h1><p>Subtitle line here</p>", "Acme Widgets Wins Big Contract"),
    # bold banner, then the bold headline
    ("<p><b>FOR IMMEDIATE RELEASE</b></p><p><b>Acme</b></p><p><strong>Acme Announces New "
     "Chief Executive</strong></p>", "Acme Announces New Chief Executive"),
    # nothing bold: the first line of three words or more
    ("<p>EXHIBIT 99.1</p><p>Media Contacts: Jane Doe</p><p>Acme Names New Chair</p>",
     "Acme Names New Chair"),
    # no headline at all: the first sentence of the body
    ("<p>Exhibit 99.1</p>", "ACME today said things."),
])
def test_title_rule(top, title):
    body = ("ACME today said things. " + "More words follow here to make a paragraph. " * 6)
    page = f"<html><body>{top}<p>{body}</p></body></html>".encode()
    assert sec.read_exhibit(page, "ex99.htm")["title"] == title


def test_text_exhibit():
    text = ("<PAGE>\n\nEXHIBIT 99.1\n\nACME CORP REPORTS RECORD YEAR\n\n"
            "ACME Corp today reported\nrecord results for its fiscal year.\n\n"
            "Contact: ir@acme.example\n").encode("cp1252") + "caf\xe9".encode("cp1252")
    found = sec.read_exhibit(text, "ex99.txt")
    assert found["title"] == "ACME CORP REPORTS RECORD YEAR"
    assert found["text"] == ("ACME CORP REPORTS RECORD YEAR\nACME Corp today reported record "
                             "results for its fiscal year.\nContact: ir@acme.example café")


def test_long_text_and_title_are_cut_at_words():
    words = " ".join(f"word{i}" for i in range(8000))
    found = sec.read_exhibit(f"<p><b>{words}</b></p>".encode(), "x.htm")
    assert len(found["text"]) <= sec.MAX_TEXT_CHARS and found["text"].endswith("…")
    assert len(found["title"]) <= sec.MAX_TITLE_CHARS and found["title"].endswith("…")
    kept = found["text"][:-1]
    assert words.startswith(kept) and words[len(kept)] == " "  # cut between two words


def test_empty_exhibit():
    assert sec.read_exhibit(b"<html><body><p>Exhibit 99.1</p></body></html>", "x.htm") == {
        "title": None, "text": None}


def test_deep_nesting_does_not_exhaust_the_stack():
    page = ("<div>" * 5000 + "<p><b>Deeply Nested Headline Here</b></p>" + "</div>" * 5000)
    assert sec.read_exhibit(page.encode(), "x.htm")["title"] == "Deeply Nested Headline Here"


# -- provider and pacing ----------------------------------------------------------------------
def test_pacer_spaces_calls():
    pacer = sec.RequestPacer(50)
    started = time.monotonic()
    for _ in range(5):
        pacer.wait()
    assert time.monotonic() - started >= 4 * 0.02 * 0.9


def test_pacer_refuses_calls_past_the_deadline():
    pacer = sec.RequestPacer(1)
    pacer.wait()
    with deadline.within(0.2), pytest.raises(DeadlineExceeded):
        pacer.wait()
    sec.RequestPacer(None).wait()  # off: returns at once


@pytest.fixture
def unpaced(monkeypatch):
    monkeypatch.setattr(sec, "PACER", sec.RequestPacer(None))


def test_fetches_send_the_user_agent_and_cache(settings, unpaced):
    settings.SEC_USER_AGENT = "Example Corp ops@example.com"
    with responses.RequestsMock() as mock:
        mock.get(sec.TICKERS_URL, json=TICKERS)
        assert sec.cik_for("BRK.B") == 1067983
        assert sec.cik_for("AAPL") == 320193
        with pytest.raises(NotFound):
            sec.cik_for("ZZZZ")
        assert len(mock.calls) == 1
        assert mock.calls[0].request.headers["User-Agent"] == "Example Corp ops@example.com"


def test_403_says_which_setting_to_fix(unpaced):
    with responses.RequestsMock() as mock:
        mock.get(sec.TICKERS_URL, status=403, body="<html>Undeclared Automated Tool</html>")
        with pytest.raises(UpstreamBadResponse, match="SEC_USER_AGENT"):
            sec.company_ciks()


def test_submissions_404_is_not_found_and_index_404_is_a_502(unpaced):
    with responses.RequestsMock() as mock:
        mock.get(sec.SUBMISSIONS_URL.format(cik=5), status=404, body="<Error/>")
        mock.get(f"{sec.ARCHIVES_URL}/5/000000000525000001/0000000005-25-000001-index.htm",
                 status=404, body="Not Found")
        with pytest.raises(NotFound, match="ACME"):
            sec.recent_8k_filings(5, "ACME")
        with pytest.raises(UpstreamBadResponse):
            sec.filing_documents(5, "0000000005-25-000001")


def test_filing_release(unpaced):
    folder = f"{sec.ARCHIVES_URL}/320193/000032019324000081"
    with responses.RequestsMock() as mock:
        mock.get(f"{folder}/0000320193-24-000081-index.htm", body=INDEX_PAGE)
        mock.get(f"{folder}/a8-kex991q2202403302024.htm", body=APPLE_RELEASE)
        filing = {"accession": "0000320193-24-000081", "date": "2024-05-02"}
        release = sec.filing_release(320193, filing)
        assert release["date"] == "2024-05-02"
        assert release["title"] == "Apple reports second quarter results"
        # A week in the cache: the same filing costs nothing the second time.
        assert sec.filing_release(320193, filing) == release
        assert len(mock.calls) == 2
