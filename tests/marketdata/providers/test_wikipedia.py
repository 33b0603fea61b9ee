"""Wikipedia constituent tables (:mod:`marketdata.providers.wikipedia`).

No recording of the articles exists: the pages below are hand-made in the real articles'
shape (``table.wikitable sortable`` with the real headers and cell markup: external links
for symbols, article links, ``<th scope="row">`` company cells, ``<sup class="reference">``
footnotes, a "Selected changes" table with a two-row header), abridged to a few rows.
"""

from __future__ import annotations

import pytest
import responses

from marketdata.errors import UpstreamBadResponse
from marketdata.providers import wikipedia

REF = ('<sup id="cite_ref-3" class="reference"><a href="#cite_note-3">'
       '<span class="cite-bracket">&#91;</span>3<span class="cite-bracket">&#93;</span></a>'
       "</sup>")

# The changes table comes first: the constituents table is found by its headers.
SP500 = f"""<html><body><div class="mw-parser-output">
<table class="wikitable sortable" id="changes"><tbody>
<tr><th rowspan="2">Effective Date</th><th colspan="2">Added</th><th colspan="2">Removed</th>
<th rowspan="2">Reason</th></tr>
<tr><th>Ticker</th><th>Security</th><th>Ticker</th><th>Security</th></tr>
<tr><td>December 23, 2024</td><td>APO</td><td>Apollo Global Management</td><td>QRVO</td>
<td>Qorvo</td><td>Market capitalization change.</td></tr>
</tbody></table>
<table class="wikitable sortable sticky-header" id="constituents"><tbody>
<tr><th>Symbol</th><th>Security</th><th>GICS Sector</th><th>GICS Sub-Industry</th>
<th>Headquarters Location</th><th>Date added</th><th>CIK</th><th>Founded
</th></tr>
<tr>
<td><a rel="nofollow" class="external text" href="https://www.nyse.com/quote/XNYS:MMM">MMM</a>
</td>
<td><a href="/wiki/3M" title="3M">3M</a></td>
<td>Industrials</td>
<td>Industrial Conglomerates</td>
<td><a href="/wiki/Saint_Paul,_Minnesota" title="Saint Paul, Minnesota">
Saint Paul, Minnesota</a></td>
<td>1957-03-04</td>
<td>0000066740</td>
<td>1902
</td></tr>
<tr>
<td><a rel="nofollow" class="external text" href="https://www.nyse.com/quote/XNYS:BRK.B">BRK.B</a>
</td>
<td><a href="/wiki/Berkshire_Hathaway" title="Berkshire Hathaway">Berkshire Hathaway</a>{REF}</td>
<td>Financials</td>
<td>Multi-Sector Holdings</td>
<td><a href="/wiki/Omaha,_Nebraska" title="Omaha, Nebraska">Omaha, Nebraska</a></td>
<td>2010-02-16</td>
<td>1067983</td>
<td>1839
</td></tr>
<tr>
<td><a rel="nofollow" class="external text" href="https://www.nasdaq.com/market-activity/stocks/goog">GOOG</a></td>
<td><a href="/wiki/Alphabet_Inc." title="Alphabet Inc.">Alphabet Inc.</a> (Class C)</td>
<td>Communication Services</td>
<td>Interactive Media &amp; Services</td>
<td><a href="/wiki/Mountain_View,_California">Mountain View, California</a></td>
<td>April 3, 2006</td>
<td>0001652044</td>
<td>1998
</td></tr>
<tr><td></td><td>A footer row without a symbol</td></tr>
</tbody></table></div></body></html>"""

NASDAQ100 = """<html><body>
<table class="wikitable"><tbody><tr><th>Year</th><th>Closing level</th></tr>
<tr><td>2024</td><td>21,012.17</td></tr></tbody></table>
<table class="wikitable sortable" id="constituents"><tbody>
<tr><th>Company</th><th>Ticker</th><th>GICS Sector</th><th>GICS Sub-Industry</th></tr>
<tr><td><a href="/wiki/Adobe_Inc.">Adobe Inc.</a></td><td>ADBE</td>
<td rowspan="2">Information Technology</td><td>Application Software</td></tr>
<tr><td><a href="/wiki/AMD">Advanced Micro Devices</a></td><td>AMD</td>
<td>Semiconductors</td></tr>
<tr><td>Airbnb</td><td>ABNB</td><td>Consumer Discretionary</td>
<td>Hotels, Resorts &amp; Cruise Lines</td></tr>
</tbody></table></body></html>"""

DOW = """<html><body><table class="wikitable sortable sticky-header" id="constituents">
<tbody><tr><th>Company</th><th>Exchange</th><th>Symbol</th><th>Industry</th>
<th>Date added</th><th>Notes</th><th>Index weighting</th></tr>
<tr><th scope="row"><a href="/wiki/3M" title="3M">3M</a></th>
<td><a href="/wiki/New_York_Stock_Exchange">NYSE</a></td>
<td><a rel="nofollow" class="external text" href="https://www.nyse.com/quote/XNYS:MMM">MMM</a></td>
<td><a href="/wiki/Conglomerate_(company)">Conglomerate</a></td><td>1976-08-09</td>
<td>As Minnesota Mining and Manufacturing</td><td>2.19%</td></tr>
<tr><th scope="row"><a href="/wiki/Apple_Inc.">Apple Inc.</a></th>
<td><a href="/wiki/Nasdaq">Nasdaq</a></td><td>NASDAQ: AAPL</td>
<td>Information technology</td><td>March 19, 2015</td><td></td><td>3.52%</td></tr>
</tbody></table></body></html>"""


def test_sp500_table_found_by_headers():
    rows = wikipedia.parse_constituents(SP500)
    assert rows == [
        {"symbol": "MMM", "name": "3M", "sector": "Industrials",
         "subSector": "Industrial Conglomerates", "headquarters": "Saint Paul, Minnesota",
         "dateFirstAdded": "1957-03-04", "cik": "0000066740", "founded": "1902"},
        {"symbol": "BRK-B", "name": "Berkshire Hathaway", "sector": "Financials",
         "subSector": "Multi-Sector Holdings", "headquarters": "Omaha, Nebraska",
         "dateFirstAdded": "2010-02-16", "cik": "0001067983", "founded": "1839"},
        {"symbol": "GOOG", "name": "Alphabet Inc. (Class C)",
         "sector": "Communication Services", "subSector": "Interactive Media & Services",
         "headquarters": "Mountain View, California", "dateFirstAdded": "2006-04-03",
         "cik": "0001652044", "founded": "1998"}]


def test_nasdaq100_rowspans_and_missing_columns():
    rows = wikipedia.parse_constituents(NASDAQ100)
    assert [(r["symbol"], r["name"], r["sector"], r["subSector"]) for r in rows] == [
        ("ADBE", "Adobe Inc.", "Information Technology", "Application Software"),
        ("AMD", "Advanced Micro Devices", "Information Technology", "Semiconductors"),
        ("ABNB", "Airbnb", "Consumer Discretionary", "Hotels, Resorts & Cruise Lines")]
    assert all(r["headquarters"] is r["cik"] is r["founded"] is r["dateFirstAdded"] is None
               for r in rows)


def test_dow_row_headers_and_exchange_prefixed_symbols():
    rows = wikipedia.parse_constituents(DOW)
    assert rows == [
        {"symbol": "MMM", "name": "3M", "sector": "Conglomerate", "subSector": None,
         "headquarters": None, "dateFirstAdded": "1976-08-09", "cik": None, "founded": None},
        {"symbol": "AAPL", "name": "Apple Inc.", "sector": "Information technology",
         "subSector": None, "headquarters": None, "dateFirstAdded": "2015-03-19",
         "cik": None, "founded": None}]


def test_the_largest_matching_table_wins():
    small = ('<table class="wikitable"><tr><th>Ticker</th><th>Company</th></tr>'
             "<tr><td>ZZ</td><td>Gone Inc.</td></tr></table>")
    rows = wikipedia.parse_constituents(small + NASDAQ100)
    assert [r["symbol"] for r in rows] == ["ADBE", "AMD", "ABNB"]


@pytest.mark.parametrize("page", [
    "<html><body><p>No tables</p></body></html>",
    '<table class="wikitable"><tr><th>Year</th><th>Level</th></tr><tr><td>1</td></tr></table>',
    '<table class="wikitable"><tr><th>Symbol</th><th>Security</th></tr></table>',
    # a table that is not a wikitable does not count
    '<table><tr><th>Symbol</th><th>Security</th></tr><tr><td>A</td><td>B</td></tr></table>',
])
def test_no_constituents_table_is_a_502(page):
    with pytest.raises(UpstreamBadResponse, match="no constituents table"):
        wikipedia.parse_constituents(page, "Nasdaq-100")


def test_fetch_sends_a_descriptive_user_agent_and_caches():
    url, _ = wikipedia.PAGES["dowjones"]
    with responses.RequestsMock() as mock:
        mock.get(url, body=DOW, content_type="text/html")
        assert len(wikipedia.constituents("dowjones")) == 2
        assert len(wikipedia.constituents("dowjones")) == 2
        assert len(mock.calls) == 1
        agent = mock.calls[0].request.headers["User-Agent"]
        assert agent == wikipedia.USER_AGENT and agent.startswith("MarketDataService/")


def test_operator_user_agent(settings):
    settings.WIKIPEDIA_USER_AGENT = "AcmeMarketData/1.0 (ops@acme.example)"
    url, _ = wikipedia.PAGES["nasdaq100"]
    with responses.RequestsMock() as mock:
        mock.get(url, body=NASDAQ100)
        wikipedia.constituents("nasdaq100")
        assert mock.calls[0].request.headers["User-Agent"] == settings.WIKIPEDIA_USER_AGENT


def test_a_missing_article_is_a_502_not_a_404():
    url, _ = wikipedia.PAGES["sp500"]
    with responses.RequestsMock() as mock:
        mock.get(url, status=404, body="<html>Wikipedia does not have an article</html>")
        with pytest.raises(UpstreamBadResponse) as caught:
            wikipedia.constituents("sp500")
    assert caught.value.status_code == 502 and caught.value.provider == "wikipedia"
