"""Start-up probe: does Yahoo answer from this machine? Exit 0 if yes, 1 if not.

``make run`` uses it to choose live or sandbox mode when MARKETDATA_UPSTREAM is unset.
It honours UPSTREAM_HOST_MAP, so a mapped Yahoo (a proxy or a replay server) counts.
"""

from __future__ import annotations

import os
import sys

import requests

from marketdata.http import DEFAULT_USER_AGENT, parse_host_map, rewrite_url

PROBE_URL = "https://query2.finance.yahoo.com/v8/finance/chart/SPY?range=1d&interval=1d"


def yahoo_answers(timeout: float = 4.0) -> bool:
    url = rewrite_url(PROBE_URL, parse_host_map(os.environ.get("UPSTREAM_HOST_MAP", "")))
    try:
        response = requests.get(url, timeout=timeout, headers={"User-Agent": DEFAULT_USER_AGENT})
    except requests.RequestException:
        return False
    return response.status_code == 200 and b'"chart"' in response.content


if __name__ == "__main__":
    sys.exit(0 if yahoo_answers() else 1)
