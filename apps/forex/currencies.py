"""Currency codes the forex endpoint accepts: the active ISO 4217 codes, curated.

Why a list in code: an unknown code must be a 404 before any upstream call, and neither
upstream can say "no such currency" apart from "no quote for this pair". The set holds the
circulating currencies of ISO 4217 (list one, as amended to 2026), plus gold, silver,
platinum, palladium and the SDR, which quote sources carry. Left out: fund codes (BOV, CHE,
CHW, CLF, COU, MXV, USN, UYI, UYW, XSU, XUA), bond-market units (XBA..XBD), the test and
"no currency" codes (XTS, XXX), and withdrawn codes (BGN since Bulgaria adopted the euro in
2026, ANG replaced by XCG in 2025, HRK, SLL, ZWL, CUC, VEF ...). Offshore or market codes
that ISO does not list (CNH) are not currencies here either.
"""

from __future__ import annotations

import re

from marketdata.errors import FieldError, InvalidParameters, NotFound

ISO_4217_ACTIVE: frozenset[str] = frozenset("""
AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BRL BSD BTN BWP BYN
BZD CAD CDF CHF CLP CNY COP CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP
GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS
KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR
MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD
RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP
TRY TTD TWD TZS UAH UGX USD UYU UZS VED VES VND VUV WST XAF XCD XCG XOF XPF YER ZAR ZMW
ZWG
XAU XAG XPT XPD XDR
""".split())

_CODE = re.compile(r"[A-Za-z]{3}", re.ASCII)
CODE_MESSAGE = "Input should be a 3-letter ISO 4217 currency code"


def currency_pair(base_text: str, quote_text: str) -> tuple[str, str]:
    """The upper-cased (base, quote) codes of a request.

    Not three ASCII letters: 400 naming the path segment(s) (both reported at once);
    three letters that are no active ISO 4217 code: 404. Checked before any upstream call.
    """
    errors = [FieldError(name, CODE_MESSAGE, "string_pattern_mismatch", text, location="path")
              for name, text in (("from", base_text), ("to", quote_text))
              if not _CODE.fullmatch(text)]
    if errors:
        raise InvalidParameters(errors)
    base, quote = base_text.upper(), quote_text.upper()
    for code in (base, quote):
        if code not in ISO_4217_ACTIVE:
            raise NotFound(f"Unknown currency code: {code}")
    return base, quote
