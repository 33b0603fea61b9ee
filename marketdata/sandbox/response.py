"""The sandbox's transport-neutral response object."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SandboxResponse:
    """An HTTP answer: status, headers (always with Content-Type) and body bytes."""

    status: int
    headers: dict[str, str]
    body: bytes
