"""Yahoo Finance: cookie+crumb auth, chart (v8), quote (v7), quoteSummary (v10)."""

from marketdata.http import ProviderConfig

# The cookie/crumb handshake (endpoints auth.*) has a lane of its own: every other call
# waits for it, so it must never queue behind them (marketdata.lanes).
PROVIDER = ProviderConfig(name="yahoo", display_name="Yahoo Finance", hosts=("*.yahoo.com",),
                          own_lanes=("auth.",))

QUERY1 = "https://query1.finance.yahoo.com"
QUERY2 = "https://query2.finance.yahoo.com"
FINANCE = "https://finance.yahoo.com"  # web pages and /xhr endpoints
COOKIE_URL = "https://fc.yahoo.com"
CONSENT_URL = "https://guce.yahoo.com/consent"
COLLECT_CONSENT_URL = "https://consent.yahoo.com/v2/collectConsent"
COPY_CONSENT_URL = "https://guce.yahoo.com/copyConsent"
