"""Deterministic simulator of upstream market-data APIs (Yahoo Finance, Algolia search...).

Public interface: ``SandboxResponse``, ``UpstreamSandbox`` and
``get_sandbox()``; see README.md. The simulator (numpy/pandas) is imported on first use, so
listing this package in INSTALLED_APPS costs nothing at Django start-up.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from marketdata.sandbox.response import SandboxResponse

if TYPE_CHECKING:
    from marketdata.sandbox.core import UpstreamSandbox, get_sandbox

__all__ = ["SandboxResponse", "UpstreamSandbox", "get_sandbox"]


def __getattr__(name: str) -> Any:
    if name in ("UpstreamSandbox", "get_sandbox"):
        from marketdata.sandbox import core

        return getattr(core, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
