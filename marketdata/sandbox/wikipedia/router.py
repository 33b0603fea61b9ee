"""Wikipedia's route table and its simulated provider (host ``en.wikipedia.org``).

``GET /wiki/{title}`` serves the three constituent articles (``pages.py``); any other
article is Wikipedia's 404 page. Like Wikipedia, requests without a descriptive
User-Agent (none, or a bare library default such as ``python-requests/2.x``) get its 403.
"""

from __future__ import annotations

import re

from marketdata.sandbox.common import Request, text_response
from marketdata.sandbox.providers import Route, SandboxOptions, SimulatedProvider
from marketdata.sandbox.response import SandboxResponse
from marketdata.sandbox.wikipedia import pages

HOSTS = ("en.wikipedia.org",)
HTML_TYPE = "text/html; charset=UTF-8"
_GENERIC_AGENT = re.compile(r"(python-requests|python-urllib|curl|wget|go-http-client|java|"
                            r"okhttp|aiohttp|httpx)/", re.I)
ROBOT_POLICY = ("Please set a user-agent and respect our robot policy https://w.wiki/4wJS. "
                "See also https://phabricator.wikimedia.org/T400119.\n")


def _refused(req: Request) -> SandboxResponse | None:
    agent = req.headers.get("user-agent", "").strip()
    if not agent or _GENERIC_AGENT.match(agent):
        return text_response(ROBOT_POLICY, 403)
    return None


def _missing_article(title: str) -> SandboxResponse:
    body = pages.page_html(title.replace("_", " "), (
        "<p><b>Wikipedia does not have an article with this exact name.</b> Please search "
        "for <i>" + pages.esc(title.replace("_", " ")) + "</i> in Wikipedia to check for "
        "alternative titles or spellings.</p>\n"))
    return text_response(body, 404, content_type=HTML_TYPE)


def handle_article(req: Request) -> SandboxResponse:
    refused = _refused(req)
    if refused is not None:
        return refused
    title = req.params.get("title", "")
    index = pages.ARTICLES.get(title)
    if index is None:
        return _missing_article(title)
    response = text_response("", 200, content_type=HTML_TYPE)
    response.body = pages.article(index)
    return response


ROUTES = (Route(("GET", "HEAD"), re.compile(r"/wiki/(?P<title>.+)"), handle_article),)


def _error(route: Route | None, status: int, code: str, description: str) -> SandboxResponse:
    """Wikimedia's error page."""
    body = ('<!DOCTYPE html>\n<html lang="en">\n<meta charset="utf-8">\n'
            "<title>Wikimedia Error</title>\n<body>\n<div class=\"content\" role=\"main\">\n"
            f"<h1>Error</h1>\n<p>Our servers are currently under maintenance or experiencing "
            f"a technical issue ({pages.esc(code)}).</p>\n</div>\n</body>\n</html>\n")
    return text_response(body, status, content_type=HTML_TYPE)


def _not_found() -> SandboxResponse:
    return _error(None, 404, "Not Found", "Not Found")


def build_provider(options: SandboxOptions) -> SimulatedProvider:
    """Wikipedia: stateless pages."""
    return SimulatedProvider(name="wikipedia", hosts=HOSTS, routes=ROUTES, error=_error,
                             not_found=_not_found)
