"""Which provider serves which capability, in order of preference: one registry, each row
declared beside its capability's function.

A *capability* is one kind of data an endpoint needs (daily bars, macro series,
price-target consensus, press releases...). Its :class:`Capability` lists the sources in
order of preference; a keyed source (``key_setting``) takes part only when its key is set,
so **every capability has a source that needs no key** (but the ``keyed_only`` ones, whose
data no keyless source publishes: without their key, a 501 naming it). A source names its
fetcher, the function in its provider's module that maps the query to the upstream call
and its answer to a record (``"module:function"``, imported on first use: the registry
never imports a provider).

Each capability is declared once, in its domain module (``crypto.py``...), by
:func:`declare` on the function the apps call: its name, title, sources and options above
the signature its fetchers share and the record they return; the function's body becomes
:func:`call`. A capability no function calls that way (pushed ticks) is declared with
:func:`register`. :data:`CAPABILITIES` imports every domain module of this package the
first time it is read, so it is whole whenever it is read, in :data:`ORDER`. Three
readers use it:

- :func:`call` runs a query through the active sources' fetchers, :func:`serve` through
  fetchers a caller supplies: the first answer wins. A source that does not serve this
  query (:class:`~marketdata.errors.NotServed`: a daily-bars source asked for minutes) is
  passed over. When a next source exists, a capability with a ``primary_share`` gives each
  source but the last that share of the time left, so a hanging first source leaves the
  next one time to answer. A keyed
  source that refuses its key (:class:`~marketdata.errors.CredentialsRejected`, a 401/403)
  is logged at WARNING once per process and provider, then the next source is asked; so
  is any other upstream failure (502/503/504/429) when a next source exists. "Not found"
  and bad requests are answers, not failures: they end the search (the keyed source is the
  better one, and a keyless source would only guess), except for a capability with
  ``not_found_passes_on``, whose sources each list only some of what exists (a currency
  pair one source lacks, another may quote): there "not found" is raised only when every
  source said it, and a failure, when any, wins over it. When every source fails, the first
  failure is raised (the preferred source's own words; the last one's for a capability
  with ``raise_last_failure``).
- :func:`notices` says, for ``/v2/health``, which source serves each capability now.
- The table of sources in `docs/api-notes.md` is written from the same declarations.
"""

from __future__ import annotations

import functools
import inspect
import pkgutil
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from importlib import import_module
from typing import Any, TypeVar, cast

from django.conf import settings
from django.utils.module_loading import import_string

from marketdata import deadline
from marketdata.errors import (
    CredentialsRejected,
    NotConfigured,
    NotFound,
    NotServed,
    UpstreamError,
)
from marketdata.logs import get_logger

log = get_logger("marketdata.capabilities")
T = TypeVar("T")


@dataclass(frozen=True)
class Source:
    """One way to serve a capability: ``name`` is the provider's (the key of its fetch in
    :func:`serve`), ``fetcher`` its function for :func:`call` (``"module:function"``)."""

    name: str
    label: str
    key_setting: str | None = None
    fetcher: str | None = None

    def active(self) -> bool:
        return self.key_setting is None or bool(getattr(settings, self.key_setting, ""))

    def described(self) -> str:
        """The label, saying which key switched the source on."""
        return f"{self.label} ({self.key_setting} set)" if self.key_setting else self.label

    def fetch_function(self) -> Callable[..., Any]:
        if self.fetcher is None:
            raise LookupError(f"source {self.name!r} has no fetcher")
        function = _fetchers.get(self.fetcher)
        if function is None:
            function = import_string(self.fetcher.replace(":", "."))
            _fetchers[self.fetcher] = function
        return function


_fetchers: dict[str, Callable[..., Any]] = {}


@dataclass(frozen=True)
class Capability:
    name: str
    title: str
    sources: tuple[Source, ...]
    # The share of the time left each source but the last gets when a next one exists.
    primary_share: float | None = None
    # When every source fails, the last one's failure is raised instead of the first's: for
    # a capability whose last source is the one its clients are told about (symbol search).
    raise_last_failure: bool = False
    # A source's "not found" passes the query on (see the module doc).
    not_found_passes_on: bool = False
    # Every source needs a key (no documented keyless source exists): without one the
    # capability is not served (NotConfigured, a 501 naming the settings) and /v2/health
    # says which setting would switch it on.
    keyed_only: bool = False
    # The domain module's function that asks for it (None: its sources are read directly).
    function: Callable[..., Any] | None = field(default=None, compare=False, repr=False)

    def active_sources(self) -> tuple[Source, ...]:
        return tuple(source for source in self.sources if source.active())

    def unconfigured(self) -> str:
        """What a keyed-only capability without its key says (the 501 and /v2/health)."""
        return (f"{self.title} needs " + " or ".join(
            f"{s.key_setting} ({s.label})" for s in self.sources)
                + ": not served until one is set")

    def notice(self) -> str:
        active = self.active_sources()
        if not active:
            return self.unconfigured() + "."
        first, rest = active[0], active[1:]
        text = f"{self.title}: {first.described()}"
        if rest:
            text += "; when it fails, " + ", then ".join(s.described() for s in rest)
        order = {source.name: i for i, source in enumerate(self.sources)}
        idle = [s for s in self.sources if not s.active()]
        if idle:
            text += "; " + ", ".join(
                f"set {s.key_setting} to use {s.label} "
                + ("first" if order[s.name] < order[first.name] else "when it fails")
                for s in idle)
        last = _last_answer.get(self.name)
        if last is not None and last[0] != first.name:
            ago = time.monotonic() - last[1]
            if ago < FALLBACK_NOTICE_SECONDS:
                label = next(s.label for s in self.sources if s.name == last[0])
                text += f"; the last answer came from {label} ({int(ago)} s ago)"
        return text + "."


YAHOO = "Yahoo Finance"


def fmp_source(fetcher: str) -> Source:
    """Financial Modeling Prep as the source of one capability, with that capability's
    fetcher in marketdata.providers.fmp."""
    return Source("fmp", "Financial Modeling Prep", "FMP_API_KEY",
                  fetcher=f"marketdata.providers.fmp:{fetcher}")


# Where each capability stands in CAPABILITIES, so in /v2/health's notices: their order
# before each row moved beside its function. A capability not listed follows, by name.
ORDER = (
    "bars", "security_search", "search", "lookup", "macro_series", "economic_releases",
    "treasury_yields", "cot", "news", "listed_news", "general_news", "world_news", "feeds",
    "crypto_news", "forex_news", "fear_and_greed", "quotes", "quote_push", "full_quote",
    "v2_quote", "v2_quotes", "logos", "quote_type", "indices", "movers",
    "predefined_screener", "custom_screener", "sectors", "symbol_sector", "sector_profiles",
    "industries", "similar", "forex", "crypto_coins", "crypto_coin", "crypto_global",
    "crypto_trending", "crypto_search", "options", "currencies", "trending",
    "market_summary", "spark", "futures", "grading_actions", "price_target_consensus",
    "price_target_summary", "earnings_surprises", "company_profile", "analysis", "holders",
    "calendar_events", "financial_statements", "earnings_calls", "transcripts",
    "press_releases", "filer_ciks", "filings", "company_facts", "filing_search",
    "fails_to_deliver", "congressional_trades", "index_constituents", "short_volume",
    "short_interest",
)
_PLACE = {name: place for place, name in enumerate(ORDER)}


class Registry(MutableMapping[str, Capability]):
    """The capabilities by name, in :data:`ORDER`. Each domain module of this package
    declares its own when it is imported; the first read imports every one of them, so the
    registry is whole whenever it is read, whoever imported what before."""

    def __init__(self) -> None:
        self._rows: dict[str, Capability] = {}
        self._whole = False
        self._lock = threading.RLock()

    def declare(self, capability: Capability) -> None:
        with self._lock:
            if capability.name in self._rows:
                raise ValueError(f"capability {capability.name!r} declared twice")
            self._rows[capability.name] = capability
            if self._whole:
                self._sort()

    def _sort(self) -> None:
        rows = sorted(self._rows.values(),
                      key=lambda c: (_PLACE.get(c.name, len(ORDER)), c.name))
        self._rows = {c.name: c for c in rows}

    def whole(self) -> dict[str, Capability]:
        if not self._whole:
            with self._lock:
                if not self._whole:
                    package = sys.modules[__package__]
                    for module in pkgutil.iter_modules(package.__path__):
                        if module.name != "table":
                            import_module(f"{__package__}.{module.name}")
                    self._sort()
                    self._whole = True
        return self._rows

    def __getitem__(self, name: str) -> Capability:
        return self.whole()[name]

    def __setitem__(self, name: str, capability: Capability) -> None:  # tests' monkeypatch
        self.whole()[name] = capability

    def __delitem__(self, name: str) -> None:
        del self.whole()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.whole())

    def __len__(self) -> int:
        return len(self.whole())


CAPABILITIES = Registry()
F = TypeVar("F", bound=Callable[..., Any])


def declare(name: str, title: str, *sources: Source, not_found: str | None = None,
            primary_share: float | None = None, raise_last_failure: bool = False,
            not_found_passes_on: bool = False, keyed_only: bool = False) -> Callable[[F], F]:
    """Declare the capability ``name`` (see :class:`Capability`) on the function that asks
    for it: the function's signature is its fetchers' (the same parameters), its return
    type their record, and its body (a docstring) is replaced by :func:`call` with the
    arguments it gets (its defaults filled). ``not_found`` (formatted with the arguments
    by name) is the message of any source's "not found", whichever source said it."""

    def decorate(function: F) -> F:
        register(Capability(name, title, sources, primary_share, raise_last_failure,
                            not_found_passes_on, keyed_only, function=function))
        arguments = _arguments(function)
        if not_found is None:
            def calling(*args: Any, **kwargs: Any) -> Any:
                args, kwargs = arguments(args, kwargs)
                return call(name, *args, **kwargs)
        else:
            signature = inspect.signature(function)

            def calling(*args: Any, **kwargs: Any) -> Any:
                args, kwargs = arguments(args, kwargs)
                try:
                    return call(name, *args, **kwargs)
                except NotFound:
                    given = signature.bind(*args, **kwargs).arguments
                    raise NotFound(not_found.format(**given)) from None
        return cast(F, functools.wraps(function)(calling))

    return decorate


def _arguments(function: Callable[..., Any]) -> Callable[
        [tuple[Any, ...], dict[str, Any]], tuple[tuple[Any, ...], dict[str, Any]]]:
    """The arguments of a call of ``function`` as it declares them, defaults filled:
    positional parameters by position, keyword-only ones by name (so every fetcher gets
    the capability's defaults, not its own)."""
    signature = inspect.signature(function)
    kinds = [p.kind for p in signature.parameters.values()]
    positional = sum(kind in (inspect.Parameter.POSITIONAL_ONLY,
                              inspect.Parameter.POSITIONAL_OR_KEYWORD) for kind in kinds)
    keywords = frozenset(p.name for p in signature.parameters.values()
                         if p.kind is inspect.Parameter.KEYWORD_ONLY)

    def arguments(args: tuple[Any, ...],
                  kwargs: dict[str, Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        if len(args) == positional and kwargs.keys() == keywords:
            return args, kwargs  # complete already (the usual call)
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.args, bound.kwargs

    return arguments


def register(capability: Capability) -> None:
    """Declare a capability that no function calls through :func:`call` (its sources are
    read directly, as pushed ticks' are)."""
    CAPABILITIES.declare(capability)


# capability -> (source, monotonic time) of its last answer: /v2/health says when a fallback
# answered lately (within FALLBACK_NOTICE_SECONDS).
_last_answer: dict[str, tuple[str, float]] = {}
FALLBACK_NOTICE_SECONDS = 600
_warned: set[str] = set()
_warned_lock = threading.Lock()


def capability(name: str) -> Capability:
    return CAPABILITIES[name]


def _warn_once(source: Source, capability: Capability, error: CredentialsRejected) -> None:
    with _warned_lock:
        if source.name in _warned:
            return
        _warned.add(source.name)
    # The error's own text never carries the key (the providers build it without one).
    log.warning("provider_key_rejected", provider=source.name, capability=capability.name,
                setting=source.key_setting, upstream_status=error.upstream_status,
                detail="the key was refused; falling back to the next source")


def serve(name: str, fetchers: Mapping[str, Callable[[], T]]) -> T:
    """The first answer of the capability's active sources, in order (see the module doc).

    ``fetchers`` maps each source name to the call that fetches through it; a source
    without a fetcher is skipped.
    """
    cap = CAPABILITIES[name]
    if cap.keyed_only and not cap.active_sources():
        raise NotConfigured(cap.unconfigured())
    failures: list[UpstreamError] = []
    not_served: NotServed | None = None
    not_found: NotFound | None = None
    sources = [s for s in cap.active_sources() if s.name in fetchers]
    for position, source in enumerate(sources):
        fetch = fetchers[source.name]
        try:
            if cap.primary_share is not None and position < len(sources) - 1:
                with deadline.share(cap.primary_share):
                    answer = fetch()
            else:
                answer = fetch()
            _last_answer[name] = (source.name, time.monotonic())
            return answer
        except NotServed as exc:
            not_served = not_served or exc
        except NotFound as exc:
            if not cap.not_found_passes_on:
                raise
            not_found = not_found or exc
        except CredentialsRejected as exc:
            _warn_once(source, cap, exc)
            failures.append(exc)
        except UpstreamError as exc:
            log.info("source_failed", capability=cap.name, provider=source.name,
                     status=exc.status_code)
            failures.append(exc)
    if failures:
        raise failures[-1] if cap.raise_last_failure else failures[0]
    if not_found is not None:
        raise not_found
    if not_served is not None:
        raise not_served
    raise LookupError(f"no source of {name!r} has a fetcher")  # a programming error


def call(name: str, *args: Any, **kwargs: Any) -> Any:
    """The first answer of the capability's active sources' own fetchers, each called with
    ``args`` and ``kwargs`` (see the module doc)."""
    cap = CAPABILITIES[name]
    fetchers = {source.name: _bound(source.fetch_function(), args, kwargs)
                for source in cap.active_sources() if source.fetcher is not None}
    return serve(name, fetchers)


def _bound(function: Callable[..., T], args: tuple[Any, ...],
           kwargs: dict[str, Any]) -> Callable[[], T]:
    return lambda: function(*args, **kwargs)


def active_source(name: str) -> str:
    """The name of the source that is asked first for a capability."""
    return CAPABILITIES[name].active_sources()[0].name


def notices() -> list[str]:
    """One line per capability: the source serving it now, the fallbacks, the keyed ones
    that a key would switch on (``/v2/health``)."""
    return [cap.notice() for cap in CAPABILITIES.values()]


def reset_warnings() -> None:
    """Forget which rejected keys were logged (tests; a changed key deserves a new line)
    and which sources answered last."""
    with _warned_lock:
        _warned.clear()
    _last_answer.clear()


def _on_setting_changed(setting: str, **kwargs: Any) -> None:
    if setting.endswith("_API_KEY"):
        reset_warnings()


try:
    from django.test.signals import setting_changed

    setting_changed.connect(_on_setting_changed, dispatch_uid="marketdata.capabilities")
except ImportError:  # pragma: no cover
    pass
