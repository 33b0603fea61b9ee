"""The byte-budgeted memo (:mod:`marketdata.memo`): least recently used evicted first, the
total under the budget, a value over a quarter of it not kept, the budget read on every
write, and every memo emptied at once."""

from __future__ import annotations

from marketdata import memo
from marketdata.memo import SizedMemo, pickled_size


def sized(budget: list[int]) -> SizedMemo[str, bytes]:
    return SizedMemo(lambda: budget[0], size=len)


def test_least_recently_used_goes_first_and_the_total_stays_under_the_budget():
    m = sized([400])
    assert m.put("a", b"x" * 100) and m.put("b", b"x" * 100) and m.put("c", b"x" * 100)
    assert m.get("a") == b"x" * 100  # a is now the most recent
    assert m.put("d", b"x" * 100)  # 400: fits
    assert m.put("e", b"x" * 100) and m.put("f", b"x" * 100)  # b, then c, make room
    assert m.get("b") is None and m.get("c") is None
    assert {k for k in "adef" if m.get(k) is not None} == {"a", "d", "e", "f"}
    usage = m.usage()
    assert usage["bytes"] == 400 == usage["budget"] and usage["evictions"] == 2


def test_a_value_over_a_quarter_of_the_budget_is_not_kept():
    m = sized([400])
    m.put("a", b"x" * 100)
    assert not m.put("big", b"x" * 101)
    assert m.get("big") is None and m.get("a") is not None
    assert m.usage()["refused"] == 1


def test_rewriting_a_key_counts_it_once_and_the_budget_is_read_on_every_write():
    budget = [400]
    m = sized(budget)
    m.put("a", b"x" * 100)
    m.put("a", b"x" * 50)
    assert m.usage()["bytes"] == 50
    budget[0] = 0
    assert not m.put("b", b"x")
    assert m.usage()["entries"] == 1


def test_clear_all_empties_every_memo_and_sizes_are_pickled_lengths():
    first, second = sized([1000]), sized([1000])
    first.put("a", b"1")
    second.put("b", b"2")
    memo.clear_all()
    assert first.get("a") is None and second.get("b") is None
    assert pickled_size({"a": 1}) > 0
