/*
 * The explorer page (apps/explorer): reads this service's own HTTP API from the browser,
 * as any client would, and draws it with plotly.js (served by the service itself).
 *
 * Every chart container carries what it drew in data-* attributes (candles, overlays,
 * oscillator, points, final equity) and a text alternative in aria-label: people using a
 * screen reader and the browser tests (tests/integration/test_explorer_browser.py) read the
 * same facts.
 */
(function () {
  "use strict";

  const $ = (id) => document.getElementById(id);
  const PLOT_CONFIG = {
    displaylogo: false, responsive: true,
    modeBarButtonsToRemove: ["select2d", "lasso2d", "autoScale2d"],
  };
  const COLORS = {
    up: "#0f7b3f", down: "#b42318", volume: "#98a2b3", sma: "#1d4ed8", ema: "#a21caf",
    bands: "#b45309", rsi: "#155e75", macd: "#1d4ed8", signal: "#ea580c", equity: "#155e75",
    drawdown: "#b42318", macro: "#1d4ed8", curve: "#155e75", calls: "#0f7b3f", puts: "#b42318",
    atm: "#155e75", skew: "#b45309",
  };
  // The intraday intervals' ranges (v1 interface: interval and range compatibility);
  // `max` needs 1mo. The API refuses the rest with a 400; the form never sends them.
  const INTRADAY_RANGES = {
    "1m": ["1d", "5d"],
    "5m": ["1d", "5d", "1mo"], "15m": ["1d", "5d", "1mo"], "30m": ["1d", "5d", "1mo"],
    "1h": ["1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y"],
  };
  const HUGE = 1e300; // the engine's "unbounded" ratios (no losses) are the largest double

  const state = {
    symbol: null, currency: "", priceHint: 2, gmtOffset: 0, chartRun: 0, stream: null,
    backtest: null, schema: null,
  };

  // -- the API ----------------------------------------------------------------------------
  class ApiError extends Error {
    constructor(status, body, response) {
      super(serverMessage(body) || (status ? "HTTP " + status : "no answer"));
      this.status = status;
      this.body = body || {};
      this.retryAfter = retryAfter(this.body, response);
    }
  }

  function serverMessage(body) {
    if (!body || typeof body !== "object") return "";
    if (body.errors && typeof body.errors === "object" && !Array.isArray(body.errors)) {
      const parts = Object.entries(body.errors).map(([key, messages]) =>
        key + ": " + [].concat(messages).join(" "));
      if (parts.length) return parts.join("; ");
    }
    return String(body.error || body.message || body.detail || "");
  }

  function retryAfter(body, response) {
    if (Number.isFinite(body.retryAfterSeconds)) return body.retryAfterSeconds;
    const header = response && response.headers.get("Retry-After");
    return header && /^\d+$/.test(header) ? Number(header) : null;
  }

  async function api(path, init) {
    let response;
    try {
      response = await fetch(path, Object.assign({ headers: { Accept: "application/json" } }, init));
    } catch (error) {
      throw new ApiError(0, null, null);
    }
    let body = null;
    try {
      body = await response.json();
    } catch (error) {
      body = null;
    }
    if (!response.ok) throw new ApiError(response.status, body, response);
    return { body, response };
  }

  /** A sentence a person understands, for an error about `kind` `name`. */
  function explain(error, kind, name) {
    if (!(error instanceof ApiError)) return "Something went wrong in this page: " + error.message;
    const detail = serverMessage(error.body);
    const said = detail ? " (the service said: " + detail + ")" : "";
    switch (true) {
      case error.status === 0:
        return "The service did not answer: check the connection and try again.";
      case error.status === 404:
        return "Unknown " + kind + " \u201c" + name + "\u201d: the service has no data for it" + said + ".";
      case error.status === 429: {
        const wait = error.retryAfter !== null ? " in " + error.retryAfter + " s" : " shortly";
        return "Rate limited: the service refuses more requests for now. Try again" + wait + ".";
      }
      case error.status === 502 || error.status === 503 || error.status === 504: {
        const provider = error.body.provider || "the upstream provider";
        return "The data provider " + provider + " is not answering (HTTP " + error.status +
          "), so there is no fresh " + kind + " data for \u201c" + name + "\u201d" + said +
          ". Try again later.";
      }
      case error.status === 400 || error.status === 422:
        return "The service refused the request" + said + ".";
      default:
        return "The service answered HTTP " + error.status + said + ".";
    }
  }

  function showError(id, text) {
    const node = $(id);
    node.textContent = text;
    node.hidden = !text;
  }

  // -- formatting -------------------------------------------------------------------------
  function number(value, digits) {
    if (value === null || value === undefined || Number.isNaN(Number(value))) return "\u2013";
    const n = Number(value);
    if (Math.abs(n) >= HUGE) return n > 0 ? "\u221e" : "-\u221e";
    return n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }

  function intraday(interval) {
    return /m$|h$/.test(interval) && interval !== "1mo" && interval !== "3mo";
  }

  /** A bar's time as the exchange's wall clock (the chart's gmtOffset), as text. */
  function timeLabel(timestamp, withTime) {
    const iso = new Date((timestamp + state.gmtOffset) * 1000).toISOString();
    return withTime ? iso.slice(0, 16).replace("T", " ") : iso.slice(0, 10);
  }

  function humanize(name) {
    // The unit column says "%": "totalReturnPct" reads "Total return".
    const words = name.replace(/Pct$/, "").replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
    return words.charAt(0).toUpperCase() + words.slice(1);
  }

  function encode(symbol) {
    return encodeURIComponent(symbol);
  }

  /** A list member as the API answers it: a bare array, or a connection's nodes. */
  function nodes(value) {
    return Array.isArray(value) ? value : (value && value.nodes) || [];
  }

  // Tick labels that fit the chart's size (plotly rotates x labels that do not, and a narrow
  // window's rotated labels still run into each other): x labels side by side and never
  // rotated, one per slot of `chars` characters of plotly's 12 px font; y labels at least
  // TICK_ROW_PX apart in each pane.
  const TICK_CHAR_PX = 7;
  const TICK_GAP_PX = 16;
  const TICK_ROW_PX = 28;

  /** {"xaxis.nticks": n, "yaxis2.nticks": m, ...} for `layout` drawn in `element`. */
  function fittedTicks(element, layout, chars) {
    const margin = layout.margin;
    const width = element.clientWidth - margin.l - margin.r;
    const height = element.clientHeight - margin.t - margin.b;
    const counts = { "xaxis.nticks": Math.max(2, Math.floor(width / (chars * TICK_CHAR_PX + TICK_GAP_PX))) };
    Object.keys(layout).filter((key) => /^yaxis\d*$/.test(key)).forEach((key) => {
      const domain = layout[key].domain || [0, 1];
      counts[key + ".nticks"] = Math.max(2, Math.floor(height * (domain[1] - domain[0]) / TICK_ROW_PX));
    });
    return counts;
  }

  /** Draw into a chart container, shown first: plotly measures it. `tickChars`: the x-axis
   * labels' length in characters, to fit the ticks to the size (after a resize too). */
  function draw(element, traces, layout, tickChars) {
    element.hidden = false;
    element.dataset.tickChars = String(tickChars);
    layout.xaxis = Object.assign({}, layout.xaxis, { tickangle: 0, automargin: true });
    Object.entries(fittedTicks(element, layout, tickChars)).forEach(([path, count]) => {
      const axis = path.split(".")[0];
      layout[axis] = Object.assign({}, layout[axis], { nticks: count });
    });
    Plotly.react(element, traces, layout, PLOT_CONFIG);
  }

  /** After a resize: as many tick labels as the new size holds. */
  function refitTicks() {
    document.querySelectorAll(".chart[data-tick-chars]").forEach((element) => {
      const layout = element.layout;
      if (element.hidden || !layout || !layout.margin) return;
      const counts = fittedTicks(element, layout, Number(element.dataset.tickChars));
      const changed = Object.entries(counts).some(([path, count]) => {
        const axis = layout[path.split(".")[0]];
        return !axis || axis.nticks !== count;
      });
      if (changed) Plotly.relayout(element, counts);
    });
  }

  /** Nothing to draw: the container goes away (an error says why), never a blank chart. */
  function undraw(element) {
    Plotly.purge(element);
    element.hidden = true;
    element.dataset.state = "error";
  }

  // -- symbol search (a combobox: arrows, Enter, Escape) ----------------------------------
  const search = { timer: null, active: -1, items: [], run: 0 };

  function closeResults() {
    const list = $("search-results");
    list.hidden = true;
    list.replaceChildren();
    search.items = [];
    search.active = -1;
    $("symbol-input").setAttribute("aria-expanded", "false");
    $("symbol-input").removeAttribute("aria-activedescendant");
  }

  function highlight(index) {
    const list = $("search-results");
    search.active = index;
    Array.from(list.children).forEach((item, i) => item.setAttribute("aria-selected", String(i === index)));
    if (index >= 0) {
      $("symbol-input").setAttribute("aria-activedescendant", "search-option-" + index);
      list.children[index].scrollIntoView({ block: "nearest" });
    }
  }

  async function suggest(text) {
    const run = ++search.run;
    try {
      const { body } = await api("/v2/search?q=" + encodeURIComponent(text) + "&limit=8");
      if (run !== search.run) return;
      showError("search-error", "");
      renderResults(nodes(body && body.quotes));
      $("search-results").dataset.query = text; // what the list answers (tests wait on it)
    } catch (error) {
      if (run !== search.run) return;
      closeResults();
      showError("search-error", explain(error, "search", text));
    }
  }

  function renderResults(items) {
    const list = $("search-results");
    list.replaceChildren();
    search.items = items.filter((item) => item && item.symbol);
    search.items.forEach((item, index) => {
      const option = document.createElement("li");
      option.id = "search-option-" + index;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", "false");
      const symbol = document.createElement("span");
      symbol.className = "sym";
      symbol.textContent = item.symbol;
      const name = document.createElement("span");
      name.textContent = [item.shortName || item.longName || "", item.exchDisp || item.exchange || ""]
        .filter(Boolean).join(" \u00b7 ");
      option.append(symbol, name);
      option.addEventListener("mousedown", (event) => {
        event.preventDefault(); // keep the focus in the input
        choose(item.symbol);
      });
      list.append(option);
    });
    const open = search.items.length > 0;
    list.hidden = !open;
    $("symbol-input").setAttribute("aria-expanded", String(open));
    search.active = -1;
  }

  function choose(symbol) {
    $("symbol-input").value = symbol;
    closeResults();
    loadSymbol(symbol);
  }

  function setUpSearch() {
    const input = $("symbol-input");
    input.addEventListener("input", () => {
      clearTimeout(search.timer);
      const text = input.value.trim();
      if (!text) {
        search.run++;
        closeResults();
        return;
      }
      search.timer = setTimeout(() => suggest(text), 200);
    });
    input.addEventListener("keydown", (event) => {
      const count = search.items.length;
      if (event.key === "ArrowDown" && count) {
        event.preventDefault();
        highlight((search.active + 1) % count);
      } else if (event.key === "ArrowUp" && count) {
        event.preventDefault();
        highlight((search.active - 1 + count) % count);
      } else if (event.key === "Enter" && search.active >= 0) {
        event.preventDefault();
        choose(search.items[search.active].symbol);
      } else if (event.key === "Escape") {
        closeResults();
      }
    });
    input.addEventListener("blur", () => setTimeout(closeResults, 150));
    $("search-form").addEventListener("submit", (event) => {
      event.preventDefault();
      clearTimeout(search.timer);
      search.run++;
      closeResults();
      const symbol = input.value.trim().toUpperCase();
      if (!symbol) {
        showError("search-error", "Type a symbol (such as AAPL) or a company name first.");
        return;
      }
      showError("search-error", "");
      loadSymbol(symbol);
    });
  }

  // -- the quote card and its live updates ------------------------------------------------
  async function loadQuote(symbol) {
    const fields = "symbol,shortName,longName,regularMarketPrice,regularMarketChange," +
      "regularMarketChangePercent,regularMarketDayHigh,regularMarketDayLow,marketState," +
      "currency,exchange,priceHint,quoteType";
    $("quote-panel").setAttribute("aria-busy", "true");
    try {
      const { body, response } = await api("/v2/quote/" + encode(symbol) + "?fields=" + fields);
      if (symbol !== state.symbol) return false;
      showError("quote-error", "");
      state.priceHint = Number.isInteger(body.priceHint) ? body.priceHint : 2;
      state.currency = body.currency || "";
      $("quote-symbol").textContent = body.symbol || symbol;
      $("quote-name").textContent = body.longName || body.shortName || "";
      $("quote-currency").textContent = state.currency;
      showPrice(body.regularMarketPrice, body.regularMarketChange,
        body.regularMarketChangePercent === null || body.regularMarketChangePercent === undefined
          ? null : body.regularMarketChangePercent * 100);
      $("quote-range").textContent = number(body.regularMarketDayLow, state.priceHint) + " \u2013 " +
        number(body.regularMarketDayHigh, state.priceHint);
      $("quote-state").textContent = (body.marketState || "unknown").toLowerCase();
      $("quote-exchange").textContent = body.exchange || "\u2013";
      const source = response.headers.get("X-Data-Source") || document.body.dataset.upstream;
      $("quote-source").textContent = source === "sandbox" ? "sandbox (synthetic data)" : source;
      $("quote-card").hidden = false;
      $("quote-empty").hidden = true;
      return true;
    } catch (error) {
      if (symbol !== state.symbol) return false;
      $("quote-card").hidden = true;
      $("quote-empty").hidden = true;
      showError("quote-error", explain(error, "symbol", symbol));
      return false;
    } finally {
      $("quote-panel").setAttribute("aria-busy", "false");
    }
  }

  function showPrice(price, change, percent) {
    $("quote-price").textContent = number(price, state.priceHint);
    const node = $("quote-change");
    if (change === null || change === undefined) {
      node.textContent = "";
      return;
    }
    const sign = change > 0 ? "+" : "";
    node.textContent = sign + number(change, state.priceHint) +
      (percent === null ? "" : " (" + sign + number(percent, 2) + " %)");
    node.className = change > 0 ? "up" : change < 0 ? "down" : "";
  }

  function stopStream() {
    if (state.stream) state.stream.close();
    state.stream = null;
    $("quote-live").textContent = "not connected";
  }

  /** The quote stream (GET /v1/stream/quotes, an event every few seconds). */
  function startStream(symbol) {
    stopStream();
    if (typeof EventSource === "undefined") return;
    const stream = new EventSource("/v1/stream/quotes?symbols=" + encode(symbol));
    state.stream = stream;
    $("quote-live").textContent = "connecting\u2026";
    stream.addEventListener("quote", (event) => {
      let quotes = [];
      try {
        quotes = JSON.parse(event.data);
      } catch (error) {
        return;
      }
      const quote = Array.isArray(quotes) && quotes.find((item) => item.symbol === symbol);
      if (!quote || symbol !== state.symbol) return;
      const price = parseFloat(String(quote.price).replace(/,/g, ""));
      const change = parseFloat(String(quote.change).replace(/,/g, ""));
      const percent = parseFloat(String(quote.percentChange).replace(/[%,]/g, ""));
      if (Number.isFinite(price)) {
        showPrice(price, Number.isFinite(change) ? change : null, Number.isFinite(percent) ? percent : null);
      }
      $("quote-live").textContent = "updated " + new Date().toLocaleTimeString("en-GB");
    });
    stream.addEventListener("error", () => {
      if (state.stream === stream) $("quote-live").textContent = "reconnecting\u2026";
    });
  }

  // -- the price chart --------------------------------------------------------------------
  function chartSettings() {
    return {
      range: $("chart-range").value,
      interval: $("chart-interval").value,
      overlays: [
        { on: $("overlay-sma").checked, fn: "SMA", period: periodOf("overlay-sma-period", 20) },
        { on: $("overlay-ema").checked, fn: "EMA", period: periodOf("overlay-ema-period", 50) },
        { on: $("overlay-bbands").checked, fn: "BBANDS", period: periodOf("overlay-bbands-period", 20) },
      ].filter((overlay) => overlay.on),
      oscillator: $("chart-oscillator").value,
    };
  }

  function periodOf(id, fallback) {
    const value = parseInt($(id).value, 10);
    return Number.isInteger(value) && value > 0 ? value : fallback;
  }

  function compatible(range, interval) {
    if (range === "max") return interval === "1mo";
    return !INTRADAY_RANGES[interval] || INTRADAY_RANGES[interval].includes(range);
  }

  /** Intervals the chosen range allows stay enabled; an incompatible choice moves to one. */
  function syncIntervals() {
    const range = $("chart-range").value;
    const select = $("chart-interval");
    Array.from(select.options).forEach((option) => {
      option.disabled = !compatible(range, option.value);
    });
    if (!compatible(range, select.value)) {
      const preferred = ["1d", "1h", "15m", "5m", "1m", "1mo"].find((value) => compatible(range, value));
      select.value = preferred;
    }
  }

  // -- indicator warm-up ------------------------------------------------------------------
  // /v1/indicator computes from the first bar of the range it is asked for. A recursive
  // indicator (EMA, RSI's Wilder averages, MACD) starts from a seed, a simple average, whose
  // weight then fades by (1 - alpha) a bar: asked for the chart's own range, its first values
  // are mostly seed (AAPL's RSI 14 read 96.9 on a 6-month chart and 66.5 on a 1-year one for
  // the same day). So the page asks for a longer range, long enough for the seed's weight to
  // fall below CONVERGED on the chart's first bar, and draws only the chart's window. Where
  // no longer range exists (1m bars beyond 5 days, 1h beyond a year, ...), the values whose
  // seed still weighs more than VISIBLE are left out and the status line says from when
  // each study is drawn; a history that starts at the listing is the whole story, drawn.
  const CONVERGED = 1e-6; // the seed's weight left: far below the API's rounding (2 decimals)
  const VISIBLE = 1e-3;   // more than this left: still visibly the seed, not drawn
  const OSCILLATOR_PERIODS = { RSI: { period: 14 }, MACD: { fast: 12, slow: 26, signal: 9 } };
  const HISTORY_RANGES = ["1d", "5d", "1mo", "3mo", "6mo", "1y", "2y", "5y", "10y", "max"];
  // Trading days in a range (252 a year) and bars in a trading day of regular hours.
  const RANGE_DAYS = { "1d": 1, "5d": 5, "1mo": 21, "3mo": 63, "6mo": 126, "1y": 252, "2y": 504,
    "5y": 1260, "10y": 2520, max: Infinity };
  const BARS_PER_DAY = { "1m": 390, "5m": 78, "15m": 26, "30m": 13, "1h": 7, "1d": 1, "1wk": 1 / 5, "1mo": 1 / 21 };
  const CALENDAR_DAYS = { "1d": 1, "5d": 7, "1mo": 31, "3mo": 92, "6mo": 183, "1y": 366, "2y": 731,
    "5y": 1827, "10y": 3653 };

  function rangeDays(range) {
    if (range !== "ytd") return RANGE_DAYS[range];
    const now = new Date();
    const elapsed = (now - Date.UTC(now.getUTCFullYear(), 0, 1)) / 86400000;
    return Math.ceil(elapsed * 252 / 365) + 1;
  }

  /** Bars until a recursive average's seed weighs less than `left` (alpha: its weight on
   * each new bar). */
  function fade(alpha, left) {
    return alpha >= 1 ? 0 : Math.ceil(Math.log(left) / Math.log(1 - alpha));
  }

  /** How a study warms up: `lead` bars before its first value, then `steps` values until
   * its seed weighs less than `left`. SMA and Bollinger bands have no seed: exact from their
   * first value. */
  function warmUp(fn, period, left) {
    const ema = (p) => fade(2 / (p + 1), left);
    if (fn === "EMA") return { lead: period - 1, steps: ema(period) };
    if (fn === "RSI") return { lead: period, steps: fade(1 / period, left) };
    if (fn === "MACD") {
      // The MACD line (fast - slow EMA) from the slow EMA's first value; the signal line is
      // an EMA of it, seeded on its first `signal` values.
      const { slow, signal } = OSCILLATOR_PERIODS.MACD;
      return { lead: slow - 1, steps: ema(slow) + signal - 1 + ema(signal) };
    }
    return { lead: period - 1, steps: 0 };
  }

  /** The studies of a chart, overlays first: function and look-back period (MACD: none,
   * the API's defaults, OSCILLATOR_PERIODS.MACD). */
  function studiesOf(settings) {
    const studies = settings.overlays.map((overlay) => ({ fn: overlay.fn, period: overlay.period }));
    if (settings.oscillator === "RSI") studies.push({ fn: "RSI", period: OSCILLATOR_PERIODS.RSI.period });
    else if (settings.oscillator) studies.push({ fn: settings.oscillator, period: null });
    return studies;
  }

  /** The range /v1/indicator is asked for: the shortest the interval allows (no ytd: its
   * start moves) holding the chart's window and, before it, every study's warm-up to
   * CONVERGED; else the longest it allows. 3 % of slack each way for the calendar. */
  function historyRange(settings) {
    const warm = Math.max(0, ...studiesOf(settings).map((study) => {
      const need = warmUp(study.fn, study.period, CONVERGED);
      return need.lead + need.steps;
    }));
    const need = rangeDays(settings.range) * 1.03 + warm / (BARS_PER_DAY[settings.interval] || 1);
    const longer = HISTORY_RANGES.filter((range) => compatible(range, settings.interval) &&
      (settings.range === "ytd" || HISTORY_RANGES.indexOf(range) >= HISTORY_RANGES.indexOf(settings.range)));
    if (!longer.length) return settings.range;
    return longer.find((range) => rangeDays(range) * 0.97 >= need) || longer[longer.length - 1];
  }

  /** A study's values without those its seed still shows (more than VISIBLE of its weight
   * left), unless the history starts at the listing (`whole`): what any computation gives.
   * `series` maps each bar's timestamp to its values. */
  function settled(series, study, whole) {
    const { steps } = warmUp(study.fn, study.period, VISIBLE);
    if (whole || !steps) return series;
    const times = Array.from(series.keys()).sort((a, b) => a - b);
    return new Map(times.slice(steps).map((time) => [time, series.get(time)]));
  }

  /** Whether the history asked for starts at the symbol's listing (its whole life). */
  function wholeHistory(range, meta) {
    if (range === "max") return true;
    const listed = Number(meta.firstTradeDate);
    return Number.isFinite(listed) && listed * 1000 > Date.now() - CALENDAR_DAYS[range] * 86400000;
  }

  function indicatorPath(symbol, range, interval, fn, period) {
    let path = "/v1/indicator?function=" + fn + "&symbol=" + encode(symbol) + "&range=" +
      range + "&interval=" + interval + "&epoch=true";
    if (period) path += "&lookBackPeriod=" + period;
    return path;
  }

  /** {timestamp: values} of /v1/indicator's "Technical Analysis" (epoch keys). */
  async function indicator(symbol, range, interval, fn, period) {
    const { body } = await api(indicatorPath(symbol, range, interval, fn, period));
    const series = new Map();
    Object.entries(body["Technical Analysis"] || {}).forEach(([key, values]) => {
      series.set(Number(key), values);
    });
    return series;
  }

  async function loadChart() {
    const symbol = state.symbol;
    if (!symbol) return;
    const settings = chartSettings();
    const run = ++state.chartRun;
    const element = $("price-chart");
    element.dataset.state = "loading";
    $("chart-status").textContent = "Loading " + symbol + " (" + settings.range + ", " + settings.interval + ")\u2026";
    showError("chart-error", "");
    const chartPath = "/v2/chart/" + encode(symbol) + "?range=" + settings.range + "&interval=" + settings.interval;
    // One longer range for every study: the service fetches its candles once.
    const history = historyRange(settings);
    const wanted = studiesOf(settings).map((study) =>
      indicator(symbol, history, settings.interval, study.fn, study.period));
    const [chart, ...studies] = await Promise.allSettled([api(chartPath), ...wanted]);
    if (run !== state.chartRun) return;
    if (chart.status === "rejected") {
      undraw(element);
      element.dataset.candles = "0";
      element.setAttribute("aria-label", "Price chart: no data");
      $("chart-status").textContent = "";
      showError("chart-error", explain(chart.reason, "symbol", symbol));
      return;
    }
    const body = chart.value.body;
    const candles = nodes(body.candles);
    const meta = body.meta || {};
    state.gmtOffset = Number.isFinite(meta.gmtOffset) ? meta.gmtOffset : 0;
    if (Number.isInteger(meta.priceHint)) state.priceHint = meta.priceHint;
    if (meta.currency) state.currency = meta.currency; // the quote may not have answered yet
    const withTime = intraday(settings.interval);
    const x = candles.map((candle) => timeLabel(candle.timestamp, withTime));
    const failures = [];
    const whole = wholeHistory(history, meta);
    const late = []; // studies drawn from a later bar than the window's first
    const series = (study, result, name) => {
      const kept = settled(result.value, study, whole);
      const first = candles.findIndex((candle) => kept.has(candle.timestamp));
      if (first !== 0 && candles.length) late.push(name + (first > 0 ? " drawn from " + x[first] : " not drawn"));
      return kept;
    };
    const overlays = settings.overlays.map((overlay, index) => {
      const result = studies[index];
      if (result.status === "rejected") {
        failures.push(overlay.fn + ": " + explain(result.reason, "indicator", overlay.fn));
        return null;
      }
      return { overlay, series: series(overlay, result, overlay.fn + " " + overlay.period) };
    }).filter(Boolean);
    let oscillator = null;
    if (settings.oscillator) {
      const result = studies[settings.overlays.length];
      if (result.status === "rejected") {
        failures.push(settings.oscillator + ": " + explain(result.reason, "indicator", settings.oscillator));
      } else {
        const study = studiesOf(settings)[settings.overlays.length];
        const name = study.period ? study.fn + " " + study.period : study.fn;
        oscillator = { fn: settings.oscillator, series: series(study, result, name) };
      }
    }
    showError("chart-error", failures.join(" "));
    element.dataset.history = history;
    drawPriceChart(symbol, settings, candles, x, overlays, oscillator);
    if (late.length) {
      $("chart-status").textContent += " \u00b7 warming up without earlier " + settings.interval +
        " history: " + late.join(", ");
    }
  }

  function aligned(candles, series, member) {
    return candles.map((candle) => {
      const values = series.get(candle.timestamp);
      return values && values[member] !== undefined ? values[member] : null;
    });
  }

  function drawPriceChart(symbol, settings, candles, x, overlays, oscillator) {
    const element = $("price-chart");
    const traces = [{
      type: "candlestick", name: symbol, x,
      open: candles.map((c) => c.open), high: candles.map((c) => c.high),
      low: candles.map((c) => c.low), close: candles.map((c) => c.close),
      increasing: { line: { color: COLORS.up } }, decreasing: { line: { color: COLORS.down } },
      xaxis: "x", yaxis: "y",
    }, {
      type: "bar", name: "Volume", x, y: candles.map((c) => c.volume),
      marker: { color: candles.map((c) => (c.close >= c.open ? COLORS.up : COLORS.down)), opacity: 0.45 },
      xaxis: "x", yaxis: "y2", hovertemplate: "%{y:,}<extra>Volume</extra>",
    }];
    const names = [];
    overlays.forEach(({ overlay, series }) => {
      if (overlay.fn === "BBANDS") {
        names.push("Bollinger " + overlay.period);
        const line = { color: COLORS.bands, width: 1 };
        traces.push({ type: "scatter", mode: "lines", name: "BB upper", x, y: aligned(candles, series, "upper_band"), line, legendgroup: "bb" });
        traces.push({ type: "scatter", mode: "lines", name: "BB lower", x, y: aligned(candles, series, "lower_band"), line, fill: "tonexty", fillcolor: "rgba(180,83,9,0.08)", legendgroup: "bb" });
        traces.push({ type: "scatter", mode: "lines", name: "BB middle", x, y: aligned(candles, series, "middle_band"), line: { color: COLORS.bands, width: 1, dash: "dot" }, legendgroup: "bb" });
      } else {
        names.push(overlay.fn + " " + overlay.period);
        traces.push({
          type: "scatter", mode: "lines", name: overlay.fn + " " + overlay.period, x,
          y: aligned(candles, series, "value"),
          line: { color: overlay.fn === "SMA" ? COLORS.sma : COLORS.ema, width: 1.5 },
        });
      }
    });
    const markers = tradeMarkers(symbol, settings, x, candles);
    traces.push(...markers);
    if (oscillator && oscillator.fn === "RSI") {
      traces.push({ type: "scatter", mode: "lines", name: "RSI " + OSCILLATOR_PERIODS.RSI.period, x, y: aligned(candles, oscillator.series, "value"), line: { color: COLORS.rsi, width: 1.5 }, xaxis: "x", yaxis: "y3" });
    } else if (oscillator && oscillator.fn === "MACD") {
      const value = aligned(candles, oscillator.series, "value");
      const signal = aligned(candles, oscillator.series, "signal");
      const histogram = value.map((v, i) => (v === null || signal[i] === null ? null : v - signal[i]));
      traces.push({ type: "bar", name: "MACD histogram", x, y: histogram, marker: { color: histogram.map((h) => (h >= 0 ? COLORS.up : COLORS.down)), opacity: 0.5 }, xaxis: "x", yaxis: "y3" });
      traces.push({ type: "scatter", mode: "lines", name: "MACD", x, y: value, line: { color: COLORS.macd, width: 1.5 }, xaxis: "x", yaxis: "y3" });
      traces.push({ type: "scatter", mode: "lines", name: "Signal", x, y: signal, line: { color: COLORS.signal, width: 1.5 }, xaxis: "x", yaxis: "y3" });
    }
    const pane = Boolean(oscillator);
    const layout = {
      margin: { l: 56, r: 16, t: 28, b: 40 },
      showlegend: true,
      legend: { orientation: "h", x: 0, y: 1.01, yanchor: "bottom" }, // above the plot: the top margin grows to hold it
      hovermode: "x unified",
      xaxis: { type: "category", rangeslider: { visible: false }, anchor: pane ? "y3" : "y2", showspikes: true },
      yaxis: { domain: pane ? [0.42, 1] : [0.24, 1], title: { text: state.currency || "Price" }, tickformat: ",." + state.priceHint + "f" },
      yaxis2: { domain: pane ? [0.26, 0.38] : [0, 0.2], title: { text: "Volume" }, tickformat: "~s" },
      shapes: [],
    };
    if (pane) {
      layout.yaxis3 = { domain: [0, 0.2], title: { text: oscillator.fn } };
      if (oscillator.fn === "RSI") {
        layout.yaxis3.range = [0, 100];
        layout.shapes = [30, 70].map((level) => ({
          type: "line", xref: "paper", x0: 0, x1: 1, yref: "y3", y0: level, y1: level,
          line: { color: COLORS.volume, width: 1, dash: "dash" },
        }));
      }
    }
    draw(element, traces, layout, intraday(settings.interval) ? 16 : 10);
    const interval = settings.interval;
    element.dataset.state = "ready";
    element.dataset.symbol = symbol;
    element.dataset.range = settings.range;
    element.dataset.interval = interval;
    element.dataset.candles = String(candles.length);
    element.dataset.overlays = names.join(",");
    element.dataset.oscillator = oscillator ? oscillator.fn : "";
    element.dataset.trades = String(markers.length ? markers[0].x.length : 0);
    const span = candles.length ? " from " + x[0] + " to " + x[x.length - 1] : "";
    const studies = names.concat(oscillator ? [oscillator.fn] : []);
    element.setAttribute("aria-label", "Candlestick chart of " + symbol + ": " + candles.length +
      " candles of " + interval + span + (studies.length ? ", with " + studies.join(", ") : "") + ".");
    const last = candles[candles.length - 1];
    $("chart-status").textContent = candles.length + " candles \u00b7 " + settings.range + " \u00b7 " + interval +
      (last ? " \u00b7 last close " + number(last.close, state.priceHint) + " " + state.currency : "");
  }

  /** Entry and exit markers of the last backtest, when it ran on this chart's candles. */
  function tradeMarkers(symbol, settings, x, candles) {
    const run = state.backtest;
    if (!run || run.symbol !== symbol || run.range !== settings.range || run.interval !== settings.interval) return [];
    const index = new Map(candles.map((candle, i) => [candle.timestamp, x[i]]));
    const entries = { x: [], y: [], symbol: [], text: [] };
    const exits = { x: [], y: [], text: [] };
    (run.result.trades || []).forEach((trade) => {
      if (index.has(trade.entryTimestamp)) {
        entries.x.push(index.get(trade.entryTimestamp));
        entries.y.push(trade.entryPrice);
        entries.symbol.push(trade.side === "short" ? "triangle-down" : "triangle-up");
        entries.text.push(trade.side + " entry");
      }
      if (trade.exitTimestamp && index.has(trade.exitTimestamp)) {
        exits.x.push(index.get(trade.exitTimestamp));
        exits.y.push(trade.exitPrice);
        exits.text.push("exit, P&L " + number(trade.pnl, 2) + " (" + number(trade.returnPct, 2) + " %)");
      }
    });
    return [
      { type: "scatter", mode: "markers", name: "Trade entries", x: entries.x, y: entries.y, text: entries.text,
        marker: { symbol: entries.symbol, size: 11, color: "#0b5cad", line: { color: "#fff", width: 1 } },
        hovertemplate: "%{text}: %{y:.2f}<extra></extra>" },
      { type: "scatter", mode: "markers", name: "Trade exits", x: exits.x, y: exits.y, text: exits.text,
        marker: { symbol: "x", size: 10, color: "#111827" }, hovertemplate: "%{text}<extra></extra>" },
    ];
  }

  async function loadSymbol(symbol) {
    state.symbol = symbol;
    $("symbol-input").value = symbol;
    history.replaceState(null, "", "#" + encode(symbol));
    const quoteFound = loadQuote(symbol);
    if (options.started) loadOptions(symbol);
    await loadChart();
    if (await quoteFound) startStream(symbol);
    else stopStream();
  }

  // -- the backtest form, generated from the request schema (/openapi.json) ---------------
  function resolve(schema, node) {
    let current = node || {};
    const ref = current.$ref || (current.allOf && current.allOf[0] && current.allOf[0].$ref);
    if (ref) {
      const target = ref.split("/").pop();
      current = Object.assign({}, schema.components.schemas[target], current);
    }
    return current;
  }

  function fillSelect(select, values, chosen) {
    select.replaceChildren(...values.map((value) => {
      const option = document.createElement("option");
      option.value = value;
      option.textContent = value;
      option.selected = value === chosen;
      return option;
    }));
  }

  /** `name`: text pairs of a description such as "`sma_crossover`: SMA ... ; `x`: ...". */
  function strategyNotes(description) {
    const notes = {};
    const pattern = /`(\w+)`: (.+?)(?=; `\w+`:|\n|$)/g;
    let match;
    while ((match = pattern.exec(description || ""))) notes[match[1]] = match[2];
    return notes;
  }

  /** {strategy: default} from "Read by sma_crossover (default 10), ema_crossover (...)". */
  function readers(description) {
    const found = {};
    const tail = /Read by (.+)$/.exec(description || "");
    if (!tail) return null;
    const pattern = /(\w+) \(default ([^)]*)\)/g;
    let match;
    while ((match = pattern.exec(tail[1]))) found[match[1]] = match[2];
    return found;
  }

  function generalDefault(description) {
    const match = /Default ([^\s.]+(?:\.\d+)?)/.exec(description || "");
    return match ? match[1] : "";
  }

  function paramControl(name, spec) {
    const types = [].concat(spec.type || []);
    const field = document.createElement("div");
    field.className = "field";
    const id = "param-" + name;
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = humanize(name);
    const help = document.createElement("span");
    help.className = "help";
    help.id = id + "-help";
    help.textContent = (spec.description || "").split(". Read by")[0].split(" Read by")[0];
    let control;
    if (types.includes("boolean")) {
      control = document.createElement("select");
      ["", "true", "false"].forEach((value) => {
        const option = document.createElement("option");
        option.value = value;
        option.textContent = value || "default";
        control.append(option);
      });
    } else {
      control = document.createElement("input");
      control.type = "number";
      control.step = types.includes("integer") ? "1" : "any";
      if (spec.minimum !== undefined) control.min = spec.minimum;
      if (spec.exclusiveMinimum !== undefined) control.min = spec.exclusiveMinimum;
      if (spec.maximum !== undefined) control.max = spec.maximum;
      control.inputMode = types.includes("integer") ? "numeric" : "decimal";
    }
    control.id = id;
    control.name = name;
    control.dataset.kind = types.includes("boolean") ? "boolean" : types.includes("integer") ? "integer" : "number";
    if (spec.exclusiveMinimum !== undefined) control.dataset.exclusiveMinimum = spec.exclusiveMinimum;
    control.setAttribute("aria-describedby", help.id);
    field.append(label, control, help);
    return { field, control };
  }

  async function setUpBacktest() {
    let schema;
    $("backtest-status").textContent = "Loading the form from the API description\u2026";
    $("backtest-run").disabled = true;
    try {
      schema = (await api("/openapi.json")).body;
      $("backtest-status").textContent = "";
      $("backtest-run").disabled = false;
    } catch (error) {
      $("backtest-status").textContent = "";
      showError("backtest-error", "The backtest form could not be built: " + explain(error, "document", "/openapi.json"));
      return;
    }
    state.schema = schema;
    const request = schema.components.schemas.BacktestRequest;
    const strategy = resolve(schema, request.properties.strategy);
    const notes = strategyNotes(request.properties.strategy.description || strategy.description);
    fillSelect($("backtest-strategy"), strategy.enum || [], "sma_crossover");
    const range = resolve(schema, request.properties.range);
    fillSelect($("backtest-range"), range.enum || [], request.properties.range.default || "1y");
    const interval = resolve(schema, request.properties.interval);
    fillSelect($("backtest-interval"), interval.enum || [], request.properties.interval.default || "1d");
    const params = request.properties.params.properties || {};
    Object.entries(params).forEach(([name, spec]) => {
      const { field, control } = paramControl(name, spec);
      const read = readers(spec.description);
      if (read) {
        field.dataset.strategies = Object.keys(read).join(" ");
        control.dataset.defaults = JSON.stringify(read);
        $("backtest-params").append(field);
      } else {
        const fallback = generalDefault(spec.description);
        if (fallback && control.tagName === "INPUT") control.placeholder = "default " + fallback;
        if (fallback && control.tagName === "SELECT") control.options[0].textContent = "default (" + fallback.toLowerCase() + ")";
        $("backtest-settings").append(field);
      }
    });
    const onStrategy = () => {
      const chosen = $("backtest-strategy").value;
      $("backtest-strategy-help").textContent = notes[chosen] || "";
      let shown = 0;
      $("backtest-params").querySelectorAll(".field").forEach((field) => {
        const applies = field.dataset.strategies.split(" ").includes(chosen);
        field.hidden = !applies;
        const control = field.querySelector("input, select");
        control.disabled = !applies;
        const defaults = JSON.parse(control.dataset.defaults);
        if (control.tagName === "INPUT") control.placeholder = applies ? "default " + defaults[chosen] : "";
        else control.options[0].textContent = applies ? "default (" + String(defaults[chosen]).toLowerCase() + ")" : "default";
        shown += applies ? 1 : 0;
      });
      $("backtest-params").hidden = shown === 0;
    };
    $("backtest-strategy").addEventListener("change", onStrategy);
    onStrategy();
    $("backtest-form").addEventListener("submit", (event) => {
      event.preventDefault();
      runBacktest();
    });
  }

  function collectParams() {
    const params = {};
    const problems = [];
    document.querySelectorAll("#backtest-params input, #backtest-params select, #backtest-settings input, #backtest-settings select")
      .forEach((control) => {
        if (control.disabled || control.value === "") return;
        const label = humanize(control.name);
        if (control.dataset.kind === "boolean") {
          params[control.name] = control.value === "true";
          return;
        }
        const value = Number(control.value);
        if (!control.checkValidity() || !Number.isFinite(value)) {
          problems.push(label + ": " + (control.validationMessage || "not a number"));
        } else if (control.dataset.exclusiveMinimum !== undefined && value <= Number(control.dataset.exclusiveMinimum)) {
          problems.push(label + ": must be greater than " + control.dataset.exclusiveMinimum);
        } else {
          params[control.name] = value;
        }
      });
    return { params, problems };
  }

  async function runBacktest() {
    const symbol = state.symbol;
    if (!symbol) {
      showError("backtest-error", "Choose a symbol first (the search box at the top).");
      return;
    }
    const { params, problems } = collectParams();
    if (problems.length) {
      showError("backtest-error", "Check the form: " + problems.join("; ") + ".");
      return;
    }
    const request = {
      strategy: $("backtest-strategy").value,
      range: $("backtest-range").value,
      interval: $("backtest-interval").value,
      params,
    };
    showError("backtest-error", "");
    $("backtest-run").disabled = true;
    $("backtest-status").textContent = "Running " + request.strategy + " on " + symbol + "\u2026";
    try {
      const { body } = await api("/v2/backtest/" + encode(symbol), {
        method: "POST",
        headers: { Accept: "application/json", "Content-Type": "application/json" },
        body: JSON.stringify(request),
      });
      state.backtest = { symbol, range: request.range, interval: request.interval, result: body };
      drawBacktest(body);
      // The trades go on the price chart, drawn with the backtest's own candles.
      if (state.symbol === symbol) {
        const offered = (id, value) => Array.from($(id).options).some((option) => option.value === value);
        if (compatible(request.range, request.interval) && offered("chart-range", request.range) &&
            offered("chart-interval", request.interval)) {
          $("chart-range").value = request.range;
          syncIntervals();
          $("chart-interval").value = request.interval;
        }
        await loadChart();
      }
    } catch (error) {
      $("backtest-status").textContent = "";
      showError("backtest-error", explain(error, "symbol", symbol));
    } finally {
      $("backtest-run").disabled = false;
    }
  }

  const METRIC_UNITS = {
    winRate: ["%", 100], kellyCriterion: ["%", 100],
    avgTradeDuration: ["days", 1 / 86400], avgWinDuration: ["days", 1 / 86400],
    avgLossDuration: ["days", 1 / 86400], maxIdlePeriod: ["days", 1 / 86400],
    maxDrawdownDuration: ["bars", 1], ulcerIndex: ["%", 1],
    expectancy: ["currency per trade", 1],
  };
  // What people look at first; the rest follow in the API's order.
  const HEADLINE_METRICS = ["totalReturnPct", "annualizedReturnPct", "maxDrawdownPct", "sharpeRatio",
    "sortinoRatio", "winRate", "profitFactor", "totalTrades"];
  const CURRENCY_METRICS = new Set(["totalCommission", "totalDividendIncome", "totalFinancingCost",
    "largestWin", "largestLoss", "initialCapital", "finalEquity"]);

  function metricUnit(name, value) {
    const currency = state.currency || "currency";
    if (METRIC_UNITS[name]) {
      const [unit, scale] = METRIC_UNITS[name];
      return [unit.replace("currency", currency), value * scale, unit === "bars" ? 0 : 2];
    }
    if (CURRENCY_METRICS.has(name)) return [currency, value, 2];
    if (/Pct$/.test(name)) return ["%", value, 2];
    if (/Ratio$|^sqn$|Factor$/.test(name)) return ["ratio", value, 3];
    if (/Trades$|Wins$|Losses$/.test(name)) return ["trades", value, 0];
    if (/Signals$/.test(name)) return ["signals", value, 0];
    if (name === "maxLeverageUsed") return ["\u00d7 equity", value, 2];
    return ["", value, 4];
  }

  function drawBacktest(result) {
    $("backtest-results").hidden = false;
    const curve = nodes(result.equityCurve);
    const x = curve.map((point) => timeLabel(point.timestamp, true));
    const traces = [
      { type: "scatter", mode: "lines", name: "Equity", x, y: curve.map((point) => point.equity), line: { color: COLORS.equity, width: 2 }, yaxis: "y" },
      { type: "scatter", mode: "lines", name: "Drawdown", x, y: curve.map((point) => -point.drawdownPct), fill: "tozeroy", line: { color: COLORS.drawdown, width: 1 }, fillcolor: "rgba(180,35,24,0.15)", yaxis: "y2" },
    ];
    const layout = {
      margin: { l: 64, r: 16, t: 28, b: 40 },
      legend: { orientation: "h", x: 0, y: 1.1 },
      hovermode: "x unified",
      xaxis: { type: "date", anchor: "y2" },
      yaxis: { domain: [0.36, 1], title: { text: "Equity (" + (state.currency || "currency") + ")" }, tickformat: ",.0f" },
      yaxis2: { domain: [0, 0.28], title: { text: "Drawdown (%)" }, ticksuffix: " %" },
    };
    const element = $("equity-chart");
    draw(element, traces, layout, 8);
    const last = curve[curve.length - 1];
    element.dataset.points = String(curve.length);
    element.dataset.finalEquity = String(result.finalEquity);
    element.dataset.lastEquity = last ? String(last.equity) : "";
    element.setAttribute("aria-label", "Equity curve of " + (result.strategyName || "the strategy") + " on " +
      result.symbol + ": " + number(result.initialCapital, 2) + " to " + number(result.finalEquity, 2) + " " +
      state.currency + " over " + curve.length + " bars.");
    const metrics = result.metrics || {};
    const first = HEADLINE_METRICS.filter((name) => name in metrics);
    const rows = [["initialCapital", result.initialCapital], ["finalEquity", result.finalEquity],
      ["maxLeverageUsed", result.maxLeverageUsed]]
      .concat(first.map((name) => [name, metrics[name]]))
      .concat(Object.entries(metrics).filter(([name]) => !first.includes(name)));
    $("backtest-metrics").querySelector("tbody").replaceChildren(...rows.filter(([, value]) => value !== undefined).map(([name, value]) => {
      const row = document.createElement("tr");
      const [unit, shown, digits] = metricUnit(name, Number(value));
      const cells = [humanize(name), value === null ? "\u2013" : number(shown, digits), unit];
      cells.forEach((text, i) => {
        const cell = document.createElement(i === 0 ? "th" : "td");
        if (i === 0) cell.scope = "row";
        cell.textContent = text;
        row.append(cell);
      });
      row.dataset.metric = name;
      return row;
    }));
    const trades = nodes(result.trades).length;
    const notes = (result.diagnostics || []).join(" ");
    $("backtest-status").textContent = (result.strategyName || "Backtest") + " on " + result.symbol + ": " + trades +
      " trades, final equity " + number(result.finalEquity, 2) + " " + state.currency + (notes ? ". " + notes : "");
  }

  // -- options: the chain's smile and greeks, the volatility surface ----------------------
  // /v2/options/{symbol}/greeks answers one expiry (the nearest unless asked) with every
  // contract's implied volatility and greeks; /surface the first SURFACE_EXPIRATIONS
  // expiries' out-of-the-money smiles on a K/S grid, their ATM volatility and 25-delta skew.
  const SMILE_MONEYNESS = "0.8,1.2";     // K/S window of the smile
  const SURFACE_QUERY = "expirations=8&moneyness=0.7,1.3&step=0.05";
  const GREEK_STRIKES = 9;               // the table's strikes, nearest the money
  const MODELS = { "black-scholes-merton": "Black-Scholes-Merton", "bjerksund-stensland-2002": "Bjerksund-Stensland 2002" };
  const options = { started: false, run: 0, surfaceRun: 0, symbol: null };

  /** An expiry (epoch seconds, midnight UTC of the day) as its date. */
  function expiryLabel(epoch) {
    return new Date(epoch * 1000).toISOString().slice(0, 10);
  }

  function percent(value, digits) {
    return value === null || value === undefined ? "\u2013" : number(value * 100, digits) + " %";
  }

  function clockLabel(epoch) {
    return new Date(epoch * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC";
  }

  function fillExpirations(dates, chosen) {
    const select = $("options-expiration");
    select.replaceChildren(...dates.map((epoch) => {
      const option = document.createElement("option");
      option.value = String(epoch);
      option.textContent = expiryLabel(epoch);
      option.selected = epoch === chosen;
      return option;
    }));
    select.disabled = dates.length === 0;
  }

  /** Load the options of `symbol`: one expiry's greeks (`expiration`, else the nearest) and,
   * for a new symbol, the surface. */
  async function loadOptions(symbol, expiration) {
    if (!symbol) return;
    const run = ++options.run;
    const newSymbol = symbol !== options.symbol;
    options.symbol = symbol;
    const element = $("smile-chart");
    element.dataset.state = "loading";
    $("options-panel").setAttribute("aria-busy", "true");
    $("options-status").textContent = "Loading the options of " + symbol +
      (expiration ? " expiring " + expiryLabel(expiration) : "") + "\u2026";
    showError("options-error", "");
    if (newSymbol) {
      fillExpirations([], null);
      loadSurface(symbol);
    }
    let path = "/v2/options/" + encode(symbol) + "/greeks?moneyness=" + SMILE_MONEYNESS;
    if (expiration) path += "&expiration=" + expiration;
    try {
      const { body } = await api(path);
      if (run !== options.run) return;
      const dates = body.expirationDates || [];
      fillExpirations(dates, body.expiration);
      if (!dates.length || body.expiration === null) {
        undrawOptions();
        $("options-status").textContent = "";
        showError("options-error", "The service lists no options on \u201c" + symbol + "\u201d.");
        return;
      }
      drawOptions(symbol, body, nodes(body.contracts));
    } catch (error) {
      if (run !== options.run) return;
      undrawOptions();
      if (newSymbol) options.symbol = null; // the next try starts over (and fetches the surface)
      $("options-status").textContent = "";
      showError("options-error", explain(error, "symbol", symbol));
    } finally {
      if (run === options.run) $("options-panel").setAttribute("aria-busy", "false");
    }
  }

  function undrawOptions() {
    undraw($("smile-chart"));
    $("smile-chart").dataset.contracts = "0";
    $("greeks-wrap").hidden = true;
    $("options-facts").hidden = true;
  }

  function drawOptions(symbol, body, contracts) {
    const day = expiryLabel(body.expiration);
    $("options-underlying").textContent = number(body.underlyingPrice, state.priceHint) + " " + state.currency;
    $("options-expiry").textContent = body.timeToExpiry === null ? "\u2013"
      : number(body.timeToExpiry * 365, 1) + " days (" + number(body.timeToExpiry, 4) + " years)";
    $("options-model").textContent = (MODELS[body.model] || body.model) + " (" + body.style + " exercise)";
    $("options-rate").textContent = percent(body.riskFreeRate, 3) +
      (body.rateDate ? " (Treasury curve of " + body.rateDate + ")" : "");
    $("options-dividend").textContent = percent(body.dividendYield, 3);
    $("options-asof").textContent = clockLabel(body.asOf);
    $("options-facts").hidden = false;
    drawGreeks(body, contracts, day); // first: the table's width leaves the smile its own
    drawSmile(symbol, body, contracts, day);
    const solved = contracts.filter((contract) => contract.impliedVolatility !== null).length;
    $("options-status").textContent = contracts.length + " contracts expiring " + day + " with K/S in " +
      SMILE_MONEYNESS.replace(",", "\u2013") + ", " + solved + " with an implied volatility";
  }

  function drawSmile(symbol, body, contracts, day) {
    const element = $("smile-chart");
    const side = (type, color) => {
      const chosen = contracts.filter((contract) => contract.type === type && contract.impliedVolatility !== null);
      return {
        type: "scatter", mode: "lines+markers", name: type === "call" ? "Calls" : "Puts",
        x: chosen.map((contract) => contract.strike),
        y: chosen.map((contract) => contract.impliedVolatility * 100),
        customdata: chosen.map((contract) => [contract.moneyness, contract.ivSource, contract.delta]),
        line: { color, width: 1.5 },
        // Solved from the mid: filled; Yahoo's own figure: open.
        marker: { color, size: 7, symbol: chosen.map((contract) => (contract.ivSource === "mid" ? "circle" : "circle-open")) },
        hovertemplate: "K %{x} (K/S %{customdata[0]:.3f}): %{y:.1f} % (%{customdata[1]}), delta %{customdata[2]:.2f}<extra>" +
          (type === "call" ? "Call" : "Put") + "</extra>",
      };
    };
    const traces = [side("call", COLORS.calls), side("put", COLORS.puts)];
    const layout = {
      title: { text: symbol + " volatility smile, " + day, font: { size: 14 } },
      margin: { l: 56, r: 16, t: 40, b: 44 },
      // Inside, at the top middle: above a smile's bottom, clear of the axis titles.
      legend: { orientation: "h", x: 0.5, xanchor: "center", y: 0.98, yanchor: "top", bgcolor: "rgba(255,255,255,0.8)" },
      hovermode: "closest",
      xaxis: { title: { text: "Strike (" + (state.currency || "price") + ")" } },
      yaxis: { title: { text: "Implied volatility (%)" }, ticksuffix: " %" },
      shapes: [{
        type: "line", xref: "x", x0: body.underlyingPrice, x1: body.underlyingPrice, yref: "paper", y0: 0, y1: 1,
        line: { color: COLORS.volume, width: 1, dash: "dash" },
      }],
      annotations: [{
        x: body.underlyingPrice, xref: "x", y: 1, yref: "paper", yanchor: "bottom", showarrow: false,
        text: "spot " + number(body.underlyingPrice, state.priceHint), font: { size: 11, color: "#5b6675" },
      }],
    };
    draw(element, traces, layout, 5);
    const points = traces[0].x.length + traces[1].x.length;
    element.dataset.state = "ready";
    element.dataset.symbol = symbol;
    element.dataset.expiration = String(body.expiration);
    element.dataset.contracts = String(contracts.length);
    element.dataset.points = String(points);
    const atm = (trace) => {
      let best = -1;
      trace.x.forEach((strike, i) => {
        if (best < 0 || Math.abs(strike - body.underlyingPrice) < Math.abs(trace.x[best] - body.underlyingPrice)) best = i;
      });
      return best < 0 ? "none" : number(trace.y[best], 1) + " % at strike " + trace.x[best];
    };
    element.setAttribute("aria-label", "Implied volatility against strike of " + symbol + " options expiring " + day +
      ": " + traces[0].x.length + " calls and " + traces[1].x.length + " puts; nearest the money, calls " +
      atm(traces[0]) + ", puts " + atm(traces[1]) + ".");
  }

  function drawGreeks(body, contracts, day) {
    const byStrike = new Map();
    contracts.forEach((contract) => {
      const row = byStrike.get(contract.strike) || { strike: contract.strike, moneyness: contract.moneyness };
      row[contract.type] = contract;
      byStrike.set(contract.strike, row);
    });
    const rows = Array.from(byStrike.values())
      .sort((a, b) => Math.abs(a.moneyness - 1) - Math.abs(b.moneyness - 1))
      .slice(0, GREEK_STRIKES)
      .sort((a, b) => a.strike - b.strike);
    const nearest = rows.reduce((best, row) => (!best || Math.abs(row.moneyness - 1) < Math.abs(best.moneyness - 1) ? row : best), null);
    const cells = (contract, itm) => {
      const values = contract
        ? [percent(contract.impliedVolatility, 1), number(contract.delta, 3), number(contract.gamma, 4),
          number(contract.theta, 3), number(contract.vega, 3)]
        : ["\u2013", "\u2013", "\u2013", "\u2013", "\u2013"];
      return values.map((text) => {
        const cell = document.createElement("td");
        cell.textContent = text;
        if (itm) cell.className = "itm";
        return cell;
      });
    };
    $("greeks-table").querySelector("tbody").replaceChildren(...rows.map((row) => {
      const tr = document.createElement("tr");
      const strike = document.createElement("th");
      strike.scope = "row";
      strike.textContent = number(row.strike, row.strike % 1 ? 2 : 0);
      tr.append(...cells(row.call, row.strike < body.underlyingPrice), strike,
        ...cells(row.put, row.strike > body.underlyingPrice));
      tr.dataset.strike = String(row.strike);
      if (row === nearest) tr.className = "atm";
      return tr;
    }));
    $("greeks-caption").textContent = "Greeks of the " + rows.length + " strikes nearest the money, " + day;
    $("greeks-wrap").hidden = rows.length === 0;
  }

  async function loadSurface(symbol) {
    const run = ++options.surfaceRun;
    const heat = $("surface-chart");
    const term = $("term-chart");
    heat.dataset.state = "loading";
    term.dataset.state = "loading";
    showError("surface-error", "");
    try {
      const { body } = await api("/v2/options/" + encode(symbol) + "/surface?" + SURFACE_QUERY);
      if (run !== options.surfaceRun) return;
      const expirations = nodes(body.expirations);
      const grid = nodes(body.grid);
      const columns = body.moneyness || [];
      if (!expirations.length) {
        undraw(heat);
        undraw(term);
        heat.dataset.cells = "0";
        showError("surface-error", "No volatility surface for \u201c" + symbol + "\u201d: the service lists no liquid options on it.");
        return;
      }
      drawSurface(symbol, body, expirations, grid, columns);
      drawTerm(symbol, expirations);
    } catch (error) {
      if (run !== options.surfaceRun) return;
      undraw(heat);
      undraw(term);
      heat.dataset.cells = "0";
      showError("surface-error", "No volatility surface: " + explain(error, "symbol", symbol));
    }
  }

  function drawSurface(symbol, body, expirations, grid, columns) {
    const element = $("surface-chart");
    const rows = expirations.map((expiry) => expiryLabel(expiry.expiration));
    const at = new Map(grid.map((cell) => [cell.expiration + "/" + cell.moneyness, cell.impliedVolatility]));
    const z = expirations.map((expiry) => columns.map((k) => {
      const value = at.get(expiry.expiration + "/" + k);
      return value === null || value === undefined ? null : value * 100;
    }));
    const cells = z.reduce((count, row) => count + row.filter((value) => value !== null).length, 0);
    draw(element, [{
      type: "heatmap", x: columns, y: rows, z, colorscale: "Viridis", hoverongaps: false,
      colorbar: { title: { text: "IV (%)", side: "right" }, ticksuffix: " %", thickness: 12 },
      hovertemplate: "%{y}, K/S %{x:.2f}: %{z:.1f} %<extra></extra>",
    }], {
      title: { text: symbol + " implied-volatility surface", font: { size: 14 } },
      margin: { l: 88, r: 16, t: 40, b: 44 },
      xaxis: { title: { text: "Moneyness (K/S)" }, tickformat: ".2f" },
      yaxis: { type: "category", title: { text: "Expiration" }, autorange: "reversed" },
    }, 4);
    element.dataset.state = "ready";
    element.dataset.symbol = symbol;
    element.dataset.expirations = String(rows.length);
    element.dataset.cells = String(cells);
    element.setAttribute("aria-label", "Heatmap of " + symbol + "'s implied volatility over " + rows.length +
      " expirations (" + rows[0] + " to " + rows[rows.length - 1] + ") and moneyness " + columns[0] + " to " +
      columns[columns.length - 1] + ": " + cells + " cells with a value; " + body.model + ", as of " + clockLabel(body.asOf) + ".");
  }

  function drawTerm(symbol, expirations) {
    const element = $("term-chart");
    const x = expirations.map((expiry) => expiryLabel(expiry.expiration));
    const atm = expirations.map((expiry) => (expiry.atmVolatility === null ? null : expiry.atmVolatility * 100));
    const skew = expirations.map((expiry) => (expiry.skew25Delta === null ? null : expiry.skew25Delta * 100));
    draw(element, [
      { type: "scatter", mode: "lines+markers", name: "ATM volatility", x, y: atm, line: { color: COLORS.atm, width: 2 },
        hovertemplate: "%{x}: %{y:.2f} %<extra>ATM</extra>" },
      { type: "scatter", mode: "lines+markers", name: "25-delta skew (put \u2212 call)", x, y: skew, yaxis: "y2",
        line: { color: COLORS.skew, width: 1.5, dash: "dot" }, hovertemplate: "%{x}: %{y:.2f} points<extra>Skew</extra>" },
    ], {
      title: { text: symbol + " ATM term structure", font: { size: 14 } },
      margin: { l: 56, r: 56, t: 40, b: 44 },
      legend: { orientation: "h", x: 0, y: -0.12, yanchor: "top" },
      hovermode: "x unified",
      xaxis: { type: "category" },
      yaxis: { title: { text: "ATM implied volatility (%)" }, ticksuffix: " %" },
      // Its own ticks (an overlaying axis syncs to the left one's grid by default).
      yaxis2: { title: { text: "25-delta skew (points)" }, overlaying: "y", side: "right", showgrid: false,
        zeroline: false, tickmode: "auto", tickformat: ".1f" },
    }, 10);
    element.dataset.state = "ready";
    element.dataset.symbol = symbol;
    element.dataset.points = String(atm.filter((value) => value !== null).length);
    element.setAttribute("aria-label", "At-the-money implied volatility of " + symbol + " by expiration: " +
      x.map((label, i) => label + " " + (atm[i] === null ? "none" : number(atm[i], 1) + " %")).join(", ") + ".");
  }

  function setUpOptions() {
    $("options-expiration").addEventListener("change", () => {
      loadOptions(state.symbol, Number($("options-expiration").value));
    });
    $("options-form").addEventListener("submit", (event) => {
      event.preventDefault();
      loadOptions(state.symbol, Number($("options-expiration").value) || null);
    });
    // Loaded when the panel first scrolls into view (as the macro panel), then with each
    // symbol: a visit that never gets there costs the service no options request.
    const start = () => {
      options.started = true;
      loadOptions(state.symbol);
    };
    if ("IntersectionObserver" in window) {
      const observer = new IntersectionObserver((entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          observer.disconnect();
          start();
        }
      });
      observer.observe($("options-panel"));
    } else {
      start();
    }
  }

  // -- macro: a FRED series and the Treasury yield curve ----------------------------------
  const SERIES_ID = /^[A-Za-z0-9_.-]{1,40}$/;

  async function loadSeries() {
    const id = $("macro-series").value.trim().toUpperCase();
    const element = $("macro-chart");
    if (!SERIES_ID.test(id)) {
      showError("macro-error", "A FRED series id is letters, digits, dots, dashes and underscores, such as DGS10.");
      return;
    }
    showError("macro-error", "");
    element.dataset.state = "loading";
    try {
      const { body } = await api("/v2/macro/series/" + encode(id));
      const observations = nodes(body.observations)
        .filter((point) => point.value !== null && point.value !== undefined);
      const title = [body.title || id, body.units ? "(" + body.units + ")" : ""].filter(Boolean).join(" ");
      draw(element, [{
        type: "scatter", mode: "lines", name: id, x: observations.map((point) => point.date),
        y: observations.map((point) => point.value), line: { color: COLORS.macro, width: 1.5 },
      }], {
        title: { text: title, font: { size: 14 } }, margin: { l: 56, r: 16, t: 40, b: 40 },
        xaxis: { type: "date" }, hovermode: "x",
      }, 8);
      element.dataset.state = "ready";
      element.dataset.series = id;
      element.dataset.points = String(observations.length);
      const first = observations[0];
      const last = observations[observations.length - 1];
      element.setAttribute("aria-label", "Line chart of FRED series " + id + ": " + observations.length +
        " observations" + (first ? " from " + first.date + " to " + last.date + ", last " + last.value : "") + ".");
    } catch (error) {
      undraw(element);
      element.dataset.points = "0";
      showError("macro-error", explain(error, "FRED series", id));
    }
  }

  /** Maturity in months of a Treasury row's member: y1M, y6W (weeks), y2 (years). */
  function maturity(key) {
    const match = /^y(\d+(?:_\d+)?)([MW]?)$/.exec(key);
    if (!match) return null;
    const count = Number(match[1].replace("_", "."));
    return match[2] === "M" ? count : match[2] === "W" ? count * 12 / 52 : count * 12;
  }

  async function treasuryRows(year) {
    const { body } = await api("/v2/macro/treasury-yields?year=" + year);
    return nodes(body).slice().sort((a, b) => (a.date < b.date ? 1 : -1));
  }

  async function loadCurve() {
    const element = $("curve-chart");
    const date = $("curve-date").value;
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
      showError("curve-error", "Choose a date for the yield curve.");
      return;
    }
    showError("curve-error", "");
    element.dataset.state = "loading";
    try {
      const year = Number(date.slice(0, 4));
      let row = (await treasuryRows(year)).find((candidate) => candidate.date <= date);
      if (!row && year > 1990) row = (await treasuryRows(year - 1)).find((candidate) => candidate.date <= date);
      if (!row) {
        undraw(element);
        showError("curve-error", "The Treasury published no yield curve on or before " + date + ".");
        return;
      }
      const points = Object.keys(row).map((key) => [key, maturity(key), row[key]])
        .filter(([, months, value]) => months !== null && value !== null && value !== undefined)
        .sort((a, b) => a[1] - b[1]);
      const labels = points.map(([, months]) => (months < 12 ? Math.round(months * 10) / 10 + "M" : months / 12 + "Y"));
      draw(element, [{
        type: "scatter", mode: "lines+markers", name: row.date, x: labels, y: points.map((point) => point[2]),
        line: { color: COLORS.curve, width: 2 }, hovertemplate: "%{x}: %{y:.2f} %<extra></extra>",
      }], {
        title: { text: "Treasury par yield curve on " + row.date, font: { size: 14 } },
        margin: { l: 56, r: 16, t: 40, b: 40 }, xaxis: { type: "category", title: { text: "Maturity" } },
        yaxis: { title: { text: "Yield (%)" }, ticksuffix: " %" },
      }, 3);
      element.dataset.state = "ready";
      element.dataset.date = row.date;
      element.dataset.points = String(points.length);
      element.setAttribute("aria-label", "Treasury par yield curve on " + row.date + ": " +
        points.map((point, i) => labels[i] + " " + point[2] + " %").join(", ") + ".");
    } catch (error) {
      undraw(element);
      showError("curve-error", explain(error, "Treasury yield", date));
    }
  }

  function setUpMacro() {
    const today = new Date().toISOString().slice(0, 10);
    $("curve-date").value = today;
    $("curve-date").max = today;
    $("macro-form").addEventListener("submit", (event) => {
      event.preventDefault();
      loadSeries();
    });
    $("curve-form").addEventListener("submit", (event) => {
      event.preventDefault();
      loadCurve();
    });
    // Drawn when the panel first scrolls into view: a visit that never gets there costs
    // the service no macro request.
    const start = () => {
      loadSeries();
      loadCurve();
    };
    if ("IntersectionObserver" in window) {
      const observer = new IntersectionObserver((entries) => {
        if (entries.some((entry) => entry.isIntersecting)) {
          observer.disconnect();
          start();
        }
      });
      observer.observe($("macro-panel"));
    } else {
      start();
    }
  }

  // -- start ------------------------------------------------------------------------------
  function start() {
    if (typeof Plotly === "undefined") {
      showError("chart-error", "The chart library (plotly.js) did not load, so no chart can be drawn.");
      return;
    }
    setUpSearch();
    $("chart-range").addEventListener("change", syncIntervals);
    syncIntervals();
    $("chart-form").addEventListener("submit", (event) => {
      event.preventDefault();
      if (!state.symbol) {
        showError("chart-error", "Choose a symbol first (the search box at the top).");
        return;
      }
      loadChart();
    });
    setUpBacktest();
    setUpOptions();
    setUpMacro();
    let resizing = null;
    window.addEventListener("resize", () => {
      clearTimeout(resizing);
      resizing = setTimeout(refitTicks, 200);
    });
    const fromHash = decodeURIComponent(location.hash.slice(1)).trim().toUpperCase();
    loadSymbol(fromHash || "AAPL");
  }

  start();
})();
