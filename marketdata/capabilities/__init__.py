"""The capability layer: what the apps ask for, whoever answers it.

The apps call the functions of this package's modules (``bars.chart(...)``, ...) and get
records (:mod:`marketdata.records`) back; they never import a provider. Each capability
lists its sources, in order of preference, in one table (:mod:`.table`): keyed sources
only when their key is set, fallbacks when a source fails, a health notice per
capability. Each source's fetcher lives in its provider's module and does the provider's
part: the query mapped to its upstream call (through the provider's cached call), the
answer transformed into the record.
"""

from marketdata.capabilities.table import (
    CAPABILITIES,
    Capability,
    Source,
    active_source,
    call,
    capability,
    notices,
    reset_warnings,
    serve,
)

__all__ = ["CAPABILITIES", "Capability", "Source", "active_source", "call", "capability",
           "notices", "reset_warnings", "serve"]
