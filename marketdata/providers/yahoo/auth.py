"""Yahoo's cookie + crumb handshake.

1. GET fc.yahoo.com to receive the A3 cookie; 2. GET /v1/test/getcrumb for the crumb;
3. if the crumb is unusable (empty, HTML, "Too Many Requests"), walk the EU consent form
(guce.yahoo.com/consent -> consent.yahoo.com/v2/collectConsent -> copyConsent) and ask
query2 for the crumb again.

The pair is kept until Yahoo rejects it (401 or "Invalid Crumb"), never refreshed on a
timer. Refresh is single-flight: one thread performs the handshake while requests that
already hold the current crumb keep going; callers pass the generation they saw, so a
thread that waited on the lock reuses the pair another thread just fetched.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from marketdata import deadline
from marketdata.errors import (
    DeadlineExceeded,
    UpstreamError,
    UpstreamRateLimited,
    UpstreamTimeout,
    UpstreamUnavailable,
)
from marketdata.http import UpstreamClient
from marketdata.logs import get_logger
from marketdata.providers import yahoo

log = get_logger("marketdata.providers.yahoo.auth")

_CRUMB = re.compile(r"^[A-Za-z0-9./_\-]{5,64}$")
_HIDDEN_INPUT = r'name="{name}"\s+value="([^"]*)"'


def valid_crumb(text: str) -> bool:
    """A usable crumb: short, no markup, no whitespace, not Yahoo's rate-limit text."""
    crumb = text.strip()
    return bool(_CRUMB.match(crumb)) and "too many requests" not in crumb.lower()


@dataclass(frozen=True)
class Credentials:
    crumb: str
    generation: int


class YahooAuth:
    def __init__(self, client: UpstreamClient) -> None:
        self._client = client
        self._lock = threading.Lock()
        self._credentials: Credentials | None = None
        self._generation = 0

    def current(self) -> Credentials:
        """The crumb in use, fetching one if there is none yet."""
        credentials = self._credentials
        return credentials if credentials is not None else self.refresh(seen_generation=None)

    def refresh(self, seen_generation: int | None) -> Credentials:
        """Fetch a new crumb unless someone did since the caller saw ``seen_generation``."""
        # Wait for another thread's handshake only within the request deadline, and as an
        # occupant of Yahoo's lane: a hanging handshake holds a bounded number of threads.
        if not self._lock.acquire(blocking=False):
            left = deadline.remaining()
            with self._client.waiting("yahoo"):
                acquired = self._lock.acquire(timeout=-1 if left is None else max(0.0, left))
            if not acquired:
                raise DeadlineExceeded("yahoo", "Yahoo Finance authentication did not finish "
                                       "within the request deadline")
        try:
            credentials = self._credentials
            if credentials is not None and credentials.generation != seen_generation:
                return credentials
            crumb = self._handshake()
            self._generation += 1
            self._credentials = Credentials(crumb, self._generation)
            log.info("yahoo crumb refreshed", generation=self._generation)
            return self._credentials
        finally:
            self._lock.release()

    def _handshake(self) -> str:
        client = self._client
        # The jar is shared with requests in flight, so it is not cleared: the new cookie
        # replaces the old one when Yahoo sets it.
        try:
            client.request("yahoo", "auth.cookie", yahoo.COOKIE_URL)
            answer = client.request("yahoo", "auth.crumb", f"{yahoo.QUERY1}/v1/test/getcrumb")
            if answer.status == 200 and valid_crumb(answer.text):
                return answer.text.strip()
            log.info("yahoo crumb unusable, trying the consent flow", status=answer.status)
            crumb = self._consent_flow()
        except (UpstreamRateLimited, UpstreamTimeout):
            raise  # keep 429 and 504: they tell the client what to do
        except UpstreamError as exc:
            raise UpstreamUnavailable(
                "yahoo", f"Yahoo Finance authentication failed: {exc.detail}",
                exc.upstream_status) from exc
        if crumb is None:
            raise UpstreamUnavailable("yahoo", "Yahoo Finance authentication failed: no "
                                      "usable crumb after the consent flow")
        return crumb

    def _consent_flow(self) -> str | None:
        client = self._client
        form = client.request("yahoo", "auth.consent", yahoo.CONSENT_URL)
        fields = {}
        for name in ("csrfToken", "sessionId"):
            match = re.search(_HIDDEN_INPUT.format(name=name), form.text)
            if match is None:
                log.warning("yahoo consent form without field", field=name)
                return None
            fields[name] = match.group(1)
        session_id = fields["sessionId"]
        client.request("yahoo", "auth.collect_consent", yahoo.COLLECT_CONSENT_URL,
                       method="POST", params={"sessionId": session_id},
                       data={"agree": ["agree", "agree"], "consentUUID": "default",
                             "sessionId": session_id, "csrfToken": fields["csrfToken"],
                             "originalDoneUrl": "https://finance.yahoo.com/",
                             "namespace": "yahoo"})
        client.request("yahoo", "auth.copy_consent", yahoo.COPY_CONSENT_URL,
                       params={"sessionId": session_id})
        answer = client.request("yahoo", "auth.crumb", f"{yahoo.QUERY2}/v1/test/getcrumb")
        if answer.status == 200 and valid_crumb(answer.text):
            return answer.text.strip()
        return None
