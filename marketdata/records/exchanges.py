"""The exchanges Yahoo Finance covers: country, market, Yahoo's symbol suffix, quote delay
and data provider, as Yahoo publishes them on its help page "Exchanges and data providers
on Yahoo Finance" (help.yahoo.com, article SLN2310).

Why a table in the repository and not a scrape of that page: the page is a help article,
restyled at will and rarely changed in substance; a table here is reviewed like code, is
served without an upstream call, and is the one suffix table of the service (the risk
metrics read a listing's region from it). How it is maintained: docs/api-notes.md.

Texts are kept as Yahoo writes them: ``suffix`` with its dot (``.TO``), ``N/A`` where a
market has none (US listings, indices); ``delay`` as ``Real-time`` or ``<n> min``.
``region`` (ISO 3166 code of the country, None for a multi-country market) is not a
member of the answer; it maps a suffix to the market-hours region.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from marketdata.records.members import member

NO_SUFFIX = "N/A"
REAL_TIME = "Real-time"
ICE = "ICE Data Services"


@dataclass(frozen=True)
class Exchange:
    """One market Yahoo Finance covers, as its help page lists it; ``region`` (the market
    hours' region code, None where the service has no calendar) is not an answer member."""

    country: str = member("Country, or `Europe` for a market of several countries")
    market: str = member("Exchange or market, e.g. `Toronto Stock Exchange (TSX)`")
    suffix: str = member("Yahoo's symbol suffix, dot included (`.TO`: `SHOP.TO`); `N/A` "
                         "where the market has none (US listings, indices)")
    delay: str = member("Quote delay: `Real-time` or `<n> min`")
    data_provider: str = member("Who supplies Yahoo the data")
    region: str | None = field(kw_only=True)


def _rows(country: str, region: str | None,
          markets: tuple[tuple[str, str, str], ...], provider: str = ICE) -> list[Exchange]:
    return [Exchange(country, market, suffix, delay, provider, region=region)
            for market, suffix, delay in markets]


US = "United States of America"

# Yahoo's order: the United States first, then by country.
EXCHANGES: tuple[Exchange, ...] = tuple([
    *_rows(US, "US", (
        ("Chicago Board of Trade (CBOT)", ".CBT", "10 min"),
        ("Chicago Mercantile Exchange (CME)", ".CME", "10 min"),
        ("Dow Jones Indexes", NO_SUFFIX, REAL_TIME),
        ("NASDAQ Stock Exchange", NO_SUFFIX, REAL_TIME),
        ("ICE Futures US", ".NYB", "30 min"),
        ("New York Commodities Exchange (COMEX)", ".CMX", "30 min"),
        ("New York Mercantile Exchange (NYMEX)", ".NYM", "30 min"),
        ("New York Stock Exchange (NYSE)", NO_SUFFIX, REAL_TIME),
        ("Options Price Reporting Authority (OPRA)", NO_SUFFIX, "15 min"),
        ("OTC Bulletin Board Market", NO_SUFFIX, REAL_TIME),
        ("OTC Markets Group", NO_SUFFIX, "15 min"),
        ("S & P Indices", NO_SUFFIX, REAL_TIME),
    )),
    *_rows("Argentina", "AR", (("Buenos Aires Stock Exchange (BYMA)", ".BA", "30 min"),)),
    *_rows("Australia", "AU", (
        ("Australian Stock Exchange (ASX)", ".AX", "20 min"),
        ("Cboe Australia", ".XA", "20 min"),
    )),
    *_rows("Austria", "AT", (("Vienna Stock Exchange", ".VI", "15 min"),)),
    *_rows("Belgium", "BE", (("Euronext Brussels", ".BR", "15 min"),)),
    *_rows("Brazil", "BR", (("Sao Paolo Stock Exchange (BOVESPA)", ".SA", "15 min"),)),
    *_rows("Canada", "CA", (
        ("Canadian Securities Exchange", ".CN", "15 min"),
        ("Cboe Canada", ".NE", "15 min"),
        ("Toronto Stock Exchange (TSX)", ".TO", "15 min"),
        ("TSX Venture Exchange (TSXV)", ".V", "15 min"),
    )),
    *_rows("Chile", "CL", (("Santiago Stock Exchange", ".SN", "15 min"),)),
    *_rows("China", "CN", (
        ("Shanghai Stock Exchange", ".SS", "30 min"),
        ("Shenzhen Stock Exchange", ".SZ", "30 min"),
    )),
    *_rows("Czech Republic", "CZ", (("Prague Stock Exchange Index", ".PR", "20 min"),)),
    *_rows("Denmark", "DK", (("Nasdaq OMX Copenhagen", ".CO", REAL_TIME),)),
    *_rows("Egypt", "EG", (("Egyptian Exchange Index (EGID)", ".CA", "20 min"),)),
    *_rows("Estonia", "EE", (("Nasdaq OMX Tallinn", ".TL", REAL_TIME),)),
    *_rows("Europe", None, (
        ("Cboe Europe", ".XD", REAL_TIME),
        ("Euronext", ".NX", "15 min"),
    )),
    *_rows("Finland", "FI", (("Nasdaq OMX Helsinki", ".HE", REAL_TIME),)),
    *_rows("France", "FR", (("Euronext Paris", ".PA", "15 min"),)),
    *_rows("Germany", "DE", (
        ("Berlin Stock Exchange", ".BE", "15 min"),
        ("Bremen Stock Exchange", ".BM", "15 min"),
        ("Dusseldorf Stock Exchange", ".DU", "15 min"),
        ("Frankfurt Stock Exchange", ".F", "15 min"),
        ("Hamburg Stock Exchange", ".HM", "15 min"),
        ("Hanover Stock Exchange", ".HA", "15 min"),
        ("Munich Stock Exchange", ".MU", "15 min"),
        ("Stuttgart Stock Exchange", ".SG", "15 min"),
        ("Deutsche Boerse XETRA", ".DE", "15 min"),
    )),
    *_rows("Greece", "GR", (("Athens Stock Exchange (ATHEX)", ".AT", "15 min"),)),
    *_rows("Hong Kong", "HK", (("Hong Kong Stock Exchange (HKEX)", ".HK", "15 min"),)),
    *_rows("Hungary", "HU", (("Budapest Stock Exchange", ".BD", "15 min"),)),
    *_rows("Iceland", "IS", (("Nasdaq OMX Iceland", ".IC", REAL_TIME),)),
    *_rows("India", "IN", (
        ("Bombay Stock Exchange", ".BO", REAL_TIME),
        ("National Stock Exchange of India", ".NS", REAL_TIME),
    )),
    *_rows("Indonesia", "ID", (("Indonesia Stock Exchange (IDX)", ".JK", "10 min"),)),
    *_rows("Ireland", "IE", (("Euronext Dublin", ".IR", "15 min"),)),
    *_rows("Israel", "IL", (("Tel Aviv Stock Exchange", ".TA", "20 min"),)),
    *_rows("Italy", "IT", (
        ("EuroTLX", ".TI", "20 min"),
        ("Italian Stock Exchange", ".MI", "20 min"),
    )),
    *_rows("Japan", "JP", (("Tokyo Stock Exchange", ".T", "20 min"),)),
    *_rows("Latvia", "LV", (("Nasdaq OMX Riga", ".RG", REAL_TIME),)),
    *_rows("Lithuania", "LT", (("Nasdaq OMX Vilnius", ".VS", REAL_TIME),)),
    *_rows("Malaysia", "MY", (("Malaysian Stock Exchange", ".KL", "15 min"),)),
    *_rows("Mexico", "MX", (("Mexico Stock Exchange (BMV)", ".MX", "20 min"),)),
    *_rows("Netherlands", "NL", (("Euronext Amsterdam", ".AS", "15 min"),)),
    *_rows("New Zealand", "NZ", (("New Zealand Stock Exchange (NZX)", ".NZ", "20 min"),)),
    *_rows("Norway", "NO", (("Oslo Stock Exchange", ".OL", "15 min"),)),
    *_rows("Portugal", "PT", (("Euronext Lisbon", ".LS", "15 min"),)),
    *_rows("Qatar", "QA", (("Qatar Stock Exchange", ".QA", "15 min"),)),
    *_rows("Russia", "RU", (("Moscow Exchange (MOEX)", ".ME", REAL_TIME),)),
    *_rows("Saudi Arabia", "SA", (("Saudi Stock Exchange (Tadawul)", ".SR", "20 min"),)),
    *_rows("Singapore", "SG", (("Singapore Stock Exchange (SGX)", ".SI", "20 min"),)),
    *_rows("South Africa", "ZA", (("Johannesburg Stock Exchange", ".JO", "15 min"),)),
    *_rows("South Korea", "KR", (
        ("Korea Stock Exchange", ".KS", "20 min"),
        ("KOSDAQ", ".KQ", "20 min"),
    )),
    *_rows("Spain", "ES", (("Madrid SE C.A.T.S.", ".MC", "15 min"),)),
    *_rows("Sweden", "SE", (("Nasdaq OMX Stockholm", ".ST", REAL_TIME),)),
    *_rows("Switzerland", "CH", (("Swiss Exchange (SIX)", ".SW", "30 min"),)),
    *_rows("Taiwan", "TW", (
        ("Taiwan OTC Exchange", ".TWO", "20 min"),
        ("Taiwan Stock Exchange (TWSE)", ".TW", "20 min"),
    )),
    *_rows("Thailand", "TH", (("Stock Exchange of Thailand (SET)", ".BK", "15 min"),)),
    *_rows("Turkey", "TR", (("Borsa Istanbul", ".IS", "15 min"),)),
    *_rows("United Kingdom", "GB", (
        ("Cboe UK", ".XC", REAL_TIME),
        ("FTSE Indices", NO_SUFFIX, "15 min"),
        ("London Stock Exchange", ".L", "20 min"),
        ("London Stock Exchange (International Order Book)", ".IL", "20 min"),
    )),
    *_rows("Venezuela", "VE", (("Caracas Stock Exchange", ".CR", "15 min"),)),
    *_rows("Vietnam", "VN", (("Ho Chi Minh City Stock Exchange", ".VN", "15 min"),)),
])


def suffix_regions() -> dict[str, str]:
    """Yahoo symbol suffix (without the dot, ``TO``) -> region (``CA``) of the market it
    names, for every market of :data:`EXCHANGES` with a suffix and a country. A suffix two
    markets share keeps the first market's region."""
    out: dict[str, str] = {}
    for exchange in EXCHANGES:
        if exchange.region is not None and exchange.suffix.startswith("."):
            out.setdefault(exchange.suffix[1:], exchange.region)
    return out
