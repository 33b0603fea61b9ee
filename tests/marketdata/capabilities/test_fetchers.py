"""Every fetcher the capability table names by string ("module:function", imported on first
use, so no static tool follows it) resolves to a function, and the fetchers of one
capability take the same arguments: table.call passes each the same ones."""

from __future__ import annotations

import inspect

import pytest

from marketdata.capabilities.table import CAPABILITIES

NAMED = [(capability.name, source) for capability in CAPABILITIES.values()
         for source in capability.sources if source.fetcher is not None]


def test_the_table_names_fetchers():
    assert len(NAMED) > 50


@pytest.mark.parametrize(("capability", "source"), NAMED,
                         ids=[f"{c}-{s.name}" for c, s in NAMED])
def test_each_named_fetcher_resolves_to_a_function(capability, source):
    function = source.fetch_function()
    assert inspect.isfunction(function), (capability, source.fetcher)
    module, _, name = source.fetcher.partition(":")
    assert function.__module__ == module and function.__name__ == name


def _shape(function) -> list[tuple[str, object, bool]]:
    return [(p.name, p.kind, p.default is inspect.Parameter.empty)
            for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("capability", sorted({c for c, _ in NAMED}))
def test_the_fetchers_of_a_capability_take_the_same_arguments(capability):
    fetchers = [source.fetch_function() for c, source in NAMED if c == capability]
    shapes = {source.name: _shape(source.fetch_function())
              for c, source in NAMED if c == capability}
    assert len({repr(shape) for shape in shapes.values()}) == 1, shapes
    assert fetchers
