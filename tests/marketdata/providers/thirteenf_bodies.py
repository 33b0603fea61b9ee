"""Hand-made EDGAR bodies of Form 13F filings, in the documented shapes (no recording of a
13F filing exists under ../shared/upstream): the submissions JSON (``filings.recent`` as
parallel arrays), a filing's ``-index.htm`` document table, the cover page
(``primary_doc.xml``) and the information table, with or without a namespace prefix, in
either unit era. Shared by the provider and API tests."""

from __future__ import annotations

import html
from typing import Any

NAMESPACE = "http://www.sec.gov/edgar/document/thirteenf/informationtable"
ARCHIVES = "https://www.sec.gov/Archives/edgar/data"
SUBMISSIONS = "https://data.sec.gov/submissions"
SEARCH = "https://efts.sec.gov/LATEST/search-index"
# The manager of the tests and its reports' accession numbers (a filer agent's, as EDGAR
# numbers Berkshire Hathaway's).
CIK = 1067983
NAME = "BERKSHIRE HATHAWAY INC"
LATEST = "0000950123-24-008631"
ORIGINAL_Q1 = "0000950123-24-005000"
ORIGINAL_Q3 = "0000950123-22-010000"


def row(issuer: str, cusip: str, value: int | str, shares: int | str, *, title: str = "COM",
        kind: str = "SH", put_call: str | None = None, discretion: str = "SOLE",
        others: str | None = None, voting: tuple[Any, Any, Any] | None = None,
        figi: str | None = None) -> dict[str, Any]:
    return {"issuer": issuer, "cusip": cusip, "value": value, "shares": shares,
            "title": title, "kind": kind, "put_call": put_call, "discretion": discretion,
            "others": others, "voting": voting if voting is not None else (shares, 0, 0),
            "figi": figi}


def table(rows: list[dict[str, Any]], style: str = "plain") -> bytes:
    """An information table: ``plain`` (no namespace), ``prefixed`` (``ns1:``) or
    ``default`` (a default namespace), as filers' tools write them."""
    p = "ns1:" if style == "prefixed" else ""
    declare = {"prefixed": f' xmlns:ns1="{NAMESPACE}"',
               "default": f' xmlns="{NAMESPACE}"'}.get(style, "")

    def leaf(tag: str, value: Any) -> str:
        return "" if value is None else \
            f"<{p}{tag}>{html.escape(str(value), quote=False)}</{p}{tag}>"

    out = ['<?xml version="1.0" encoding="UTF-8"?>\n',
           f'<{p}informationTable{declare} '
           'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">\n']
    for r in rows:
        sole, shared, none = r["voting"]
        out.append(
            f"<{p}infoTable>\n  {leaf('nameOfIssuer', r['issuer'])}"
            f"{leaf('titleOfClass', r['title'])}{leaf('cusip', r['cusip'])}"
            f"{leaf('figi', r['figi'])}{leaf('value', r['value'])}\n"
            f"  <{p}shrsOrPrnAmt>{leaf('sshPrnamt', r['shares'])}"
            f"{leaf('sshPrnamtType', r['kind'])}</{p}shrsOrPrnAmt>\n"
            f"  {leaf('putCall', r['put_call'])}{leaf('investmentDiscretion', r['discretion'])}"
            f"{leaf('otherManager', r['others'])}\n"
            f"  <{p}votingAuthority>{leaf('Sole', sole)}{leaf('Shared', shared)}"
            f"{leaf('None', none)}</{p}votingAuthority>\n</{p}infoTable>\n")
    out.append(f"</{p}informationTable>\n")
    return "".join(out).encode()


def cover(period: str, amendment: tuple[int, str] | None = None) -> bytes:
    """``primary_doc.xml`` (``period`` as ``YYYY-MM-DD``; EDGAR writes ``MM-DD-YYYY``)."""
    year, month, day = period.split("-")
    extra = ""
    if amendment:
        extra = (f"<amendmentNo>{amendment[0]}</amendmentNo><amendmentInfo>"
                 f"<amendmentType>{amendment[1]}</amendmentType></amendmentInfo>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<edgarSubmission xmlns="http://www.sec.gov/edgar/thirteenffiler" '
        'xmlns:com="http://www.sec.gov/edgar/common"><headerData><submissionType>'
        f"{'13F-HR/A' if amendment else '13F-HR'}</submissionType></headerData><formData>"
        f"<coverPage><reportCalendarOrQuarter>{month}-{day}-{year}</reportCalendarOrQuarter>"
        f"<isAmendment>{'true' if amendment else 'false'}</isAmendment>{extra}"
        "<filingManager><name>Test Manager</name></filingManager>"
        "<reportType>13F HOLDINGS REPORT</reportType></coverPage></formData>"
        "</edgarSubmission>\n").encode()


def index_page(cik: int, accession: str, table_name: str | None = "infotable.xml",
               form: str = "13F-HR") -> str:
    """A 13F filing's ``-index.htm``: the cover page and the table, each as its XSLT
    rendering (under ``xslForm13F_X02/``) and as filed."""
    folder = f"/Archives/edgar/data/{cik}/{accession.replace('-', '')}"
    documents = [(form, "xslForm13F_X02/primary_doc.xml", "primary_doc.html"),
                 (form, "primary_doc.xml", "primary_doc.xml")]
    if table_name:
        documents += [("INFORMATION TABLE", f"xslForm13F_X02/{table_name}",
                       table_name.replace(".xml", ".html")),
                      ("INFORMATION TABLE", table_name, table_name)]
    rows = "".join(
        f'<tr><td scope="row">{seq}</td><td scope="row"></td><td scope="row">'
        f'<a href="{folder}/{path}">{shown}</a></td><td scope="row">{kind}</td>'
        f'<td scope="row">1234</td></tr>\n'
        for seq, (kind, path, shown) in enumerate(documents, start=1))
    return ('<html><body><div id="formName"><strong>Form 13F-HR</strong></div>'
            '<table class="tableFile" summary="Document Format Files"><tr>'
            '<th scope="col">Seq</th><th scope="col">Description</th>'
            '<th scope="col">Document</th><th scope="col">Type</th><th scope="col">Size</th>'
            f"</tr>\n{rows}</table></body></html>")


def submissions(cik: int, name: str, filings: list[tuple[str, str, str, str]],
                files: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """``submissions/CIK##########.json`` with ``filings`` as (accession, form, filing
    date, report date), newest first, plus a 10-K and a Schedule 13G a manager files too."""
    listed = [*filings, (f"{cik:010d}-24-000900", "SC 13G", "2024-02-14", "")]
    return {
        "cik": f"{cik:010d}", "entityType": "other", "sic": "", "name": name,
        "tickers": [], "exchanges": [],
        "filings": {"recent": {
            "accessionNumber": [f[0] for f in listed], "form": [f[1] for f in listed],
            "filingDate": [f[2] for f in listed], "reportDate": [f[3] for f in listed],
            "acceptanceDateTime": [f"{f[2]}T16:00:00.000Z" for f in listed],
            "primaryDocument": ["xslForm13F_X02/primary_doc.xml" if f[1].startswith("13F")
                                else "sc13g.htm" for f in listed],
            "primaryDocDescription": ["" for _ in listed], "size": [9000 for _ in listed]},
            "files": files or []}}


def search_hit(accession: str, form: str, filed: str, cik: int, display: str) -> dict:
    return {"_index": "edgar_file", "_id": f"{accession}:primary_doc.xml", "_score": 9.1,
            "_source": {"ciks": [f"{cik:010d}"], "display_names": [display],
                        "file_date": filed, "form": form, "adsh": accession,
                        "root_forms": ["13F-HR"], "period_ending": "2024-06-30"}}


def search_answer(hits: list[dict], total: int | None = None) -> dict:
    return {"took": 12, "timed_out": False,
            "hits": {"total": {"value": len(hits) if total is None else total,
                               "relation": "eq"}, "hits": hits}}
