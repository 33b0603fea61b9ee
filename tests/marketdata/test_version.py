"""The service's version is written once, in pyproject.toml, and read everywhere else; the
interface description keeps the spec's version (3.2.0)."""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path

import marketdata

ROOT = Path(__file__).resolve().parents[2]
# Where a version string could be written by hand instead of read from marketdata.
SOURCES = ("config", "marketdata", "apps")
HAND_WRITTEN = re.compile(r"MarketDataService/\d|__version__\s*=\s*\"\d")


def test_the_version_is_pyprojects():
    with (ROOT / "pyproject.toml").open("rb") as file:
        declared = tomllib.load(file)["project"]["version"]
    assert marketdata.__version__ == declared
    assert re.fullmatch(r"\d+\.\d+\.\d+\S*", declared)


def test_the_user_agents_and_cache_keys_carry_it():
    from apps.core import response_cache
    from marketdata.providers import wikipedia

    tag = f"MarketDataService/{marketdata.__version__} "
    assert wikipedia.USER_AGENT.startswith(tag)
    from config import settings as project_settings

    if not os.environ.get("SEC_USER_AGENT"):  # the default names the version
        assert project_settings.SEC_USER_AGENT.startswith(tag)
    assert f":resp:{marketdata.__version__}:" in response_cache.PREFIX


def test_no_other_version_is_written_by_hand():
    found = [f"{path.relative_to(ROOT)}:{number}"
             for folder in SOURCES for path in (ROOT / folder).rglob("*.py")
             for number, line in enumerate(path.read_text().splitlines(), 1)
             if HAND_WRITTEN.search(line)]
    assert found == []


def test_the_interface_description_keeps_the_specs_version(client):
    document = client.get("/openapi.json").json()
    assert document["info"]["version"] == "3.2.0"
    assert client.get("/", HTTP_ACCEPT="application/json").json()["version"] == \
        marketdata.__version__
