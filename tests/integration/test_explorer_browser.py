"""The explorer page in a real browser: Playwright driving Debian's Chromium
(``/usr/bin/chromium``; no browser download) against the service started by ``bin/serve``.

- in sandbox mode (what ``make run`` serves here): the page loads with no console error and
  no request to another host; a search leads to a chart with the API's number of candles;
  an overlay and the RSI pane draw; a backtest's equity curve ends at the API's
  ``finalEquity``; an unknown symbol shows the error text; the macro panel draws a FRED
  series and the Treasury curve; the options panel lists the API's expirations, redraws
  the smile and greeks for another one, and draws the volatility surface and the ATM term
  structure; the RSI and EMA of a day are the same on a 6-month, a
  1-year and a 5-year chart (warmed up on earlier history); no two tick labels of a chart
  overlap, at 390 px as at 1280 px; screenshots of each panel are saved
  (``EXPLORER_SCREENSHOTS``, default ``docs/screenshots``: the README links them);
- with every upstream request failing: the page names the provider that is down (the
  quote and the options panel);
- with the v2 bucket empty: the page says it is rate limited, and for how long.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.integration.servers import (
    Process,
    get_json,
    service_on_sandbox,
    start_service,
)

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("EXPLORER_SCREENSHOTS", ROOT / "docs" / "screenshots"))
TIMEOUT_MS = 30_000

pytestmark = [
    pytest.mark.integration,
    pytest.mark.slow("Chromium against three service processes"),
    pytest.mark.alone,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="needs Debian's chromium (.ci/run installs it)"),
]
sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    with sync_api.sync_playwright() as playwright:
        # --no-sandbox: CI runs as root, where Chromium's own sandbox cannot start.
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"])
        yield launched
        launched.close()


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory) -> Iterator[Process]:
    """The service in sandbox mode, as ``make run`` starts it where no provider answers."""
    service = start_service(tmp_path_factory.mktemp("explorer"),
                            {"MARKETDATA_UPSTREAM": "sandbox"})
    yield service
    service.stop()


class Page:
    """A page of the browser that records console errors, uncaught exceptions and every
    request to a host other than the service's."""

    def __init__(self, browser, base_url: str, width: int = 1280, height: int = 800) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.errors: list[str] = []
        self.foreign: list[str] = []
        host = urlsplit(base_url).netloc
        self.page.on("console", lambda message: message.type == "error"
                     and self.errors.append(message.text))
        self.page.on("pageerror", lambda error: self.errors.append(f"uncaught: {error}"))
        self.page.on("request", lambda request: urlsplit(request.url).netloc not in ("", host)
                     and self.foreign.append(request.url))
        self.base_url = base_url

    def open(self, path: str = "/") -> None:
        """Load the page and wait for its first symbol: the chart drawn, the quote shown
        (the two requests run side by side; either may answer first)."""
        self.page.goto(self.base_url + path, wait_until="load")
        self.ready("#price-chart")
        self.page.wait_for_selector("#quote-card:not([hidden])")

    def ready(self, selector: str) -> None:
        self.page.wait_for_selector(f"{selector}[data-state=ready]")

    def attribute(self, selector: str, name: str) -> str | None:
        return self.page.get_attribute(selector, name)

    def shot(self, selector: str, name: str) -> None:
        SHOTS.mkdir(parents=True, exist_ok=True)
        self.page.locator(selector).screenshot(path=str(SHOTS / name))

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def page(browser, sandboxed) -> Iterator[Page]:
    opened = Page(browser, sandboxed.base_url)
    yield opened
    opened.close()


def test_the_page_loads_with_no_console_error_and_no_other_host(page, sandboxed):
    page.open()
    assert page.page.title().endswith("Explorer")
    assert "synthetic" in page.page.text_content("#sandbox-notice")
    assert page.page.text_content("#quote-source") == "sandbox (synthetic data)"
    page.page.locator("#options-panel").scroll_into_view_if_needed()
    page.page.locator("#macro-panel").scroll_into_view_if_needed()
    page.ready("#macro-chart")
    page.ready("#curve-chart")
    for chart in ("#smile-chart", "#surface-chart", "#term-chart"):
        page.ready(chart)
    page.page.wait_for_function("document.getElementById('quote-live').textContent"
                                ".startsWith('updated')")
    assert page.errors == []
    assert page.foreign == []
    page.shot("body", "explorer-page.png")
    page.shot("#quote-panel", "explorer-quote.png")


def test_a_search_leads_to_a_chart_with_the_api_candles(page, sandboxed):
    page.open()
    page.page.select_option("#chart-range", "1y")
    page.page.select_option("#chart-interval", "1d")
    box = page.page.locator("#symbol-input")
    box.fill("")
    box.type("micro", delay=20)
    # The list answering the whole word (a slow typist's "mi" may have been asked first).
    page.page.wait_for_selector("#search-results[data-query=micro] li[role=option]")
    options = page.page.locator("#search-results li[role=option]")
    symbols = [options.nth(i).locator(".sym").text_content() for i in range(options.count())]
    assert "MSFT" in symbols, symbols
    # Keyboard only: arrow down to the match, Enter to choose it.
    for _ in range(symbols.index("MSFT") + 1):
        box.press("ArrowDown")
    assert page.attribute("#symbol-input", "aria-activedescendant") == \
        f"search-option-{symbols.index('MSFT')}"
    box.press("Enter")
    page.page.wait_for_selector("#price-chart[data-symbol=MSFT][data-state=ready]")
    status, _, chart = get_json(sandboxed, "/v2/chart/MSFT?range=1y&interval=1d")
    assert status == 200, chart
    candles = chart["candles"]
    assert page.attribute("#price-chart", "data-candles") == str(len(candles))
    drawn = page.page.locator("#price-chart g.trace.boxes path").count()
    assert drawn == len(candles)
    page.page.wait_for_function(
        "document.getElementById('quote-symbol').textContent === 'MSFT'")
    assert page.page.evaluate("location.hash") == "#MSFT"
    page.shot("#search-panel", "explorer-search.png")


def test_an_overlay_and_the_rsi_pane_draw(page):
    page.open("/#AAPL")
    page.page.check("#overlay-ema")
    page.page.check("#overlay-bbands")
    page.page.select_option("#chart-oscillator", "RSI")
    page.page.click("#chart-form button[type=submit]")
    page.page.wait_for_selector("#price-chart[data-overlays='SMA 20,EMA 50,Bollinger 20']"
                                "[data-state=ready]")
    assert page.attribute("#price-chart", "data-oscillator") == "RSI"
    drawn = page.page.evaluate("""() => {
        const data = document.getElementById('price-chart').data;
        const named = (name) => data.find((trace) => trace.name === name);
        const points = (trace) => trace.y.filter((value) => value !== null).length;
        return {sma: points(named('SMA 20')), ema: points(named('EMA 50')),
                rsi: points(named('RSI 14')), rsiAxis: named('RSI 14').yaxis,
                upper: points(named('BB upper'))};
    }""")
    assert drawn["sma"] > 0 and drawn["ema"] > 0 and drawn["upper"] > 0, drawn
    assert drawn["rsi"] > 0 and drawn["rsiAxis"] == "y3", drawn
    # Drawn, not only in the data: the RSI line's path is on the page.
    assert page.page.locator("#price-chart .scatterlayer .trace path.js-line").count() >= 5
    assert page.errors == []
    page.shot("#chart-panel", "explorer-chart.png")

    page.page.select_option("#chart-oscillator", "MACD")
    page.page.click("#chart-form button[type=submit]")
    page.page.wait_for_selector("#price-chart[data-oscillator=MACD][data-state=ready]")


def test_a_backtest_draws_an_equity_curve_ending_at_final_equity(page):
    page.open("/#AAPL")
    page.page.wait_for_selector("#backtest-strategy option[value=rsi_reversal]",
                                state="attached")
    page.page.select_option("#backtest-strategy", "sma_crossover")
    # The form comes from the request schema: only the strategy's own parameters show.
    assert page.page.is_visible("#param-fastPeriod")
    assert not page.page.is_visible("#param-oversold")
    assert page.attribute("#param-fastPeriod", "placeholder") == "default 10"
    page.page.fill("#param-fastPeriod", "5")
    page.page.select_option("#backtest-range", "1y")
    with page.page.expect_response(lambda response: "/v2/backtest/AAPL" in response.url) as answer:
        page.page.click("#backtest-run")
    result = answer.value.json()
    assert answer.value.status == 200, result
    page.page.wait_for_selector("#equity-chart[data-final-equity]")
    last = page.page.evaluate(
        "() => { const y = document.getElementById('equity-chart').data[0].y; "
        "return y[y.length - 1]; }")
    assert last == result["finalEquity"]
    assert float(page.attribute("#equity-chart", "data-final-equity")) == result["finalEquity"]
    assert page.page.text_content(
        "#backtest-metrics tr[data-metric=totalReturnPct] td:nth-child(3)") == "%"
    assert page.page.text_content(
        "#backtest-metrics tr[data-metric=finalEquity] td:nth-child(3)") == "USD"
    # The trades go on the price chart, redrawn with the backtest's range and interval.
    page.page.wait_for_selector(
        f"#price-chart[data-range='1y'][data-trades='{len(result['trades'])}'][data-state=ready]")
    assert page.errors == []
    page.shot("#backtest-panel", "explorer-backtest.png")
    page.shot("#chart-panel", "explorer-chart-trades.png")


def test_an_unknown_symbol_shows_the_error_text(page):
    page.open()
    page.page.fill("#symbol-input", "ZZZZZZ")
    page.page.press("#symbol-input", "Enter")
    page.page.wait_for_selector("#quote-error:not([hidden])")
    assert page.page.text_content("#quote-error").startswith("Unknown symbol \u201cZZZZZZ\u201d")
    page.page.wait_for_selector("#chart-error:not([hidden])")
    assert "Unknown symbol \u201cZZZZZZ\u201d" in page.page.text_content("#chart-error")
    assert page.attribute("#price-chart", "data-candles") == "0"
    assert page.page.is_hidden("#quote-card")
    page.shot("#main", "explorer-unknown-symbol.png")


def test_the_macro_panel_draws_a_series_and_the_yield_curve(page, sandboxed):
    page.open()
    page.page.locator("#macro-panel").scroll_into_view_if_needed()
    page.ready("#macro-chart")
    page.page.fill("#macro-series", "UNRATE")
    page.page.click("#macro-form button[type=submit]")
    page.page.wait_for_selector("#macro-chart[data-series=UNRATE][data-state=ready]")
    status, _, series = get_json(sandboxed, "/v2/macro/series/UNRATE")
    assert status == 200, series
    observations = series["observations"]
    expected = sum(1 for point in observations if point["value"] is not None)
    assert page.attribute("#macro-chart", "data-points") == str(expected)
    page.ready("#curve-chart")
    assert int(page.attribute("#curve-chart", "data-points")) >= 10
    assert page.errors == []
    page.shot("#macro-panel", "explorer-macro.png")


def _smile(page: Page) -> dict[str, list[float]]:
    """The smile as plotly drew it: each side's strikes and volatilities (%)."""
    return page.page.evaluate("""() => {
        const drawn = {};
        document.getElementById('smile-chart').data.forEach((trace) => {
            drawn[trace.name] = {x: trace.x, y: trace.y};
        });
        return drawn;
    }""")


def _expected_smile(answer: dict) -> dict[str, dict[str, list[float]]]:
    """The smile of a /greeks answer: each side's contracts with a volatility, in %."""
    sides: dict[str, dict[str, list[float]]] = {}
    for name, kind in (("Calls", "call"), ("Puts", "put")):
        chosen = [contract for contract in answer["contracts"]
                  if contract["type"] == kind and contract["impliedVolatility"] is not None]
        sides[name] = {"x": [contract["strike"] for contract in chosen],
                       "y": [contract["impliedVolatility"] * 100 for contract in chosen]}
    return sides


def test_the_options_panel_draws_the_smile_greeks_and_surface(page, sandboxed):
    page.page.goto(page.base_url + "/#AAPL", wait_until="load")
    page.ready("#price-chart")
    # Loaded when the panel scrolls into view (as the macro panel): the page's answer to
    # /greeks is the one the smile must show (the sandbox's prices move by the minute).
    with page.page.expect_response(
            lambda response: "/v2/options/AAPL/greeks" in response.url) as first:
        page.page.locator("#options-panel").scroll_into_view_if_needed()
    nearest = first.value.json()
    assert first.value.status == 200, nearest
    page.ready("#smile-chart")
    status, _, listed = get_json(sandboxed, "/v2/options/AAPL")
    assert status == 200, listed
    dates = listed["expirationDates"]
    assert len(dates) >= 2, dates
    # The select lists the API's expirations, labelled as dates, the nearest chosen.
    values = page.page.eval_on_selector_all("#options-expiration option",
                                            "(options) => options.map((o) => o.value)")
    labels = page.page.eval_on_selector_all("#options-expiration option",
                                            "(options) => options.map((o) => o.textContent)")
    assert values == [str(date) for date in dates]
    assert labels == [datetime.fromtimestamp(date, UTC).date().isoformat() for date in dates]
    assert page.page.input_value("#options-expiration") == str(dates[0])
    assert page.attribute("#smile-chart", "data-expiration") == str(dates[0])
    assert _smile(page) == _expected_smile(nearest)
    assert page.attribute("#smile-chart", "data-contracts") == str(len(nearest["contracts"]))
    # The facts of the answer: model and exercise style, rate, dividend yield, asOf.
    assert page.page.text_content("#options-model") == \
        "Bjerksund-Stensland 2002 (american exercise)"
    assert page.page.text_content("#options-rate").startswith(
        f"{nearest['riskFreeRate'] * 100:.3f} %")
    assert page.page.text_content("#options-dividend") == f"{nearest['dividendYield'] * 100:.3f} %"
    assert page.page.text_content("#options-asof") == \
        datetime.fromtimestamp(nearest["asOf"], UTC).strftime("%Y-%m-%d %H:%M UTC")
    # The greeks table: the strikes nearest the money, one of them marked.
    strikes = page.page.eval_on_selector_all("#greeks-table tbody tr",
                                             "(rows) => rows.map((r) => Number(r.dataset.strike))")
    assert len(strikes) == 9 and strikes == sorted(strikes), strikes
    spot = nearest["underlyingPrice"]
    assert min(strikes) <= spot <= max(strikes), (spot, strikes)
    assert page.page.locator("#greeks-table tbody tr.atm").count() == 1

    # Another expiry: the page asks /greeks for it and redraws the smile with its answer.
    later = dates[1]
    with page.page.expect_response(lambda response: "/v2/options/AAPL/greeks" in response.url
                                   and f"expiration={later}" in response.url) as second:
        page.page.select_option("#options-expiration", str(later))
    chosen = second.value.json()
    assert second.value.status == 200, chosen
    assert chosen["expiration"] == later
    page.page.wait_for_selector(f"#smile-chart[data-expiration='{later}'][data-state=ready]")
    assert _smile(page) == _expected_smile(chosen)
    assert _smile(page) != _expected_smile(nearest)
    assert page.page.input_value("#options-expiration") == str(later)
    caption = page.page.text_content("#greeks-caption")
    assert caption.endswith(datetime.fromtimestamp(later, UTC).date().isoformat()), caption

    # The surface: a heatmap of expiries x K/S with the API's cells, and the term structure.
    page.ready("#surface-chart")
    page.ready("#term-chart")
    status, _, surface = get_json(sandboxed,
                                  "/v2/options/AAPL/surface?expirations=8&moneyness=0.7,1.3&step=0.05")
    assert status == 200, surface
    heat = page.page.evaluate("""() => {
        const trace = document.getElementById('surface-chart').data[0];
        return {type: trace.type, x: trace.x, rows: trace.y.length,
                cells: trace.z.flat().filter((value) => value !== null).length};
    }""")
    assert heat["type"] == "heatmap"
    assert heat["x"] == surface["moneyness"]
    assert heat["rows"] == len(surface["expirations"]) == 8
    expected = sum(1 for cell in surface["grid"] if cell["impliedVolatility"] is not None)
    assert heat["cells"] == expected > 0
    assert page.attribute("#surface-chart", "data-cells") == str(expected)
    # Drawn, not only in the data: the heatmap's image is on the page.
    assert page.page.locator("#surface-chart .hm image").count() == 1
    atm = [row["atmVolatility"] for row in surface["expirations"]]
    assert page.attribute("#term-chart", "data-points") == \
        str(sum(1 for value in atm if value is not None))
    assert page.errors == []
    assert page.foreign == []
    page.shot("#options-panel", "explorer-options.png")

    # A symbol with no listed options says so in the panel.
    page.page.fill("#symbol-input", "BTC-USD")
    page.page.press("#symbol-input", "Enter")
    page.page.wait_for_selector("#options-error:not([hidden])")
    assert page.page.text_content("#options-error") == \
        "The service lists no options on \u201cBTC-USD\u201d."
    assert page.page.is_hidden("#smile-chart")
    assert page.page.is_disabled("#options-expiration")


def test_a_narrow_window_keeps_every_panel_readable(browser, sandboxed):
    narrow = Page(browser, sandboxed.base_url, width=390, height=844)
    try:
        narrow.open()
        width = narrow.page.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, "the page scrolls sideways on a narrow window"
        narrow.page.screenshot(path=str(SHOTS / "explorer-narrow.png"), full_page=False)
        # Every control has a label a screen reader can announce.
        unlabelled = narrow.page.evaluate("""() => Array.from(
            document.querySelectorAll('input, select, button')).filter((node) =>
            !(node.labels && node.labels.length) && !node.getAttribute('aria-label')
            && !(node.tagName === 'BUTTON' && node.textContent.trim())).map((node) => node.id)""")
        assert unlabelled == []
        assert narrow.errors == []
    finally:
        narrow.close()


def _chart_for(page: Page, range_: str) -> dict:
    """Redraw the price chart of the open symbol for ``range_`` (daily bars) and read what
    plotly drew: the window's dates and each indicator trace's values by date."""
    page.page.select_option("#chart-range", range_)
    page.page.select_option("#chart-interval", "1d")
    page.page.click("#chart-form button[type=submit]")
    page.page.wait_for_selector(f"#price-chart[data-range='{range_}'][data-state=ready]")
    return page.page.evaluate("""() => {
        const data = document.getElementById('price-chart').data;
        const candles = data.find((trace) => trace.type === 'candlestick');
        const lines = {};
        data.filter((trace) => ['RSI 14', 'EMA 50'].includes(trace.name)).forEach((trace) => {
            lines[trace.name] = {x: trace.x, y: trace.y};
        });
        return {window: candles.x, lines,
                history: document.getElementById('price-chart').dataset.history};
    }""")


def test_indicators_are_warmed_up_the_same_whatever_the_range(page):
    """A recursive indicator (RSI, EMA) on a given day does not depend on the chart's range:
    the page asks for earlier history and draws only the chart's window, from its first bar."""
    page.open("/#AAPL")
    page.page.check("#overlay-ema")
    page.page.select_option("#chart-oscillator", "RSI")
    charts = {range_: _chart_for(page, range_) for range_ in ("6mo", "1y", "5y")}
    by_date: dict[str, dict[str, dict[str, float | None]]] = {}
    for range_, chart in charts.items():
        for name, line in chart["lines"].items():
            by_date.setdefault(name, {})[range_] = dict(zip(line["x"], line["y"], strict=True))
    assert set(by_date) == {"RSI 14", "EMA 50"}
    for name, ranges in by_date.items():
        # Today's bar is still forming while the market is open (the sandbox's price moves
        # between the three charts' fetches): the settled days are what must agree.
        short = dict(sorted(ranges["6mo"].items())[:-1])
        for other in ("1y", "5y"):
            differ = {day: (value, ranges[other][day]) for day, value in short.items()
                      if ranges[other][day] != value}
            assert differ == {}, (name, "6mo vs " + other, sorted(differ.items())[:5])
    for range_, chart in charts.items():
        for name, line in chart["lines"].items():
            # Drawn only on the window's bars, and converged from its very first bar.
            assert line["x"] == chart["window"], (range_, name)
            assert line["y"][0] is not None, (range_, name, "no value on the first bar")
            assert None not in line["y"], (range_, name)
    # The 5-year chart's studies come from a longer history than the 6-month one's.
    assert charts["5y"]["history"] != charts["6mo"]["history"], charts["5y"]["history"]
    assert page.errors == []


def _overlapping_ticks(page: Page, selector: str) -> list[list[str]]:
    """Pairs of a chart's x-axis tick labels, or of its y-axis ones (every pane's), whose
    boxes overlap."""
    return page.page.evaluate("""(selector) => {
        const pairs = [];
        ['.xtick text', '.ytick text'].forEach((ticks) => {
            const labels = Array.from(document.querySelectorAll(selector + ' ' + ticks))
                .filter((node) => node.textContent.trim())
                .map((node) => ({text: node.textContent, box: node.getBoundingClientRect()}))
                .filter((label) => label.box.width > 0);
            labels.forEach((a, i) => labels.slice(i + 1).forEach((b) => {
                const apart = a.box.right <= b.box.left || b.box.right <= a.box.left ||
                    a.box.bottom <= b.box.top || b.box.bottom <= a.box.top;
                if (!apart) pairs.push([a.text, b.text]);
            }));
        });
        return pairs;
    }""", selector)


@pytest.mark.parametrize("width", [390, 1280])
def test_axis_labels_do_not_overlap(browser, sandboxed, width):
    shown = Page(browser, sandboxed.base_url, width=width, height=844)
    try:
        shown.open("/#AAPL")
        shown.page.check("#overlay-ema")  # every overlay: the legend's most rows
        shown.page.check("#overlay-bbands")
        charts = ["#price-chart"]
        for range_ in ("6mo", "5y"):  # a short and a long window (daily bars)
            _chart_for(shown, range_)
            assert shown.page.locator("#price-chart .xtick text").count() >= 2
            assert _overlapping_ticks(shown, "#price-chart") == [], (width, range_)
        shown.page.locator("#macro-panel").scroll_into_view_if_needed()
        shown.ready("#macro-chart")
        shown.ready("#curve-chart")
        charts += ["#macro-chart", "#curve-chart"]
        shown.page.locator("#options-panel").scroll_into_view_if_needed()
        for selector in ("#smile-chart", "#surface-chart", "#term-chart"):
            shown.ready(selector)
        charts += ["#smile-chart", "#surface-chart", "#term-chart"]
        shown.page.wait_for_selector("#backtest-strategy option[value=sma_crossover]",
                                     state="attached")
        shown.page.click("#backtest-run")
        shown.page.wait_for_selector("#equity-chart[data-final-equity]")
        charts.append("#equity-chart")
        for selector in charts:
            assert _overlapping_ticks(shown, selector) == [], (width, selector)
        if width > 390:
            # Narrowed (a phone turned, a window resized): the charts refit their ticks.
            before = shown.page.evaluate(
                "document.getElementById('price-chart').layout.xaxis.nticks")
            shown.page.set_viewport_size({"width": 390, "height": 844})
            # (Functions, not expressions: the page's policy forbids eval.)
            shown.page.wait_for_function("""(before) =>
                document.getElementById('price-chart').layout.xaxis.nticks < before &&
                document.querySelectorAll('#price-chart .xtick text').length <= before / 2""",
                                         arg=before)
            for selector in charts:
                assert _overlapping_ticks(shown, selector) == [], ("resized", selector)
        assert shown.errors == []
    finally:
        shown.close()


@pytest.fixture(scope="module")
def failing(tmp_path_factory) -> Iterator[Process]:
    """The service in live mode against a sandbox that fails every request."""
    with service_on_sandbox(tmp_path_factory.mktemp("explorer-failing"),
                            fail_rate=1.0) as (service, _):
        yield service


def test_an_upstream_failure_names_the_provider(browser, failing):
    broken = Page(browser, failing.base_url)
    try:
        broken.page.goto(failing.base_url + "/#AAPL", wait_until="load")
        broken.page.wait_for_selector("#quote-error:not([hidden])")
        text = broken.page.text_content("#quote-error")
        assert text.startswith("The data provider yahoo is not answering"), text
        broken.page.locator("#options-panel").scroll_into_view_if_needed()
        broken.page.wait_for_selector("#options-error:not([hidden])")
        text = broken.page.text_content("#options-error")
        assert text.startswith("The data provider yahoo is not answering"), text
        broken.page.wait_for_selector("#surface-error:not([hidden])")
        assert broken.foreign == []
        broken.shot("#main", "explorer-upstream-down.png")
    finally:
        broken.close()


@pytest.fixture(scope="module")
def limited(tmp_path_factory) -> Iterator[Process]:
    """Sandbox mode with a v2 bucket of two tokens that refills one every 100 s: the
    page's quote and chart take both."""
    service = start_service(tmp_path_factory.mktemp("explorer-limited"), {
        "MARKETDATA_UPSTREAM": "sandbox", "V2_RATE_LIMIT_CAPACITY": "2",
        "V2_RATE_LIMIT_REFILL_PER_SECOND": "0.01"})
    yield service
    service.stop()


def test_a_rate_limit_says_how_long_to_wait(browser, limited):
    throttled = Page(browser, limited.base_url)
    try:
        throttled.open("/#AAPL")
        throttled.page.wait_for_selector("#backtest-strategy option[value=sma_crossover]",
                                         state="attached")
        throttled.page.click("#backtest-run")
        throttled.page.wait_for_selector("#backtest-error:not([hidden])")
        text = throttled.page.text_content("#backtest-error")
        assert text.startswith("Rate limited: the service refuses more requests for now. "
                               "Try again in "), text
        assert text.endswith(" s.")
    finally:
        throttled.close()
