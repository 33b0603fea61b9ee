"""marketdata.symbols: what may reach an upstream URL."""

from __future__ import annotations

import pytest

from marketdata.symbols import MAX_SYMBOL_LENGTH, display_symbol, normalize_symbol, split_symbols


@pytest.mark.parametrize(("text", "expected"), [
    ("AAPL", "AAPL"),
    ("aapl", "AAPL"),
    ("  msft ", "MSFT"),
    ("brk-b", "BRK-B"),
    ("BRK.B", "BRK.B"),
    ("^GSPC", "^GSPC"),
    ("^vix", "^VIX"),
    ("EURUSD=X", "EURUSD=X"),
    ("eurusd=x", "EURUSD=X"),
    ("0700.HK", "0700.HK"),
    ("M&M.NS", "M&M.NS"),
    ("GC=F", "GC=F"),
    ("BTC-USD", "BTC-USD"),
    ("0P000071W8.TO", "0P000071W8.TO"),
    ("A", "A"),
    ("A" * MAX_SYMBOL_LENGTH, "A" * MAX_SYMBOL_LENGTH),
])
def test_valid_symbols(text, expected):
    assert normalize_symbol(text) == expected


@pytest.mark.parametrize("text", [
    "",
    "   ",
    "../etc",
    "..",
    "A..B",
    "A/B",
    "/AAPL",
    "A%2FB",
    "A B",
    "A\tB",
    "A\nB",
    "?x",
    "A?B",
    "A#B",
    "A;B",
    "A+B",
    "A*",
    "-A",
    ".A",
    "=X",
    "^",
    "^^GSPC",
    "A^B",
    "A" * (MAX_SYMBOL_LENGTH + 1),
    "A" * 500,
    "ÄAPL",
    "A\u00a0B",
    "ＡＡＰＬ",  # full-width letters
])
def test_invalid_symbols(text):
    assert normalize_symbol(text) is None


@pytest.mark.parametrize("text", ["ßAPL", "ſPY", "ﬀ"])
def test_non_ascii_input_is_rejected_even_when_upper_casing_makes_it_ascii(text):
    # U+00DF upper-cases to 'SS', U+017F to 'S', U+FB00 to 'FF': a non-ASCII symbol must
    # not silently turn into a different, valid ticker.
    assert normalize_symbol(text) is None


class TestSplitSymbols:
    def test_order_kept_and_case_folded_duplicates_removed(self):
        assert split_symbols("aapl, MSFT ,aapl,,AAPL, msft,^gspc") == ["AAPL", "MSFT", "^GSPC"]

    def test_request_order_not_sorted(self):
        assert split_symbols("msft,aapl,goog") == ["MSFT", "AAPL", "GOOG"]

    @pytest.mark.parametrize("text", ["", ",", " , ,, "])
    def test_empty(self, text):
        assert split_symbols(text) == []

    def test_invalid_items_are_kept_as_typed_for_the_caller(self):
        assert split_symbols("a/b,aapl, ../x ") == ["a/b", "AAPL", "../x"]

    @pytest.mark.parametrize("text", ["\u017fpy", "\u00dfAPL", "\ufb00", "\uff21APL"])
    def test_non_ascii_items_are_never_upper_cased_into_valid_symbols(self, text):
        # Issue 13 item 4: 'spy' with a long s (U+017F) upper-cases to 'SPY'; the list must
        # check ASCII first, as normalize_symbol does for single symbols.
        items = split_symbols(f"{text},msft")
        assert items == [text, "MSFT"]
        assert normalize_symbol(items[0]) is None

    def test_items_agree_with_normalize_symbol(self):
        text = "aapl, \u017fpy ,A B,brk-b,\u00e4,BRK-B"
        for raw, item in zip(text.split(","), split_symbols(text), strict=False):
            assert item == (normalize_symbol(raw) or raw.strip())

    def test_single(self):
        assert split_symbols(" brk-b ") == ["BRK-B"]


class TestDisplaySymbol:
    def test_printable_kept(self):
        assert display_symbol("AAPL") == "AAPL"

    def test_control_characters_replaced(self):
        assert display_symbol("A\nB\x00") == "A?B?"

    def test_long_text_truncated(self):
        shown = display_symbol("X" * 500)
        assert len(shown) == 40
        assert shown.endswith("…")
        assert display_symbol("X" * 40) == "X" * 40
