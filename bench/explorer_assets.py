"""How fast the explorer page's own files arrive on loopback (issue 29: "under 1 s,
compressed where the server compresses"), side by side with the Swagger UI page's files
(WhiteNoise, the docs' assets) in the same run.

It starts the service with its production command in sandbox mode, the way the
integration tests do (``tests.integration.servers.start_service``: bin/serve, which runs
``manage.py prepare``, then gunicorn with one worker), then:

1. **HTTP**: each file over one keep-alive connection, ``--rounds`` times per encoding
   (identity, gzip, br): median and worst time to the last byte, and the bytes sent. The
   first request of each file after the start is reported on its own (cold: the worker
   loads the file and its encodings, which ``prepare`` made, from disk).
2. **Browser** (when Debian's chromium and Playwright are installed): ``--loads`` page
   loads in fresh browser contexts (empty cache), each timed from navigation to the
   ``load`` event, with the Resource Timing of every file (duration, bytes on the wire,
   bytes decoded): the explorer at ``/explorer`` and Swagger UI at ``/docs``.

    .venv/bin/python bench/explorer_assets.py [--rounds 30] [--loads 5]
"""

from __future__ import annotations

import argparse
import http.client
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.integration.servers import Process, start_service  # noqa: E402

CODINGS = ("identity", "gzip", "br")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def fetch(connection: http.client.HTTPConnection, path: str,
          coding: str) -> tuple[float, int, str]:
    """Seconds to the last byte, the body's size as sent and the coding it was sent in."""
    started = time.perf_counter()
    connection.request("GET", path, headers={"Accept-Encoding": coding, "Accept": "*/*"})
    response = connection.getresponse()
    body = response.read()
    elapsed = time.perf_counter() - started
    assert response.status == 200, (path, response.status)
    return elapsed, len(body), response.getheader("Content-Encoding") or "identity"


def files(service: Process) -> dict[str, list[str]]:
    """The files each page loads (its stylesheets and scripts), by page."""
    host, port = service.base_url.removeprefix("http://").split(":")
    found = {}
    for page in ("/explorer", "/docs"):
        connection = http.client.HTTPConnection(host, int(port), timeout=30)
        connection.request("GET", page, headers={"Accept": "text/html"})
        html = connection.getresponse().read().decode()
        connection.close()
        found[page] = [page, *re.findall(r'(?:src|href)="(/[^"]+\.(?:js|css))"', html)]
    return found


def http_rows(service: Process, pages: dict[str, list[str]], rounds: int) -> list[str]:
    host, port = service.base_url.removeprefix("http://").split(":")
    rows = ["| page | file | first request (cold) | asked | sent | bytes sent | median | worst |",
            "|---|---|---|---|---|---|---|---|"]
    for page, paths in pages.items():
        for path in paths:
            connection = http.client.HTTPConnection(host, int(port), timeout=30)
            cold = fetch(connection, path, "br")[0]
            for coding in CODINGS:
                times, size, sent = [], 0, ""
                for _ in range(rounds):
                    elapsed, size, sent = fetch(connection, path, coding)
                    times.append(elapsed)
                rows.append(f"| {page} | `{path.rsplit('/', 1)[-1]}` | "
                            f"{cold * 1000:.1f} ms | {coding} | {sent} | {size:,} | "
                            f"{statistics.median(times) * 1000:.1f} ms | "
                            f"{max(times) * 1000:.1f} ms |")
            connection.close()
    return rows


def browser_rows(service: Process, loads: int) -> list[str]:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return ["(Playwright is not installed: no browser timing)"]
    if not Path(CHROMIUM).exists():
        return ["(no chromium: no browser timing)"]
    rows = ["| page | load event (median of loads) | file | duration (median) | "
            "bytes on the wire | bytes decoded |", "|---|---|---|---|---|---|"]
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                             args=["--no-sandbox", "--disable-dev-shm-usage"])
        for page_path, ready in (("/explorer", "#price-chart[data-state=ready]"),
                                 ("/docs", ".swagger-ui .info")):
            loaded, per_file = [], {}
            for _ in range(loads):
                context = browser.new_context()  # an empty cache every time
                page = context.new_page()
                page.goto(service.base_url + page_path, wait_until="load")
                page.wait_for_selector(ready, timeout=30_000)
                loaded.append(page.evaluate(
                    "performance.getEntriesByType('navigation')[0].loadEventStart"))
                for entry in page.evaluate("""performance.getEntriesByType('resource')
                        .filter((e) => /\\.(js|css)$/.test(e.name))
                        .map((e) => [e.name, e.duration, e.transferSize, e.decodedBodySize])"""):
                    per_file.setdefault(entry[0].rsplit("/", 1)[-1], []).append(entry[1:])
                context.close()
            for name, samples in per_file.items():
                rows.append(f"| {page_path} | {statistics.median(loaded):.0f} ms | `{name}` | "
                            f"{statistics.median(s[0] for s in samples):.1f} ms | "
                            f"{samples[-1][1]:,} | {samples[-1][2]:,} |")
        browser.close()
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--loads", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        service = start_service(Path(tmp), {"MARKETDATA_UPSTREAM": "sandbox",
                                            "WEB_CONCURRENCY": "1", "LOG_LEVEL": "WARNING"})
        try:
            pages = files(service)
            print("\n".join(http_rows(service, pages, args.rounds)))
            print()
            print("\n".join(browser_rows(service, args.loads)))
        finally:
            service.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
