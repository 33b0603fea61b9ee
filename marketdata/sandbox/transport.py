"""A requests transport adapter that answers from the in-process simulator.

Mounted on the upstream client's sessions when ``MARKETDATA_UPSTREAM=sandbox``: the real
URLs, client, retries, auth and parsers all run, only the socket is replaced. Responses
carry real ``Set-Cookie`` handling, so the cookie + crumb handshake works as with Yahoo.
"""

from __future__ import annotations

import http.client
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests
from requests.adapters import BaseAdapter
from requests.cookies import extract_cookies_to_jar
from requests.structures import CaseInsensitiveDict


class SandboxTransport(BaseAdapter):
    def __init__(self, sandbox: Any = None) -> None:
        super().__init__()
        self._sandbox = sandbox

    @property
    def sandbox(self) -> Any:
        if self._sandbox is None:
            from marketdata.sandbox import get_sandbox

            self._sandbox = get_sandbox()
        return self._sandbox

    def send(self, request: requests.PreparedRequest, stream: bool = False,
             timeout: Any = None, verify: Any = True, cert: Any = None,
             proxies: Any = None) -> requests.Response:
        parts = urlsplit(request.url or "")
        body = request.body or b""
        if isinstance(body, str):
            body = body.encode()
        answer = self.sandbox.handle(request.method or "GET", parts.hostname or "", parts.path,
                                     parse_qs(parts.query, keep_blank_values=True),
                                     dict(request.headers), body)
        message = http.client.HTTPMessage()
        for name, value in answer.headers.items():
            for line in (value if isinstance(value, list) else [value]):
                message[name] = line
        response = requests.Response()
        response.status_code = answer.status
        response.headers = CaseInsensitiveDict(
            {k: (", ".join(v) if isinstance(v, list) else v) for k, v in answer.headers.items()})
        response._content = answer.body
        # Private, not in the stubs: iter_content() serves _content only when it is set.
        response._content_consumed = True  # type: ignore[attr-defined]
        response.encoding = "utf-8"
        response.url = request.url or ""
        response.request = request
        response.reason = http.client.responses.get(answer.status, "")
        # What requests' cookie handling reads from a real urllib3 response.
        response.raw = SimpleNamespace(_original_response=SimpleNamespace(msg=message),
                                       release_conn=lambda: None, close=lambda: None)
        extract_cookies_to_jar(response.cookies, request, response.raw)
        return response

    def close(self) -> None:
        """Nothing to release."""
