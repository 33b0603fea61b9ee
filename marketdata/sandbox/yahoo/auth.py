"""Cookie + crumb handshake and the EU consent flow.

Why: the real client authenticates before every crumb-protected call and must recover when
Yahoo rejects a crumb. The sandbox issues a deterministic A3 cookie, issues crumbs only to
requests carrying an A3 cookie, and can expire crumbs (``crumb_ttl_seconds``, measured in
real monotonic seconds so it also works with a frozen injected clock) to exercise the
refresh-on-401 path.
"""

from __future__ import annotations

import hashlib
import threading
import time
from collections import OrderedDict

from marketdata.sandbox.providers import host_matches, normalise_host
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.yahoo.common import (
    BASE_HEADERS,
    Request,
    finance_error,
    text_response,
)

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_MAX_ENTRIES = 100_000


def _token(length: int, *parts: object) -> str:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode()).digest()
    number = int.from_bytes(digest, "big")
    out = []
    for _ in range(length):
        number, rem = divmod(number, len(_ALPHABET))
        out.append(_ALPHABET[rem])
    return "".join(out)


class AuthState:
    """Issued cookies, crumbs and consent sessions (thread-safe, bounded)."""

    def __init__(self, seed: int, crumb_ttl_seconds: float | None) -> None:
        self.seed = seed
        self.crumb_ttl_seconds = crumb_ttl_seconds
        self._lock = threading.Lock()
        self._valid: OrderedDict[str, float | None] = OrderedDict()  # crumb -> expiry
        self._by_cookie: OrderedDict[str, tuple[str, float | None]] = OrderedDict()
        self._generation: dict[str, int] = {}
        self._sessions = 0

    def cookie_value(self) -> str:
        """The A3 cookie value: deterministic for a seed, shaped like Yahoo's."""
        return f"d=AQABBK{_token(40, 'a3', self.seed)}&S=AQAAA{_token(22, 's', self.seed)}"

    def issue_crumb(self, cookie: str) -> str:
        """The crumb for a cookie; a new one once the previous crumb has expired."""
        now = time.monotonic()
        with self._lock:
            held = self._by_cookie.get(cookie)
            if held is not None and (held[1] is None or now < held[1]):
                return held[0]
            gen = self._generation.get(cookie, 0) + 1
            self._generation[cookie] = gen
            crumb = _token(11, "crumb", self.seed, cookie, gen)
            ttl = self.crumb_ttl_seconds
            expiry = None if ttl is None else now + ttl
            self._valid[crumb] = expiry
            self._by_cookie[cookie] = (crumb, expiry)
            for table in (self._valid, self._by_cookie):
                while len(table) > _MAX_ENTRIES:
                    table.popitem(last=False)
            if len(self._generation) > _MAX_ENTRIES:
                self._generation.clear()
            return crumb

    def crumb_is_valid(self, crumb: str | None) -> bool:
        if not crumb:
            return False
        with self._lock:
            if crumb not in self._valid:
                return False
            expiry = self._valid[crumb]
        return expiry is None or time.monotonic() < expiry

    def new_consent_session(self) -> tuple[str, str]:
        with self._lock:
            self._sessions += 1
            n = self._sessions
        raw = hashlib.sha256(f"session\x1f{self.seed}\x1f{n}".encode()).hexdigest()
        session = f"3_cc-session_{raw[:8]}-{raw[8:12]}-{raw[12:16]}-{raw[16:20]}-{raw[20:32]}"
        return _token(7, "csrf", self.seed, n), session


def _connected_to_yahoo(req: Request) -> bool:
    """Whether the client really called a Yahoo host. ``req.host`` (the URL host / ``Host``
    header), never ``X-Upstream-Host``: the client's cookie jar and redirect handling are
    keyed on the URL it really called, which may be a host-mapped 127.0.0.1."""
    return host_matches(normalise_host(req.host), "*.yahoo.com")


def _set_cookie(req: Request, auth: AuthState) -> str:
    """Set-Cookie for A3: Domain/Secure only on real Yahoo hosts (the server may be on
    127.0.0.1 over plain HTTP, where a cookie jar would drop a foreign-domain or Secure one)."""
    parts = [f"A3={auth.cookie_value()}", "Max-Age=31557600", "Path=/"]
    if _connected_to_yahoo(req):
        parts += ["Domain=.yahoo.com", "SameSite=None", "Secure"]
    parts.append("HttpOnly")
    return "; ".join(parts)


_FC_PAGE = ("<!DOCTYPE html><html lang=\"en-us\"><head><meta charset=\"utf-8\"><title>Yahoo"
            "</title></head><body><h1>Will be right back...</h1><p>Thank you for your "
            "patience.</p><p>Our engineers are working quickly to resolve the issue.</p>"
            "</body></html>")


def fc_root(req: Request, auth: AuthState) -> SandboxResponse:
    """fc.yahoo.com: a 404 page that sets the A3 cookie (exactly what clients rely on)."""
    return text_response(_FC_PAGE, 404, "text/html; charset=utf-8",
                         {"Set-Cookie": _set_cookie(req, auth)})


def get_crumb(req: Request, auth: AuthState) -> SandboxResponse:
    """/v1/test/getcrumb: the crumb as text/plain when an A3 cookie is sent.

    Without the cookie Yahoo refuses; the sandbox answers 401 with Yahoo's JSON error body
    ("Invalid Cookie"), which a client treats as "walk the handshake / consent flow".
    """
    cookie = req.cookie("A3")
    if not cookie:
        return finance_error("Unauthorized", "Invalid Cookie", 401)
    return text_response(auth.issue_crumb(cookie), 200, "text/plain;charset=utf-8")


def consent_form(req: Request, auth: AuthState) -> SandboxResponse:
    """guce.yahoo.com/consent: a short GDPR form with the hidden fields clients scrape."""
    csrf, session = auth.new_consent_session()
    page = (
        "<!DOCTYPE html><html dir=\"ltr\" class=\"ltr yahoo-page\"><head><title>Yahoo is part "
        "of the Yahoo family of brands</title></head><body><div class=\"con-wizard\">"
        "<form method=\"post\" class=\"consent-form\" action=\"\">\n"
        f"<input type=\"hidden\" name=\"csrfToken\" value=\"{csrf}\">\n"
        f"<input type=\"hidden\" name=\"sessionId\" value=\"{session}\">\n"
        "<input type=\"hidden\" name=\"originalDoneUrl\" "
        "value=\"https://finance.yahoo.com/?guccounter&#x3D;1\">\n"
        "<input type=\"hidden\" name=\"namespace\" value=\"yahoo\">\n"
        "<button type=\"submit\" class=\"btn secondary accept-all \" name=\"agree\" "
        "value=\"agree\">Accept all</button>\n"
        "<button type=\"submit\" class=\"btn secondary reject-all\" name=\"reject\" "
        "value=\"reject\">Reject all</button>\n"
        "</form></div></body></html>")
    return text_response(page, 200, "text/html; charset=utf-8")


def collect_consent(req: Request, auth: AuthState) -> SandboxResponse:
    """consent.yahoo.com/v2/collectConsent (POST): redirect to copyConsent."""
    session = req.arg("sessionId", "") or ""
    base = "https://guce.yahoo.com" if _connected_to_yahoo(req) else ""
    headers = {"Content-Type": "text/html; charset=utf-8", **BASE_HEADERS,
               "Location": f"{base}/copyConsent?sessionId={session}"}
    return SandboxResponse(302, headers, b"")


def copy_consent(req: Request, auth: AuthState) -> SandboxResponse:
    """guce.yahoo.com/copyConsent: sets the A3 cookie (200, no further redirect)."""
    return text_response("<!DOCTYPE html><html><body>Consent saved.</body></html>", 200,
                         "text/html; charset=utf-8", {"Set-Cookie": _set_cookie(req, auth)})


def invalid_crumb() -> SandboxResponse:
    return finance_error("Unauthorized", "Invalid Crumb", 401)
