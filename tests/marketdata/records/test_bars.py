"""marketdata.records.bars: the one bar record, its v1 and v2 views, the meta's types."""

from __future__ import annotations

import pytest

from marketdata.errors import NotFound
from marketdata.records.bars import (
    META_MEMBERS,
    NO_EVENTS,
    Bars,
    chart_meta,
    typed_meta_value,
)


def _bars(volume, adjclose=None, meta=None) -> Bars:
    n = len(volume)
    return Bars(interval="1d", meta=chart_meta({"symbol": "X", "priceHint": 4} if meta is None
                                               else meta),
                timestamps=list(range(100, 100 + n)), open=[1] * n, high=[2.5] * n,
                low=[0.5] * n, close=[2] * n, volume=volume, adjclose=adjclose,
                events=NO_EVENTS, source="test")


def test_v2_volumes_zero_a_missing_or_negative_volume():
    assert _bars([None, -3, 7]).volumes() == [0, 0, 7]


def test_the_v1_view_drops_bars_without_a_volume_and_makes_floats():
    candles = _bars([None, -3, 7], adjclose=[1.0, None, 2]).candles()
    assert candles.timestamps == [101, 102]
    assert candles.volume == [-3, 7]  # as sent: v1 never clamped
    assert candles.open == [1.0, 1.0] and all(isinstance(v, float) for v in candles.open)
    assert candles.adjclose == [None, 2.0]
    assert (candles.symbol, candles.price_hint, candles.decimals) == ("X", 4, 4)


def test_the_v1_view_of_no_priced_volume_is_not_found():
    with pytest.raises(NotFound):
        _bars([None, None]).candles()
    with pytest.raises(NotFound):
        _bars([]).candles()


def test_meta_has_every_member_typed():
    meta = chart_meta({"symbol": "X", "priceHint": 2.0, "regularMarketPrice": 3,
                       "currency": 5, "hasPrePostMarketData": 1, "gmtOffset": True})
    assert list(meta) == list(META_MEMBERS)
    assert meta["priceHint"] == 2 and isinstance(meta["priceHint"], int)
    assert meta["regularMarketPrice"] == 3.0 and isinstance(meta["regularMarketPrice"], float)
    assert meta["currency"] is None  # not a string
    assert meta["hasPrePostMarketData"] is None  # not a boolean
    assert meta["gmtOffset"] is None  # a boolean is no integer
    assert typed_meta_value(True, "boolean") is True
    assert _bars([1]).symbol == "X" and _bars([1], meta={}).symbol is None
