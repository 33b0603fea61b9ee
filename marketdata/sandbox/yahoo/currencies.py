"""GET /v1/finance/currencies: the currencies the simulated Yahoo quotes.

Why this list: the currencies of the sandbox's instruments and of the ECB's reference rates
(the forex endpoint's two sources), with their English names; Yahoo's pence and cents units
(``GBp``, ``ZAc``, ``ILA``) as Yahoo lists them. Order: by code (Yahoo's own order is not
alphabetical, and clients must not rely on it).
"""

from __future__ import annotations

from marketdata.sandbox.common import json_response
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.common import Request

NAMES = {
    "AED": "UAE Dirham", "ARS": "Argentine Peso", "AUD": "Australian Dollar",
    "BRL": "Brazilian Real", "CAD": "Canadian Dollar", "CHF": "Swiss Franc",
    "CLP": "Chilean Peso", "CNY": "Chinese Yuan", "COP": "Colombian Peso",
    "CZK": "Czech Koruna", "DKK": "Danish Krone", "EGP": "Egyptian Pound", "EUR": "Euro",
    "GBP": "British Pound", "GBp": "British Pence", "HKD": "Hong Kong Dollar",
    "HUF": "Hungarian Forint", "IDR": "Indonesian Rupiah", "ILA": "Israeli Agora",
    "ILS": "Israeli New Shekel", "INR": "Indian Rupee", "ISK": "Icelandic Krona",
    "JPY": "Japanese Yen", "KRW": "South Korean Won", "KWD": "Kuwaiti Dinar",
    "MXN": "Mexican Peso", "MYR": "Malaysian Ringgit", "NOK": "Norwegian Krone",
    "NZD": "New Zealand Dollar", "PEN": "Peruvian Sol", "PHP": "Philippine Peso",
    "PLN": "Polish Zloty", "QAR": "Qatari Riyal", "RON": "Romanian Leu",
    "SAR": "Saudi Riyal", "SEK": "Swedish Krona", "SGD": "Singapore Dollar",
    "THB": "Thai Baht", "TRY": "Turkish Lira", "TWD": "New Taiwan Dollar",
    "USD": "US Dollar", "VND": "Vietnamese Dong", "ZAR": "South African Rand",
    "ZAc": "South African Cents",
}


def handle_currencies(req: Request) -> SandboxResponse:
    result = [{"shortName": code, "longName": name, "symbol": code, "localLongName": name}
              for code, name in sorted(NAMES.items(), key=lambda item: item[0].upper())]
    return json_response({"currencies": {"result": result, "error": None}})
