"""Hand-made SEC bodies in the real shapes of the N-PORT calls (no recording of them exists):
``company_tickers_mf.json``, browse-edgar's Atom list of a series' filings, and an N-PORT-P
``primary_doc.xml`` with the parts a parser meets in real reports: several asset and issuer
categories, a future and a swap (derivatives, with identifiers of their reference
instrument nested inside), a bond's debt section, a euro-denominated holding written with
``currencyConditional``, ``assetConditional``/``issuerConditional`` for OTHER, a restricted
level-3 holding, a short position, missing identifiers (``N/A``, ``000000000``) and a
holding without a weight."""

from __future__ import annotations

from collections.abc import Iterable

FUND_TICKERS = {
    "fields": ["cik", "seriesId", "classId", "symbol"],
    "data": [
        [36405, "S000002839", "C000092055", "VOO"],
        [36405, "S000002839", "C000007773", "VFIAX"],
        ["36405", "S000002848", "C000007806", "VTSAX"],
        [1100663, "S000004347", "C000012171", "TLT"],
        [0, "S000000001", "C000000001", "ZERO"],  # no CIK: skipped
        [5, "X1", "C000000002", "BADSERIES"],  # not a series id: skipped
        [5, "S000000003", "C000000003", None],  # no ticker: skipped
        "not a row",
    ],
}

BROWSE = "https://www.sec.gov/cgi-bin/browse-edgar"
FUND_TICKERS_URL = "https://www.sec.gov/files/company_tickers_mf.json"
ARCHIVES = "https://www.sec.gov/Archives/edgar/data"


def atom(entries: Iterable[tuple[str, str, str]], cik: int = 36405) -> str:
    """browse-edgar's ``output=atom`` answer: ``entries`` are (form, accession, filing
    date), newest first, as EDGAR lists them."""
    def index(accession: str) -> str:
        return f"{ARCHIVES}/{cik}/{accession.replace('-', '')}/{accession}-index.htm"

    body = "".join(
        f"""<entry>
<category label="form type" scheme="https://www.sec.gov/" term="{form}" />
<content type="text/xml">
<accession-number>{accession}</accession-number>
<act>40</act>
<file-number>811-02652</file-number>
<filing-date>{filed}</filing-date>
<filing-href>{index(accession)}</filing-href>
<filing-type>{form}</filing-type>
<form-name>Monthly Portfolio Investments Report on Form N-PORT (Public)</form-name>
<size>3 MB</size>
</content>
<id>urn:tag:sec.gov,2008:accession-number={accession}</id>
<link href="{index(accession)}" rel="alternate" type="text/html" />
<summary type="html"> &lt;b&gt;Filed:&lt;/b&gt; {filed}
&lt;b&gt;AccNo:&lt;/b&gt; {accession}</summary>
<title>{form}  - Monthly Portfolio Investments Report on Form N-PORT (Public)</title>
<updated>{filed}T16:05:12-04:00</updated>
</entry>
""" for form, accession, filed in entries)
    return f"""<?xml version="1.0" encoding="ISO-8859-1" ?>
<feed xmlns="http://www.w3.org/2005/Atom">
<author>
<email>webmaster@sec.gov</email>
<name>Webmaster</name>
</author>
<company-info>
<cik>{cik:010d}</cik>
<conformed-name>VANGUARD INDEX FUNDS</conformed-name>
<fiscal-year-end>1231</fiscal-year-end>
</company-info>
{body}<id>{BROWSE}?action=getcompany&amp;CIK=S000002839&amp;type=NPORT-P</id>
<title>VANGUARD INDEX FUNDS  ({cik:010d})</title>
<updated>2024-11-26T16:05:12-04:00</updated>
</feed>
"""


HOLDINGS = """
<invstOrSec>
  <name>Apple Inc</name><lei>HWUPKR0MPOU8FGXBT394</lei><title>Apple Inc</title>
  <cusip>037833100</cusip>
  <identifiers><isin value="US0378331005"/></identifiers>
  <balance>1000.000000</balance><units>NS</units><curCd>USD</curCd>
  <valUSD>226000.00</valUSD><pctVal>22.6</pctVal><payoffProfile>Long</payoffProfile>
  <assetCat>EC</assetCat><issuerCat>CORP</issuerCat><invCountry>US</invCountry>
  <isRestrictedSec>N</isRestrictedSec><fairValLevel>1</fairValLevel>
  <securityLending><isCashCollateral>N</isCashCollateral><isNonCashCollateral>N</isNonCashCollateral><isLoanByFund>N</isLoanByFund></securityLending>
</invstOrSec>
<invstOrSec>
  <name>United States Treasury</name><lei>254900HROIFWPRGM1V77</lei>
  <title>United States Treasury Note/Bond 4% 02/15/2034</title><cusip>91282CJZ5</cusip>
  <identifiers><isin value="US91282CJZ59"/></identifiers>
  <balance>100000.00</balance><units>PA</units><curCd>USD</curCd>
  <valUSD>98000.50</valUSD><pctVal>9.80005</pctVal><payoffProfile>Long</payoffProfile>
  <assetCat>DBT</assetCat><issuerCat>UST</issuerCat><invCountry>US</invCountry>
  <isRestrictedSec>N</isRestrictedSec><fairValLevel>2</fairValLevel>
  <debtSec><maturityDt>2034-02-15</maturityDt><couponKind>Fixed</couponKind>
    <annualizedRt>4.000000</annualizedRt><isDefault>N</isDefault></debtSec>
</invstOrSec>
<invstOrSec>
  <name>Vanguard Market Liquidity Fund</name><lei>N/A</lei>
  <title>Vanguard Market Liquidity Fund</title><cusip>000000000</cusip>
  <identifiers><other otherDesc="Internal" value="VMLF"/></identifiers>
  <balance>50000.00</balance><units>NS</units><curCd>USD</curCd>
  <valUSD>50000.00</valUSD><pctVal>5.0</pctVal><payoffProfile>Long</payoffProfile>
  <assetCat>STIV</assetCat><issuerCat>RF</issuerCat><invCountry>US</invCountry>
  <isRestrictedSec>N</isRestrictedSec><fairValLevel>1</fairValLevel>
</invstOrSec>
<invstOrSec>
  <name>Chicago Mercantile Exchange</name><lei>SNZ2OJLFK8MNNCLQOF39</lei>
  <title>E-mini S&amp;P 500 Future Dec 2024</title><cusip>N/A</cusip>
  <identifiers><other otherDesc="Exchange symbol" value="ESZ4"/></identifiers>
  <balance>10.00</balance><units>NC</units><curCd>USD</curCd>
  <valUSD>-1250.75</valUSD><pctVal>-0.125075</pctVal><payoffProfile>N/A</payoffProfile>
  <assetCat>DE</assetCat><issuerCat>CORP</issuerCat><invCountry>US</invCountry>
  <isRestrictedSec>N</isRestrictedSec><fairValLevel>1</fairValLevel>
  <derivativeInfo><futrDeriv derivCat="FUT">
    <counterparties><counterpartyName>Chicago Mercantile Exchange</counterpartyName>
      <counterpartyLei>SNZ2OJLFK8MNNCLQOF39</counterpartyLei></counterparties>
    <payOffProf>Long</payOffProf>
    <descRefInstrmnt><otherRefInst><issuerName>SPDR S&amp;P 500 ETF Trust</issuerName>
      <issueTitle>SPDR S&amp;P 500 ETF Trust</issueTitle>
      <identifiers><isin value="US78462F1030"/><ticker value="SPY"/></identifiers>
    </otherRefInst></descRefInstrmnt>
    <expDate>2024-12-20</expDate><notionalAmt>2850000.00</notionalAmt><curCd>USD</curCd>
    <unrealizedAppr>-1250.75</unrealizedAppr>
  </futrDeriv></derivativeInfo>
</invstOrSec>
<invstOrSec>
  <name>SAP SE</name><lei>529900D6BF99LW9R2E68</lei><title>SAP SE</title><cusip>N/A</cusip>
  <identifiers><isin value="DE0007164600"/></identifiers>
  <balance>300.00</balance><units>NS</units>
  <currencyConditional curCd="EUR" exchangeRt="0.925"/>
  <valUSD>70000.00</valUSD><pctVal>7.0</pctVal><payoffProfile>Long</payoffProfile>
  <assetCat>EC</assetCat><issuerCat>CORP</issuerCat><invCountry>DE</invCountry>
  <isRestrictedSec>N</isRestrictedSec><fairValLevel>1</fairValLevel>
</invstOrSec>
<invstOrSec>
  <name>Example Gold Trust</name><lei>N/A</lei><title>Example Gold Trust shares</title>
  <cusip>N/A</cusip><identifiers><ticker value="exgt"/></identifiers>
  <balance>100.00</balance><units>NS</units><curCd>USD</curCd>
  <valUSD>20000.00</valUSD><pctVal>2.0</pctVal><payoffProfile>Long</payoffProfile>
  <assetConditional assetCat="OTHER" description="Grantor trust"/>
  <issuerConditional issuerCat="OTHER" desc="Commodity trust"/>
  <invCountry>US</invCountry><isRestrictedSec>N</isRestrictedSec><fairValLevel>1</fairValLevel>
</invstOrSec>
<invstOrSec>
  <name>Private Robotics Inc</name><lei>N/A</lei><title>Series C Preferred</title>
  <cusip>N/A</cusip><identifiers><other otherDesc="Private" value="PRB-C"/></identifiers>
  <balance>500.00</balance><units>NS</units><curCd>USD</curCd>
  <valUSD>4000.00</valUSD><pctVal>0.4</pctVal><payoffProfile>Long</payoffProfile>
  <assetCat>EP</assetCat><issuerCat>CORP</issuerCat><invCountry>US</invCountry>
  <isRestrictedSec>Y</isRestrictedSec><fairValLevel>3</fairValLevel>
</invstOrSec>
<invstOrSec>
  <name>Tesla Inc</name><lei>54930043XZGB27CTOV49</lei><title>Tesla Inc</title>
  <cusip>88160R101</cusip><identifiers><isin value="US88160R1014"/></identifiers>
  <balance>-50.00</balance><units>NS</units><curCd>USD</curCd>
  <valUSD>-15000.00</valUSD><pctVal>-1.5</pctVal><payoffProfile>Short</payoffProfile>
  <assetCat>EC</assetCat><issuerCat>CORP</issuerCat><invCountry>US</invCountry>
  <isRestrictedSec>N</isRestrictedSec><fairValLevel>1</fairValLevel>
</invstOrSec>
<invstOrSec>
  <name>Goldman Sachs Bank USA</name><lei>KD3XUN7C6T14HNAYLU02</lei>
  <title>Interest rate swap 3.5% 2029</title><cusip>N/A</cusip>
  <identifiers><other otherDesc="Swap id" value="IRS-1"/></identifiers>
  <balance>1.00</balance><units>OU</units><descOthUnits>Notional</descOthUnits>
  <curCd>USD</curCd><valUSD>N/A</valUSD><pctVal>N/A</pctVal>
  <payoffProfile>N/A</payoffProfile><assetCat>DIR</assetCat><issuerCat>CORP</issuerCat>
  <invCountry>US</invCountry><isRestrictedSec>N</isRestrictedSec><fairValLevel>2</fairValLevel>
  <derivativeInfo><swapDeriv derivCat="SWP"><counterparties>
    <counterpartyName>Goldman Sachs Bank USA</counterpartyName></counterparties>
  </swapDeriv></derivativeInfo>
</invstOrSec>
"""


def nport_xml(series_id: str = "S000002839", as_of: str = "2024-09-30",
              holdings: str = HOLDINGS, form: str = "NPORT-P",
              series_name: str = "Vanguard 500 Index Fund") -> str:
    """An N-PORT report as filers' software writes it (default namespace, ``com``/``ncom``
    declared, a header that names the series too)."""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<edgarSubmission xmlns="http://www.sec.gov/edgar/nport"
 xmlns:com="http://www.sec.gov/edgar/common" xmlns:ncom="http://www.sec.gov/edgar/nportcommon"
 xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <headerData>
    <submissionType>{form}</submissionType>
    <isConfidential>false</isConfidential>
    <filerInfo>
      <filer><issuerCredentials><cik>0000036405</cik><ccc>XXXXXXXX</ccc></issuerCredentials></filer>
      <seriesClassInfo><seriesId>{series_id}</seriesId><classId>C000092055</classId></seriesClassInfo>
    </filerInfo>
  </headerData>
  <formData>
    <genInfo>
      <regName>VANGUARD INDEX FUNDS</regName><regFileNumber>811-02652</regFileNumber>
      <regCik>0000036405</regCik><regLei>549300X0S6S6BUCQ5D26</regLei>
      <regStreet1>PO Box 2600</regStreet1><regCity>Valley Forge</regCity>
      <regStateConditional regCountry="US" regState="US-PA"/>
      <regZipOrPostalCode>19482</regZipOrPostalCode><regPhone>610-669-1000</regPhone>
      <seriesName>{series_name}</seriesName><seriesId>{series_id}</seriesId>
      <seriesLei>549300KZYX5KJW7WGT63</seriesLei>
      <repPdEnd>2024-12-31</repPdEnd><repPdDate>{as_of}</repPdDate>
      <isFinalFiling>N</isFinalFiling>
    </genInfo>
    <fundInfo>
      <totAssets>1010000.00</totAssets><totLiabs>10000.00</totLiabs>
      <netAssets>1000000.00</netAssets><assetsAttrMiscSec>0.00</assetsAttrMiscSec>
      <assetsInvested>0.00</assetsInvested>
    </fundInfo>
    <invstOrSecs>{holdings}</invstOrSecs>
    <signature><dateSigned>2024-11-20</dateSigned><nameOfApplicant>Vanguard</nameOfApplicant>
      <signature>Treasurer</signature><title>Treasurer</title></signature>
  </formData>
</edgarSubmission>
"""
