"""No secret in the service's log, at LOG_LEVEL=DEBUG, through the real service process
(bin/serve) in live mode with every provider host mapped to the sandbox HTTP server: the
provider keys (FRED's api_key, FMP's apikey) and Yahoo's crumb ride in the upstream URLs that
urllib3 logs at DEBUG, the admin key in a request header, and canaries in every spelling in
the clients' own query strings (the access log's params). Every line of the log is searched;
urllib3's request lines must be there (redacted), so the test fails if nothing is logged."""

from __future__ import annotations

import json
import uuid
from urllib.parse import quote

import pytest

from tests.integration.servers import http, service_on_sandbox

pytestmark = [pytest.mark.integration,
              pytest.mark.slow("its own service at LOG_LEVEL=DEBUG, whose whole log it reads")]


def _canary(label: str) -> str:
    return f"cnry{label}{uuid.uuid4().hex[:12]}"


FRED_KEY = _canary("Fred")
FMP_KEY = _canary("Fmp")
ADMIN_KEY = _canary("Admin")
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjbnJ5In0"
       ".c2lnbmF0dXJlLW9mLWEtY2FuYXJ5LXRva2Vu")
# The clients' own canaries, one per spelling of a secret parameter.
CLIENT = {
    "apikey": _canary("Apikey"),
    "apikey[]": _canary("ApikeyArray"),
    "%61pikey": _canary("ApikeyEncoded"),
    "api%5Fkey": _canary("ApiKeyEncoded"),
    "API%2Dkey": _canary("ApiDashKey"),
    "api_key[0]": _canary("ApiKeyIndexed"),
    "token[x]": _canary("TokenSubscript"),
    "session": _canary("Session"),
    "PHPSESSID": _canary("Phpsessid"),
    "pass": _canary("Pass"),
    "password": _canary("Password"),
    "jwt": JWT,
    "id": JWT,  # a JWT under any name
    "crumb": _canary("ClientCrumb"),
    "X-Amz-Signature": _canary("AmzSignature"),
}
CLIENT_QUERY = "&".join(f"{name}={value}" for name, value in CLIENT.items())


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    env = {"LOG_LEVEL": "DEBUG", "FRED_API_KEY": FRED_KEY, "FMP_API_KEY": FMP_KEY,
           "ADMIN_API_KEY": ADMIN_KEY}
    with service_on_sandbox(tmp_path_factory.mktemp("log-secrets"), env) as (service, sandbox):
        yield service, sandbox


def _sandbox_requests(sandbox, **filters: str) -> list[dict]:
    query = "&".join(f"{key}={quote(value)}" for key, value in filters.items())
    _, _, body = http("GET", f"{sandbox.base_url}/__sandbox__/requests?{query}")
    return json.loads(body)["requests"]


def _arg(entry: dict, name: str) -> str:
    values = entry["query"].get(name) or [""]
    return values[-1]


def test_no_secret_reaches_the_service_log(stack):
    service, sandbox = stack
    # Upstream calls that carry a credential in their URL.
    for path in ("/v2/macro/series/DGS10", "/v2/price-target-consensus/AAPL",
                 "/v2/quote/AAPL", "/v1/quotes?symbols=AAPL"):
        status, _, body = http("GET", f"{service.base_url}{path}",
                               headers={"x-api-key": ADMIN_KEY})
        assert status == 200, (path, status, body[:300])
    # The clients' own secrets, in their query strings (whatever the answer).
    for path in ("/v1/ping", "/v1/quotes?symbols=MSFT", "/v2/quote/MSFT", "/v1/no-such-route"):
        joiner = "&" if "?" in path else "?"
        status, _, _ = http("GET", f"{service.base_url}{path}{joiner}{CLIENT_QUERY}",
                            headers={"x-api-key": ADMIN_KEY})
        assert status < 500, path

    # The credentials really went upstream, so the log had them to leak.
    fred = [e for e in _sandbox_requests(sandbox, path_prefix="/fred/")
            if _arg(e, "api_key")]
    assert fred and {_arg(e, "api_key") for e in fred} == {FRED_KEY}
    fmp = _sandbox_requests(sandbox, provider="fmp")
    assert fmp and {_arg(e, "apikey") for e in fmp} == {FMP_KEY}
    crumbs = {_arg(e, "crumb") for e in _sandbox_requests(sandbox, provider="yahoo")} - {""}
    assert crumbs and all(len(crumb) >= 8 for crumb in crumbs)

    secrets = {FRED_KEY, FMP_KEY, ADMIN_KEY, *crumbs, *CLIENT.values()}
    log = service.log()
    lines = log.splitlines()
    leaks = [(secret, line) for line in lines for secret in secrets if secret in line]
    assert leaks == []

    records = []
    for line in lines:
        if line.startswith("{"):
            try:
                records.append(json.loads(line))
            except ValueError:
                continue
    # urllib3's DEBUG request lines are there, each target's credential redacted.
    pool = [r["message"] for r in records
            if r.get("logger") == "urllib3.connectionpool" and r.get("level") == "DEBUG"
            and '"GET /' in r.get("message", "")]
    assert any("/fred/series/observations?" in m and "api_key=REDACTED" in m for m in pool), \
        pool[:20]
    assert any("/stable/price-target-consensus?" in m and "apikey=REDACTED" in m
               for m in pool), pool[:20]
    assert any("crumb=REDACTED" in m for m in pool), pool[:20]
    # The access log kept the clients' parameters, values redacted, names as sent.
    params = [r["params"] for r in records if r.get("api_response") and "params" in r]
    assert any("apikey[]=REDACTED" in p and "%61pikey=REDACTED" in p
               and "session=REDACTED" in p and "pass=REDACTED" in p and "jwt=REDACTED" in p
               for p in params), params
