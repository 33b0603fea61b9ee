"""Every fetcher the capability registry names by string ("module:function", imported on
first use, so no static tool follows it) resolves to a function, and takes what its
capability's function takes: the function's declaration is the capability's signature, and
table.call passes each fetcher the arguments the function got, as it got them."""

from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from marketdata.capabilities import table
from marketdata.capabilities.table import CAPABILITIES

NAMED = [(capability.name, source) for capability in CAPABILITIES.values()
         for source in capability.sources if source.fetcher is not None]
# Capabilities no function asks for through table.call: their sources are read directly.
READ_DIRECTLY = {"quote_push"}


def test_the_table_names_fetchers():
    assert len(NAMED) > 50


@pytest.mark.parametrize(("capability", "source"), NAMED,
                         ids=[f"{c}-{s.name}" for c, s in NAMED])
def test_each_named_fetcher_resolves_to_a_function(capability, source):
    function = source.fetch_function()
    assert inspect.isfunction(function), (capability, source.fetcher)
    module, _, name = source.fetcher.partition(":")
    assert function.__module__ == module and function.__name__ == name


def _shape(function) -> list[tuple[str, object, object]]:
    return [(p.name, p.kind, p.default)
            for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize("capability", sorted({c for c, _ in NAMED}))
def test_the_fetchers_of_a_capability_take_the_same_arguments(capability):
    shapes = {source.name: _shape(source.fetch_function())
              for c, source in NAMED if c == capability}
    assert len({repr(shape) for shape in shapes.values()}) == 1, shapes


def test_every_capability_has_a_function_but_those_read_directly():
    without = {name for name, cap in CAPABILITIES.items() if cap.function is None}
    assert without == READ_DIRECTLY


@pytest.mark.parametrize(("capability", "source"), NAMED,
                         ids=[f"{c}-{s.name}" for c, s in NAMED])
def test_each_fetcher_takes_its_capability_functions_parameters(capability, source):
    """The same names, kinds and defaults, in order (a call passes them on as it got them);
    a fetcher may take more, with defaults, which the function never passes (a test's
    ``today``)."""
    function = CAPABILITIES[capability].function
    if function is None:  # read directly: the caller calls the fetcher itself
        return
    declared = _shape(function)
    fetcher = _shape(source.fetch_function())
    assert fetcher[:len(declared)] == declared, (capability, source.name)
    assert all(default is not inspect.Parameter.empty
               for _, _, default in fetcher[len(declared):]), (capability, source.name)


def test_the_registry_keeps_its_order():
    """ORDER places every capability (the order /v2/health's notices and the docs' table
    follow); a capability not listed would follow them, by name."""
    names = list(CAPABILITIES)
    assert names[:len(table.ORDER)] == list(table.ORDER)
    assert names[len(table.ORDER):] == sorted(names[len(table.ORDER):])


@pytest.mark.process
def test_the_registry_is_whole_in_a_fresh_process_whatever_was_imported_first():
    """Reading the registry imports every domain module, so it is whole even when only one
    of them (or none) was imported before."""
    code = ("import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE', "
            "'config.settings'); django.setup(); "
            "from marketdata.capabilities import crypto, table; "
            "print(','.join(table.CAPABILITIES))")
    names = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, cwd=table.__file__.rsplit("/marketdata/", 1)[0]
                           ).stdout.strip().split(",")
    assert names == list(CAPABILITIES)


def test_a_capability_is_declared_once():
    with pytest.raises(ValueError, match="declared twice"):
        table.register(CAPABILITIES["crypto_global"])
