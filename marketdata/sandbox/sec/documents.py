"""EDGAR's answers in their real shapes: the ticker list, the submissions JSON, a filing's
``-index.htm`` page and ``index.json`` folder listing, and the filed documents.

Press releases (EX-99.1) are written from the company's sandbox instrument and the filing:
the headline always names the company (:func:`headline`); earnings releases carry the
fiscal quarter of the Yahoo sandbox's earnings call held that day, with revenue and EPS
figures from sha256 of the filing (no prices appear). The quoted executive is the first
officer of the company's assetProfile. Releases come in three layouts, so a client's
headline rule meets what EDGAR filers really do: a bold centred headline under a bold
"Exhibit 99.1" label and "FOR IMMEDIATE RELEASE" banner; an ``<h1>`` headline under a
"NEWS RELEASE" heading and a date line; a headline in plain text. One release in fifteen
is a plain-text (``.txt``) exhibit.
"""

from __future__ import annotations

import html
from datetime import date
from typing import Any, Protocol

from marketdata.sandbox.instruments import stable_hash, unit
from marketdata.sandbox.sec.companies import Company, all_companies
from marketdata.sandbox.sec.filings import Exhibit, Filing
from marketdata.sandbox.yahoo.quote_summary import _company_header, _officers

ARCHIVES = "/Archives/edgar/data"
_ORDINALS = {"Q1": "first", "Q2": "second", "Q3": "third", "Q4": "fourth"}
_SIC = {
    "Technology": ("3572", "Computer Storage Devices", "06 Technology"),
    "Healthcare": ("2834", "Pharmaceutical Preparations", "03 Life Sciences"),
    "Financial Services": ("6022", "State Commercial Banks", "02 Finance"),
    "Consumer Cyclical": ("5961", "Retail-Catalog & Mail-Order Houses", "07 Trade & Services"),
    "Consumer Defensive": ("2080", "Beverages", "04 Manufacturing"),
    "Industrials": ("3560", "General Industrial Machinery & Equipment", "04 Manufacturing"),
    "Energy": ("1311", "Crude Petroleum & Natural Gas", "01 Energy & Transportation"),
    "Communication Services": ("7370", "Services-Computer Programming, Data Processing, Etc.",
                               "07 Trade & Services"),
    "Utilities": ("4911", "Electric Services", "01 Energy & Transportation"),
    "Real Estate": ("6798", "Real Estate Investment Trusts", "05 Real Estate & Construction"),
    "Basic Materials": ("2821", "Plastic Materials, Synth Resins & Nonvulcan Elastomers",
                        "04 Manufacturing"),
}
_ITEMS = {"1.01": "Entry into a Material Definitive Agreement",
          "2.02": "Results of Operations and Financial Condition",
          "5.02": "Departure of Directors or Certain Officers; Election of Directors; "
                  "Appointment of Certain Officers: Compensatory Arrangements of Certain "
                  "Officers",
          "5.07": "Submission of Matters to a Vote of Security Holders",
          "7.01": "Regulation FD Disclosure", "8.01": "Other Events",
          "9.01": "Financial Statements and Exhibits"}
_PRODUCTS = ("Cloud", "Analytics", "Edge Computing", "Payments", "Data", "AI", "Security")
_SEGMENTS = ("Enterprise", "Consumer", "Healthcare", "Industrial", "International")
_TARGETS = ("Northwind Systems", "Brightline Labs", "Cedar Analytics", "Harbor Robotics",
            "Meridian Software")
_EVENTS = ("Global Technology Conference", "Annual Investor Forum", "Growth Conference")


def esc(text: str) -> str:
    return html.escape(text, quote=True)


def long_date(day: date) -> str:
    return f"{day:%B} {day.day}, {day.year}"


# -- JSON answers ---------------------------------------------------------------------------
def company_tickers() -> dict[str, dict[str, Any]]:
    """``company_tickers.json``: one row per ticker, largest company first."""
    rows = [{"cik_str": c.cik, "ticker": ticker, "title": c.name}
            for c in all_companies() for ticker in c.tickers]
    return {str(i): row for i, row in enumerate(rows)}


def _address(c: Company) -> dict[str, Any]:
    header = _company_header(c.instrument)
    return {"street1": header["address1"], "street2": None, "city": header["city"].upper(),
            "stateOrCountry": header.get("state", "DE"), "zipCode": header.get("zip"),
            "stateOrCountryDescription": header.get("state", "DE")}


def submissions(c: Company, recent: list[Filing]) -> dict[str, Any]:
    """``submissions/CIK##########.json`` in EDGAR's key order."""
    sic, sic_text, owner = _SIC.get(c.instrument.sector or "", ("9995", "Non-Operating "
                                                                 "Establishments", ""))
    address = _address(c)

    def column(pick: Any) -> list[Any]:
        return [pick(f) for f in recent]

    periodic = ("8-K", "10-Q", "10-K", "6-K", "20-F")
    return {
        "cik": f"{c.cik:010d}", "entityType": "operating", "sic": sic,
        "sicDescription": sic_text, "ownerOrg": owner,
        "insiderTransactionForOwnerExists": 0, "insiderTransactionForIssuerExists": 1,
        "name": c.name, "tickers": list(c.tickers), "exchanges": [c.exchange] * len(c.tickers),
        "ein": f"{stable_hash('ein', c.cik) % 10**9:09d}", "lei": None, "description": "",
        "website": "", "investorWebsite": "", "category": "Large accelerated filer",
        "fiscalYearEnd": "1231", "stateOfIncorporation": "DE",
        "stateOfIncorporationDescription": "DE",
        "addresses": {"mailing": address, "business": address},
        "phone": f"{200 + c.cik % 700}-555-{c.cik % 10000:04d}", "flags": "",
        "formerNames": [],
        "filings": {
            "recent": {
                "accessionNumber": column(lambda f: f.accession),
                "filingDate": column(lambda f: f.day.isoformat()),
                "reportDate": column(lambda f: f.report_date),
                "acceptanceDateTime": column(lambda f: f.accepted),
                "act": column(lambda f: "34" if f.form in periodic else ""),
                "form": column(lambda f: f.form),
                "fileNumber": column(lambda f: f"001-{c.cik % 100000:05d}"
                                     if f.form in periodic else ""),
                "filmNumber": column(lambda f: str(stable_hash("film", f.accession)
                                                   % 10**8) if f.form in periodic else ""),
                "items": column(lambda f: f.items),
                "core_type": column(lambda f: f.form),
                "size": column(lambda f: 5000 + stable_hash("size", f.accession) % 400000),
                "isXBRL": column(lambda f: int(f.form in periodic)),
                "isInlineXBRL": column(lambda f: int(f.form in periodic)),
                "primaryDocument": column(lambda f: f.primary),
                "primaryDocDescription": column(lambda f: f.description),
            },
            "files": [],
        },
    }


def _documents(f: Filing) -> list[tuple[str, str, str]]:
    """(type, description, file name) of every document, in sequence order."""
    return [(f.form, f.description, f.primary),
            *((e.type, e.description, e.document) for e in f.exhibits)]


def _size(f: Filing, name: str) -> int:
    return 3000 + stable_hash("docsize", f.accession, name) % 150000


def folder_listing(f: Filing) -> dict[str, Any]:
    """The folder's ``index.json`` (file names only, as on EDGAR)."""
    items = [{"last-modified": f"{f.day.isoformat()} 16:30:00", "name": name,
              "type": "text.gif", "size": str(_size(f, name))}
             for _, _, name in _documents(f) if "/" not in name]
    items.append({"last-modified": f"{f.day.isoformat()} 16:30:00",
                  "name": f"{f.accession}-index.htm", "type": "text.gif", "size": ""})
    return {"directory": {"item": items, "name": f"{ARCHIVES}/{f.cik}/{f.folder}",
                          "parent-dir": f"{ARCHIVES}/{f.cik}"}}


class Filer(Protocol):
    """Who filed: a company, or a manager of the 13F sandbox."""

    @property
    def cik(self) -> int: ...

    @property
    def name(self) -> str: ...


def index_page(c: Filer, f: Filing) -> str:
    """The filing's ``-index.htm``: a header with dates and items, then the Document
    Format Files table (Seq, Description, Document, Type, Size)."""
    base = f"{ARCHIVES}/{f.cik}/{f.folder}"
    rows = []
    for seq, (kind, description, name) in enumerate(_documents(f), start=1):
        link = f"/ix?doc={base}/{name}" if seq == 1 and f.form in ("8-K", "10-Q", "10-K") \
            else f"{base}/{name}"
        xbrl = ' &nbsp;&nbsp;<span style="color: green">iXBRL</span>' \
            if link.startswith("/ix?") else ""
        css = ' class="evenRow"' if seq % 2 == 0 else ""
        rows.append(f'<tr{css}>\n<td scope="row">{seq}</td>\n'
                    f'<td scope="row">{esc(description)}</td>\n'
                    f'<td scope="row"><a href="{esc(link)}">{esc(name.rsplit("/", 1)[-1])}'
                    f"</a>{xbrl}</td>\n<td scope=\"row\">{esc(kind)}</td>\n"
                    f'<td scope="row">{_size(f, name)}</td>\n</tr>\n')
    rows.append('<tr>\n<td scope="row">&nbsp;</td>\n<td scope="row">Complete submission '
                f'text file</td>\n<td scope="row"><a href="{base}/{f.accession}.txt">'
                f'{f.accession}.txt</a></td>\n<td scope="row">&nbsp;</td>\n'
                f'<td scope="row">{_size(f, "txt") * 10}</td>\n</tr>\n')
    items = "<br />".join(f"Item {i}: {esc(_ITEMS.get(i, 'Other'))}"
                          for i in f.items.split(",") if i)
    header = (f'<div class="formGrouping">\n<div class="infoHead">Filing Date</div>\n'
              f'<div class="info">{f.day.isoformat()}</div>\n<div class="infoHead">Accepted'
              f'</div>\n<div class="info">{f.accepted[:19].replace("T", " ")}</div>\n'
              f'<div class="infoHead">Documents</div>\n<div class="info">'
              f"{len(_documents(f))}</div>\n</div>\n")
    if items:
        header += (f'<div class="formGrouping">\n<div class="infoHead">Items</div>\n'
                   f'<div class="info">{items}</div>\n</div>\n')
    return ('<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" '
            '"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">\n'
            '<html xmlns="http://www.w3.org/1999/xhtml">\n<head>\n'
            f"<title>EDGAR Filing Documents for {f.accession}</title>\n</head>\n"
            '<body style="margin: 0">\n<div id="PageTitle">Filing Detail</div>\n'
            '<div id="contentDiv">\n<div id="formDiv">\n<div id="formHeader">\n'
            f'<div id="formName"><strong>Form {esc(f.form)}</strong> - Current report:</div>\n'
            '<div id="secNum"><strong><acronym title="Securities and Exchange Commission">SEC'
            '</acronym> Accession <acronym title="Number">No.</acronym></strong> '
            f"{f.accession}</div>\n</div>\n"
            f'<div class="formContent">\n{header}</div>\n</div>\n'
            '<div id="filerDiv"><div class="companyInfo"><span class="companyName">'
            f"{esc(c.name)} (Filer) <acronym title=\"Central Index Key\">CIK</acronym>: "
            f'<a href="/cgi-bin/browse-edgar?action=getcompany&amp;CIK={c.cik:010d}">'
            f"{c.cik:010d}</a></span></div></div>\n"
            '<div id="formDiv">\n<div style="padding: 0px 0px 4px 0px; font-size: 12px; '
            'margin: 0px 2px 0px 5px; width: 100%; overflow:hidden">\n'
            f"<p>Document Format Files</p>\n"
            '<table class="tableFile" summary="Document Format Files">\n<tr>\n'
            '<th scope="col" style="width: 5%;"><acronym title="Sequence Number">Seq'
            '</acronym></th>\n<th scope="col" style="width: 40%;">Description</th>\n'
            '<th scope="col" style="width: 20%;">Document</th>\n'
            '<th scope="col" style="width: 10%;">Type</th>\n<th scope="col">Size</th>\n'
            "</tr>\n" + "".join(rows) + "</table>\n</div>\n</div>\n</div>\n</body>\n</html>\n")


# -- the documents --------------------------------------------------------------------------
def display_name(c: Company) -> str:
    inst = c.instrument
    return inst.display_name or inst.short_name


def _topic(c: Company, f: Filing) -> tuple[str, str]:
    """(headline, what the first paragraph says was announced) of an announcement."""
    name = display_name(c)
    h = stable_hash("topic-detail", f.accession)
    product, segment = _PRODUCTS[h % len(_PRODUCTS)], _SEGMENTS[h % len(_SEGMENTS)]
    target, event, amount = _TARGETS[h % len(_TARGETS)], _EVENTS[h % len(_EVENTS)], 2 + h % 9
    return (
        (f"{name} Announces Quarterly Dividend",
         "that its board of directors declared a quarterly cash dividend on the company's "
         "common stock"),
        (f"{name} Unveils Next-Generation {product} Platform",
         f"the next generation of its {product} platform"),
        (f"{name} Announces Strategic Partnership to Expand {segment} Offerings",
         f"a strategic partnership to expand its {segment.lower()} offerings"),
        (f"{name} Completes Acquisition of {target}",
         f"that it has completed the acquisition of {target}"),
        (f"{name} Board Authorizes New ${amount} Billion Share Repurchase Program",
         f"that its board of directors authorized a new ${amount} billion share repurchase "
         "program"),
        (f"{name} to Present at the {event}", f"that it will present at the {event}"),
        (f"{name} Names New Chief Financial Officer",
         "the appointment of a new chief financial officer"),
    )[f.topic]


def headline(c: Company, f: Filing) -> str:
    """The release's headline (it names the company)."""
    if f.kind == "earnings":
        return f"{display_name(c)} Reports {f.period} Fiscal {f.fiscal_year} Results"
    return _topic(c, f)[0]


def _subheadline(f: Filing) -> str:
    if f.kind == "earnings":
        change = round(-5 + 20 * unit("rev-change", f.accession), 1)
        return (f"Revenue {'up' if change >= 0 else 'down'} {abs(change)} percent year over "
                "year; record results in services")
    return "Expands the company's reach with customers worldwide"


def _figures(c: Company, f: Filing) -> dict[str, float]:
    """Quarterly figures in millions, scaled to the company's market value (sales a tenth of
    it a year) so per-share numbers look plausible."""
    inst = c.instrument
    shares = max(inst.shares_outstanding / 1e6, 1.0)
    revenue = round(inst.anchor_price * shares * (0.05 + 0.15 * unit("rev", f.cik))
                    * (0.9 + 0.2 * unit("revq", f.accession)) / 4)
    cost = round(revenue * (0.35 + 0.3 * unit("cost", f.cik)))
    opex = round((revenue - cost) * (0.3 + 0.4 * unit("opex", f.accession)))
    operating = revenue - cost - opex
    net = round(operating * 0.82)
    return {"Net sales": revenue, "Cost of sales": cost, "Gross margin": revenue - cost,
            "Operating expenses": opex, "Operating income": operating, "Net income": net,
            "Diluted earnings per share": round(net / shares, 2)}


def _location(c: Company) -> str:
    header = _company_header(c.instrument)
    return f"{header['city'].upper()}, {header.get('state', '')}".rstrip(", ")


def _paragraphs(c: Company, f: Filing) -> list[str]:
    inst, name = c.instrument, display_name(c)
    officer = _officers(inst)[0]["name"]
    opening = f"{_location(c)} — {long_date(f.day)} — {c.name} ({c.exchange}: {c.ticker})"
    if f.kind == "earnings":
        fig = _figures(c, f)
        change = round(-5 + 20 * unit("rev-change", f.accession), 1)
        first = (f"{opening} today announced financial results for its fiscal "
                 f"{f.fiscal_year} {_ORDINALS[f.period]} quarter. The company posted "
                 f"quarterly revenue of ${fig['Net sales'] / 1000:.1f} billion, "
                 f"{'up' if change >= 0 else 'down'} {abs(change)} percent year over year, "
                 f"and quarterly earnings per diluted share of "
                 f"${fig['Diluted earnings per share']:.2f}.")
        quote = (f"“We are pleased with our {_ORDINALS[f.period]}-quarter performance,” said "
                 f"{officer}, chief executive officer of {name}. “Our teams executed well "
                 "across every region, and we continue to invest in the products and "
                 "services our customers rely on.”")
    else:
        first = (f"{opening} today announced {_topic(c, f)[1]}. The announcement reflects "
                 "the company's long-term strategy of investing in its core businesses, "
                 "serving customers in every region and returning value to its "
                 "shareholders over time, and follows a review by the board of directors "
                 "and the management team.")
        quote = (f"“This is an important step for {name},” said {officer}, chief executive "
                 "officer. “We look forward to sharing more with our customers, partners "
                 "and shareholders in the months ahead.”")
    about = (f"{c.name} designs, develops and sells products and services in the "
             f"{(inst.industry or 'diversified').lower()} industry. (Synthetic sandbox "
             "press release.)")
    caution = ("This press release contains forward-looking statements that involve risks "
               "and uncertainties. Actual results may differ materially from those "
               "projected. The company assumes no obligation to update any forward-looking "
               "statements.")
    return [first, quote, f"About {name}", about, caution]


def _contacts(c: Company) -> list[str]:
    domain = display_name(c).split()[0].lower().strip(",.")
    return ["Press Contact:", f"press@{domain}.sandbox.invalid",
            f"({200 + c.cik % 700}) 555-{c.cik % 10000:04d}"]


def _layout(f: Filing) -> str:
    return ("bold", "heading", "plain")[stable_hash("layout", f.accession) % 3]


def _table(c: Company, f: Filing) -> str:
    rows = "".join(
        f"<tr><td>{esc(label)}</td><td>$</td><td style=\"text-align:right\">"
        f"{value:,.2f}</td></tr>\n" if isinstance(value, float)
        else f"<tr><td>{esc(label)}</td><td>$</td><td style=\"text-align:right\">"
             f"{value:,}</td></tr>\n"
        for label, value in _figures(c, f).items())
    return ('<p style="font-weight:bold">Condensed Consolidated Statements of Operations '
            "(Unaudited)</p>\n<p>(In millions, except per-share amounts)</p>\n"
            f'<table style="width:100%">\n{rows}</table>\n')


def release_html(c: Company, f: Filing) -> str:
    title, sub = esc(headline(c, f)), esc(_subheadline(f))
    paragraphs = [esc(p) for p in _paragraphs(c, f)]
    layout = _layout(f)
    if layout == "bold":
        top = ('<div style="text-align:right"><span style="font-weight:700">Exhibit 99.1'
               '</span></div>\n<div style="text-align:center"><img src="logo.jpg" '
               f'alt="{esc(display_name(c))} logo"></div>\n'
               '<p style="font-weight:bold">FOR IMMEDIATE RELEASE</p>\n'
               f'<p style="text-align:center"><span style="font-weight:700;font-size:14pt">'
               f"{title}</span></p>\n<p style=\"text-align:center\"><i>{sub}</i></p>\n")
    elif layout == "heading":
        top = (f"<p>Exhibit 99.1</p>\n<h2>NEWS RELEASE</h2>\n<p>{long_date(f.day)}</p>\n"
               f"<h1>{title}</h1>\n<p><i>{sub}</i></p>\n")
    else:
        top = (f"<p>EXHIBIT 99.1</p>\n<p>{title}</p>\n<p><i>{sub}</i></p>\n")
    body = f"<p>{paragraphs[0]}</p>\n<p>{paragraphs[1]}</p>\n"
    if f.kind == "earnings":
        body += _table(c, f)
    body += (f"<p><b>{paragraphs[2]}</b></p>\n<p>{paragraphs[3]}</p>\n"
             f"<p><i>{paragraphs[4]}</i></p>\n<p>" + "<br>".join(esc(x) for x in _contacts(c))
             + "</p>\n")
    return ("<html>\n<head>\n<title>Document</title>\n</head>\n<body>\n"
            f"{top}{body}</body>\n</html>\n")


def release_text(c: Company, f: Filing) -> str:
    """The plain-text layout of EX-99.1 (old-style ``.txt`` exhibits)."""
    paragraphs = _paragraphs(c, f)
    return "\n\n".join(["<PAGE>", "EXHIBIT 99.1", headline(c, f), _subheadline(f),
                        *paragraphs, "\n".join(_contacts(c))]) + "\n"


def cfo_commentary(c: Company, f: Filing) -> str:
    return ("<html><body><p>Exhibit 99.2</p>\n<p><b>CFO Commentary on "
            f"{esc(f.period)} Fiscal {f.fiscal_year} Financial Results</b></p>\n"
            f"<p>{esc(display_name(c))}'s chief financial officer comments on the quarter's "
            "results, margins and outlook. (Synthetic sandbox exhibit.)</p></body></html>\n")


def primary_document(c: Company, f: Filing) -> str:
    items = "".join(f"<p><b>Item {i}. {esc(_ITEMS.get(i, 'Other'))}</b></p>\n"
                    for i in f.items.split(",") if i)
    exhibits = "".join(f"<p>{esc(e.type.removeprefix('EX-'))} {esc(e.description.title())}"
                       "</p>\n" for e in f.exhibits)
    return ('<html><head><title>' + esc(f.form) + "</title></head><body>\n"
            "<p>UNITED STATES SECURITIES AND EXCHANGE COMMISSION</p>\n"
            f"<p><b>FORM {esc(f.form)}</b></p>\n<p>{esc(c.name)}</p>\n"
            f"<p>Date of report: {long_date(f.day)}</p>\n{items}{exhibits}</body></html>\n")


def agreement(c: Company, f: Filing, e: Exhibit) -> str:
    return ("<html><body><p>Exhibit 10.1</p>\n<p><b>MASTER SUPPLY AGREEMENT</b></p>\n"
            f"<p>This agreement is entered into by {esc(c.name)} and its counterparty. "
            "(Synthetic sandbox exhibit.)</p></body></html>\n")


def document(c: Company, f: Filing, name: str) -> tuple[str, str] | None:
    """(body, content type) of a document of the filing, None when it has no such file."""
    if name == f.primary:
        return primary_document(c, f), "text/html"
    for e in f.exhibits:
        if e.document != name:
            continue
        if e.type == "EX-99.1":
            if name.endswith(".txt"):
                return release_text(c, f), "text/plain"
            return release_html(c, f), "text/html"
        if e.type == "EX-99.2":
            return cfo_commentary(c, f), "text/html"
        return agreement(c, f, e), "text/html"
    return None
