"""The provider contract (marketdata.providers.base.Provider) and the registry: one
example provider built the way a new upstream would be."""

from __future__ import annotations

from typing import Any

import pytest
import responses

from marketdata.errors import NotFound, UpstreamBadResponse
from marketdata.http import ProviderConfig, UpstreamClient
from marketdata.providers import registry
from marketdata.providers.base import Provider

URL = "https://api.example.org/v1/series"


class ExampleProvider(Provider):
    """A keyed provider whose token can be rejected and renewed."""

    config = ProviderConfig(name="example", display_name="Example Data", max_attempts=1,
                            hosts=("api.example.org",))

    def __init__(self, client: UpstreamClient) -> None:
        self.renewals = 0
        super().__init__(client)

    def load_credentials(self) -> dict[str, Any]:
        from django.conf import settings

        return {"key": getattr(settings, "EXAMPLE_API_KEY", "k1")}

    def authenticate(self, params: dict[str, Any], headers: dict[str, str]) -> int:
        headers["X-Key"] = f"{self.credentials['key']}-{self.renewals}"
        return self.renewals

    def auth_rejected(self, response) -> bool:
        return response.status == 401

    def refresh_auth(self, token: int) -> None:
        self.renewals += 1


@pytest.fixture
def provider():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as mock:
        yield ExampleProvider(UpstreamClient()), mock


def test_a_call_carries_the_credentials(provider):
    example, mock = provider
    mock.get(URL, json={"ok": 1})
    assert example.get_json("series", URL, {"id": "GDP"}) == {"ok": 1}
    assert mock.calls[0].request.headers["X-Key"] == "k1-0"
    assert "id=GDP" in mock.calls[0].request.url


def test_a_rejected_credential_is_renewed_once(provider):
    example, mock = provider
    mock.get(URL, status=401)
    mock.get(URL, json={"ok": 2})
    assert example.get_json("series", URL) == {"ok": 2}
    assert [c.request.headers["X-Key"] for c in mock.calls] == ["k1-0", "k1-1"]


def test_a_second_rejection_is_an_answer_not_a_loop(provider):
    example, mock = provider
    mock.get(URL, status=401)
    with pytest.raises(UpstreamBadResponse) as info:
        example.get_json("series", URL)
    assert len(mock.calls) == 2
    assert info.value.provider == "example" and info.value.status_code == 502


def test_status_mapping(provider):
    example, mock = provider
    mock.get(URL, status=404)
    with pytest.raises(NotFound, match="No series GDP"):
        example.get_json("series", URL, not_found="No series GDP")
    mock.replace(responses.GET, URL, status=400)
    with pytest.raises(UpstreamBadResponse, match="Example Data answered HTTP 400 for series"):
        example.get_json("series", URL)


def test_cached_uses_the_providers_name(provider):
    example, mock = provider
    mock.get(URL, json={"v": 1})
    fetch = lambda: example.get_json("series", URL)  # noqa: E731
    assert example.cached("series", {"id": "GDP"}, fetch, "analysis") == {"v": 1}
    assert example.cached("series", {"id": "GDP"}, fetch, "analysis") == {"v": 1}
    assert len(mock.calls) == 1


def test_the_registry_builds_one_instance_and_rebuilds_after_a_settings_change(
        settings, monkeypatch):
    monkeypatch.setitem(registry.PROVIDERS, "example",
                        f"{__name__}:ExampleProvider")
    first = registry.get_provider("example")
    assert registry.get_provider("example") is first
    assert first.credentials == {"key": "k1"}
    settings.EXAMPLE_API_KEY = "k2"  # credentials are read once, per instance
    second = registry.get_provider("example")
    assert second is not first and second.credentials == {"key": "k2"}


def test_every_registered_provider_is_a_provider():
    for name in registry.PROVIDERS:
        cls = registry.provider_class(name)
        assert issubclass(cls, Provider) and cls.config.name == name
        assert cls.config.hosts, name
    from marketdata.capabilities import CAPABILITIES

    for capability in CAPABILITIES.values():
        # A source computed from the service's own records (no upstream) needs no provider.
        upstream = {s.name for s in capability.sources
                    if not (s.fetcher or "").startswith("marketdata.records.")}
        assert upstream <= set(registry.PROVIDERS) | {
            "fred_api", "fred_graph"}, capability.name  # FRED's two sources, one provider
