"""The WebSocket streams' pure parts: client frame parsing and the alert rules."""

from __future__ import annotations

import orjson
import pytest
from hypothesis import given
from hypothesis import strategies as st

from apps.stream.alerts import CONDITIONS, AlertBook, Rule
from apps.stream.frames import FrameError, quote_frame


def tick(symbol="AAPL", price=100.0, change=0.5, volume=1000, time=1) -> dict:
    return {"id": symbol, "price": price, "changePercent": change, "dayVolume": volume,
            "time": time}


# -- frames ---------------------------------------------------------------------------------
def test_a_frame_normalises_symbols_and_keeps_their_order_without_repeats():
    frame = quote_frame('{"subscribe": [" aapl", "MSFT", "AAPL", "brk.b"]}', 100, 100)
    assert frame.subscribe == ["AAPL", "MSFT", "BRK.B"]
    assert frame.unsubscribe == [] and frame.alerts is None


def test_alerts_parse_into_rules_and_an_empty_list_clears_them():
    frame = quote_frame(orjson.dumps({"alerts": [
        {"symbol": "aapl", "condition": "crossesAbove", "value": 200, "repeat": True},
        {"symbol": "MSFT", "condition": "volumeAbove", "value": 1e6}]}).decode(), 100, 100)
    assert frame.alerts == [Rule("AAPL", "crossesAbove", 200, True),
                            Rule("MSFT", "volumeAbove", 1e6, False)]
    assert quote_frame('{"alerts": []}', 100, 100).alerts == []


@pytest.mark.parametrize("text, message", [
    (None, "text frames"),
    ("not json", "JSON object"),
    ("[1, 2]", "JSON object"),
    ('"subscribe"', "JSON object"),
    ("{}", "empty frame"),
    ('{"subscribe": ["AAPL"], "interval": 5}', "Unknown member: 'interval'"),
    ('{"subscribe": "AAPL"}', "'subscribe' must be a list of strings"),
    ('{"subscribe": [1]}', "'subscribe' must be a list of strings"),
    ('{"unsubscribe": null}', "'unsubscribe' must be a list of strings"),
    ('{"subscribe": ["AA PL?"]}', "malformed symbols: 'AA PL?'"),
    ('{"subscribe": [""]}', "malformed symbols"),
    ('{"alerts": {"symbol": "AAPL"}}', "'alerts' must be a list"),
    ('{"alerts": [1]}', "alerts[0] must be an object"),
    ('{"alerts": [{"symbol": "AAPL", "condition": "above", "value": 1}]}',
     "alerts[0].condition must be one of crossesAbove"),
    ('{"alerts": [{"symbol": "AAPL", "condition": "priceAbove"}]}',
     "alerts[0].value must be a finite number"),
    ('{"alerts": [{"symbol": "AAPL", "condition": "priceAbove", "value": true}]}',
     "alerts[0].value must be a finite number"),
    ('{"alerts": [{"symbol": "AAPL", "condition": "priceAbove", "value": 1, "repeat": 1}]}',
     "alerts[0].repeat must be true or false"),
    ('{"alerts": [{"symbol": "AAPL", "condition": "priceAbove", "value": 1, "x": 1}]}',
     "alerts[0] has unknown members: 'x'"),
    ('{"alerts": [{"condition": "priceAbove", "value": 1}]}', "alerts[0].symbol"),
])
def test_a_bad_frame_is_refused_with_a_message_naming_the_problem(text, message):
    with pytest.raises(FrameError, match=None) as refused:
        quote_frame(text, 100, 100)
    assert message in str(refused.value)


def test_too_many_symbols_in_one_frame_is_refused():
    with pytest.raises(FrameError, match="at most 3"):
        quote_frame('{"subscribe": ["A", "B", "C", "D"]}', 3, 3)


@given(st.text(max_size=200))
def test_any_text_parses_or_is_refused_never_anything_else(text):
    try:
        quote_frame(text, 100, 100)
    except FrameError:
        pass


# -- alerts ---------------------------------------------------------------------------------
def test_crosses_above_needs_a_previous_price_at_or_below_and_fires_once():
    book = AlertBook([Rule("AAPL", "crossesAbove", 200)])
    assert book.check(tick(price=201)) == []  # the first tick has no previous price
    assert book.check(tick(price=199)) == []
    fired = book.check(tick(price=200.5, time=9))
    assert fired == [{"symbol": "AAPL", "condition": {"crossesAbove": 200}, "price": 200.5,
                      "previousPrice": 199.0, "changePercent": 0.5, "time": 9,
                      "update": tick(price=200.5, time=9)}]
    assert book.check(tick(price=199)) == [] and book.check(tick(price=201)) == []


def test_a_repeating_rule_re_arms_once_its_condition_was_false():
    book = AlertBook([Rule("AAPL", "priceAbove", 100, repeat=True)])
    assert len(book.check(tick(price=101))) == 1
    assert book.check(tick(price=102)) == []  # still true: not again
    assert book.check(tick(price=99)) == []
    assert len(book.check(tick(price=101))) == 1


@pytest.mark.parametrize("condition, value, fields, fires", [
    ("priceAbove", 100, {"price": 100.0}, False),
    ("priceAbove", 100, {"price": 100.01}, True),
    ("priceBelow", 100, {"price": 99.99}, True),
    ("priceBelow", 100, {"price": 0}, False),  # a zero price is no trade
    ("percentChangeAbove", 2, {"changePercent": 2}, True),
    ("percentChangeAbove", 2, {"changePercent": 1.99}, False),
    ("percentChangeBelow", -2, {"changePercent": -2}, True),
    ("percentChangeBelow", -2, {"changePercent": None}, False),
    ("volumeAbove", 1000.9, {"dayVolume": 1000}, True),  # whole shares
    ("volumeAbove", 1001, {"dayVolume": 1000}, False),
])
def test_each_condition(condition, value, fields, fires):
    book = AlertBook([Rule("AAPL", condition, value)])
    assert bool(book.check({**tick(), **fields})) is fires


def test_a_zero_price_does_not_move_the_previous_price():
    book = AlertBook([Rule("AAPL", "crossesBelow", 100, 100)])
    book.check(tick(price=101))
    book.check(tick(price=0))
    assert book.check(tick(price=99))[0]["previousPrice"] == 101.0


def test_rules_of_other_symbols_are_not_checked():
    book = AlertBook([Rule("MSFT", "priceAbove", 1)])
    assert book.check(tick("AAPL", price=500)) == []
    assert book.symbols == ["MSFT"]


@given(st.lists(st.floats(min_value=1, max_value=1000, allow_nan=False), min_size=1,
                max_size=30), st.floats(min_value=1, max_value=1000, allow_nan=False))
def test_crossings_fire_exactly_when_the_price_crosses_the_level(prices, level):
    up = AlertBook([Rule("X", "crossesAbove", level, repeat=True)])
    down = AlertBook([Rule("X", "crossesBelow", level, repeat=True)])
    ups = downs = 0
    previous = None
    expected_up = expected_down = 0
    armed_up = armed_down = True
    for price in prices:
        ups += len(up.check(tick("X", price=price)))
        downs += len(down.check(tick("X", price=price)))
        crossed_up = previous is not None and previous <= level < price
        crossed_down = previous is not None and previous >= level > price
        expected_up += crossed_up and armed_up
        expected_down += crossed_down and armed_down
        armed_up, armed_down = not crossed_up, not crossed_down
        previous = price
    assert (ups, downs) == (expected_up, expected_down)


def test_the_conditions_are_the_references_seven():
    assert CONDITIONS == ("crossesAbove", "crossesBelow", "priceAbove", "priceBelow",
                          "percentChangeAbove", "percentChangeBelow", "volumeAbove")


def test_an_error_quotes_a_few_names_each_cut_short():
    names = {"n" * 5000: 1, **{f"m{i}": 1 for i in range(100)}}
    with pytest.raises(FrameError) as refused:
        quote_frame(orjson.dumps(names).decode(), 100, 100)
    message = str(refused.value)
    assert len(message) < 400 and "and 96 more" in message and "nnnn..." in message


def test_a_frame_of_the_maximum_size_fits_the_message_limit():
    """WS_MAX_MESSAGE_BYTES (16 KiB) holds a subscribe frame of WS_MAX_SYMBOLS (100) symbols
    of the longest accepted form, and as many alert rules on such symbols."""
    from django.conf import settings

    from marketdata.symbols import MAX_SYMBOL_LENGTH

    symbol = "A" * (MAX_SYMBOL_LENGTH - 3) + ".TO"
    subscribe = orjson.dumps({"subscribe": [symbol] * settings.WS_MAX_SYMBOLS})
    rules = orjson.dumps({"alerts": [
        {"symbol": symbol, "condition": "percentChangeBelow", "value": -12.345678901234567,
         "repeat": False}] * settings.WS_MAX_ALERT_RULES})
    assert len(subscribe) <= settings.WS_MAX_MESSAGE_BYTES
    assert len(rules) <= settings.WS_MAX_MESSAGE_BYTES, len(rules)
    assert len(quote_frame(subscribe.decode(), 100, 100).subscribe) == 1
