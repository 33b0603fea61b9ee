"""The sandbox's predefined screener: Yahoo's envelope and row shape (against the
recordings), ranking, count/start/fields/formatted, errors, determinism, agreement with the
v7 quote, and every /v1/indices symbol answered by quoteSummary."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from marketdata.providers.yahoo.indices import INDEX_MODULES, INDICES
from marketdata.providers.yahoo.screener import parse_screener
from marketdata.sandbox import SandboxResponse, UpstreamSandbox
from marketdata.sandbox.instruments import get_instrument
from marketdata.sandbox.yahoo.screener import UNIVERSE_SIZE, universe

UPSTREAM = Path(__file__).resolve().parents[2].parent / "shared" / "upstream" / "yahoo"
needs_recordings = pytest.mark.skipif(not UPSTREAM.is_dir(), reason="no shared/upstream")

PATH = "/v1/finance/screener/predefined/saved"
REGULAR = datetime(2026, 11, 20, 17, 0, tzinfo=UTC)  # Friday 12:00 New York
PRE = datetime(2026, 11, 20, 13, 0, tzinfo=UTC)
WEEKEND = datetime(2026, 11, 22, 15, 0, tzinfo=UTC)


def make(clock: datetime = REGULAR) -> UpstreamSandbox:
    return UpstreamSandbox(clock=lambda: clock)


def crumb_for(sb: UpstreamSandbox) -> str:
    first = sb.handle("GET", "fc.yahoo.com", "/", {}, {})
    cookie = first.headers["Set-Cookie"].split(";")[0]
    return sb.handle("GET", "query1.finance.yahoo.com", "/v1/test/getcrumb", {},
                     {"Cookie": cookie}).body.decode()


def get(sb: UpstreamSandbox, path: str = PATH, crumb: bool = True, **query: str) -> SandboxResponse:
    args = {k: [v] for k, v in query.items()}
    if crumb:
        args["crumb"] = [crumb_for(sb)]
    return sb.handle("GET", "query1.finance.yahoo.com", path, args, {})


def result(resp: SandboxResponse) -> dict[str, Any]:
    assert resp.status == 200, resp.body
    payload = json.loads(resp.body)
    assert set(payload) == {"finance"} and payload["finance"]["error"] is None
    return payload["finance"]["result"][0]


def recording(name: str) -> dict[str, Any]:
    return json.loads((UPSTREAM / "v1-screener-predefined" / name).read_text())


@needs_recordings
@pytest.mark.parametrize(("scr_id", "name"), [("DAY_GAINERS", "day_gainers.json"),
                                              ("DAY_LOSERS", "day_losers.json")])
def test_envelope_and_rows_match_the_recording(scr_id, name):
    want = recording(name)["finance"]["result"][0]
    got = result(get(make(), scrIds=scr_id, count="5", formatted="false"))
    assert list(got) == list(want)  # same keys, same order
    assert got["canonicalName"] == want["canonicalName"] == scr_id
    assert (got["title"], got["description"]) == (want["title"], want["description"])
    assert got["count"] == len(got["quotes"]) == 5 and got["start"] == 0
    assert got["criteriaMeta"]["sortType"] == want["criteriaMeta"]["sortType"]
    row, want_row = got["quotes"][0], want["quotes"][0]
    core = {"symbol", "shortName", "longName", "regularMarketPrice", "regularMarketChange",
            "regularMarketChangePercent", "regularMarketVolume", "priceHint", "marketCap",
            "quoteType", "exchange", "currency", "marketState", "regularMarketTime"}
    assert core <= set(row)
    shared = [k for k in want_row if k in row]
    assert len(shared) >= 0.9 * len(want_row)
    assert [k for k in row if k in want_row] == shared  # recording's key order
    for key in shared:
        assert _kind(row[key]) == _kind(want_row[key]), key


def _kind(value: Any) -> str:
    return "number" if isinstance(value, int | float) and not isinstance(value, bool) \
        else type(value).__name__


def test_most_actives_rank_by_volume_and_parse():
    got = result(get(make(), scrIds="MOST_ACTIVES", count="30", formatted="false"))
    volumes = [q["regularMarketVolume"] for q in got["quotes"]]
    assert len(volumes) == 30 and volumes == sorted(volumes, reverse=True)
    assert got["total"] == UNIVERSE_SIZE
    rows = parse_screener({"finance": {"result": [got], "error": None}})
    assert [r.symbol for r in rows] == [q["symbol"] for q in got["quotes"]]


@pytest.mark.parametrize("clock", [REGULAR, PRE, WEEKEND])
def test_gainers_and_losers_ranking(clock):
    sb = make(clock)
    gainers = result(get(sb, scrIds="day_gainers", count="250", formatted="false"))
    losers = result(get(sb, scrIds="DAY_LOSERS", count="250", formatted="false"))
    up = [q["regularMarketChangePercent"] for q in gainers["quotes"]]
    down = [q["regularMarketChangePercent"] for q in losers["quotes"]]
    assert up and all(p > 0 for p in up) and up == sorted(up, reverse=True)
    assert down and all(p < 0 for p in down) and down == sorted(down)
    assert gainers["total"] == len(up) and losers["total"] == len(down)
    assert not {q["symbol"] for q in gainers["quotes"]} & {q["symbol"] for q in
                                                           losers["quotes"]}
    assert all(q["quoteType"] == "EQUITY" for q in gainers["quotes"] + losers["quotes"])


def test_count_and_start():
    sb = make()
    assert len(result(get(sb, scrIds="MOST_ACTIVES"))["quotes"]) == 25  # Yahoo's default
    full = result(get(sb, scrIds="MOST_ACTIVES", count="100", formatted="false"))["quotes"]
    page = result(get(sb, scrIds="MOST_ACTIVES", count="10", start="20",
                      formatted="false"))
    assert page["start"] == 20 and page["count"] == 10
    assert page["quotes"] == full[20:30]
    assert len(result(get(sb, scrIds="MOST_ACTIVES", count="1000"))["quotes"]) == UNIVERSE_SIZE


def test_fields_limit_the_row():
    row = result(get(make(), scrIds="DAY_GAINERS", count="1", formatted="false",
                     fields="symbol,shortName,regularMarketChange"))["quotes"][0]
    assert {"symbol", "shortName", "regularMarketChange", "regularMarketPrice"} <= set(row)
    assert "marketCap" not in row and "longName" not in row


def test_formatted_rows_carry_raw_and_fmt():
    sb = make()
    pretty = result(get(sb, scrIds="DAY_GAINERS", count="20"))  # formatted by default
    plain = result(get(sb, scrIds="DAY_GAINERS", count="20", formatted="false"))
    row, raw_row = pretty["quotes"][0], plain["quotes"][0]
    assert list(row) == list(raw_row)
    assert row["regularMarketPrice"]["raw"] == raw_row["regularMarketPrice"]
    assert row["regularMarketChangePercent"] == {
        "raw": raw_row["regularMarketChangePercent"],
        "fmt": f"{raw_row['regularMarketChangePercent']:.2f}%"}
    assert row["marketCap"]["longFmt"] == f"{raw_row['marketCap']:,}"
    assert row["regularMarketTime"]["raw"] == raw_row["regularMarketTime"]
    assert row["symbol"] == raw_row["symbol"] and row["marketState"] == raw_row["marketState"]
    # the service's parser reads both shapes to the same rows
    wrap = lambda r: {"finance": {"result": [r], "error": None}}  # noqa: E731
    assert parse_screener(wrap(pretty)) == parse_screener(wrap(plain))


def test_rows_agree_with_the_v7_quote():
    sb = make()
    rows = result(get(sb, scrIds="DAY_LOSERS", count="5", formatted="false"))["quotes"]
    symbols = ",".join(q["symbol"] for q in rows)
    quotes = json.loads(get(sb, "/v7/finance/quote", symbols=symbols).body)
    by_symbol = {q["symbol"]: q for q in quotes["quoteResponse"]["result"]}
    for row in rows:
        quote = by_symbol[row["symbol"]]
        for key in ("regularMarketPrice", "regularMarketChange", "regularMarketChangePercent",
                    "regularMarketVolume", "shortName", "longName", "marketCap"):
            assert row[key] == quote[key], key


def test_deterministic():
    first = get(make(), scrIds="DAY_GAINERS", count="50").body
    assert get(make(), scrIds="DAY_GAINERS", count="50").body == first
    assert get(make(WEEKEND), scrIds="DAY_GAINERS", count="50").body != first


def test_universe_is_equities_known_to_the_sandbox():
    symbols = universe()
    assert len(symbols) == len(set(symbols)) == UNIVERSE_SIZE
    assert "AAPL" in symbols and "SPY" not in symbols
    assert all(get_instrument(s).kind == "EQUITY" for s in symbols)


def test_errors():
    sb = make()
    unknown = get(sb, scrIds="NOT_A_SCREENER")
    assert unknown.status == 404
    assert json.loads(unknown.body) == {"finance": {"result": None, "error": {
        "code": "Not Found",
        "description": "No predefined screener found for scrIds: NOT_A_SCREENER"}}}
    missing = get(sb)
    assert missing.status == 400
    assert json.loads(missing.body)["finance"]["error"]["code"] == "Bad Request"
    assert get(sb, scrIds="DAY_GAINERS", count="ten").status == 400
    no_crumb = get(sb, crumb=False, scrIds="DAY_GAINERS")
    assert no_crumb.status == 401
    assert json.loads(no_crumb.body)["finance"]["error"]["description"] == "Invalid Crumb"


# -- indices: every symbol of the map resolves ------------------------------------------------
def test_every_index_symbol_is_answered_by_quote_summary():
    sb = make()
    crumb = crumb_for(sb)
    for info in INDICES:
        assert get_instrument(info.symbol) is not None, info.symbol
        resp = sb.handle("GET", "query2.finance.yahoo.com",
                         f"/v10/finance/quoteSummary/{info.symbol}",
                         {"modules": [",".join(INDEX_MODULES)], "formatted": ["false"],
                          "crumb": [crumb]}, {})
        assert resp.status == 200, (info.id, resp.body)
        modules = json.loads(resp.body)["quoteSummary"]["result"][0]
        assert set(modules) == set(INDEX_MODULES), info.id
        assert modules["price"]["symbol"] == info.symbol
        assert isinstance(modules["price"]["regularMarketPrice"], float)
