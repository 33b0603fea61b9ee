"""Moved: the capability table is :mod:`marketdata.capabilities` (one table for every
capability). This name stays while the apps that still pass their own fetchers move to the
capability functions."""

from marketdata.capabilities.table import (  # noqa: F401 - re-exported
    CAPABILITIES,
    FMP,
    YAHOO,
    Capability,
    Source,
    active_source,
    call,
    capability,
    notices,
    reset_warnings,
    serve,
)
