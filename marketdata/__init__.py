"""Framework-light core of the market data service: upstream client, cache, providers."""

import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
DISTRIBUTION = "marketdata-service"


def _service_version() -> str:
    """The service's own version, written in one place: ``pyproject.toml``'s
    ``[project] version`` (the package metadata), or an installed distribution's metadata
    when the tree has no ``pyproject.toml``. Not the interface description's version (the
    v2 spec's 3.2.0, which ``/openapi.json`` keeps as specified)."""
    try:
        with PYPROJECT.open("rb") as file:
            return str(tomllib.load(file)["project"]["version"])
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version(DISTRIBUTION)
        except PackageNotFoundError:
            raise RuntimeError(f"no version: {PYPROJECT} is missing and {DISTRIBUTION} is "
                               "not installed") from None


__version__ = _service_version()
