"""The sandbox's ``--signed-base-url`` and the recording proxy the soak puts in front of it: signed
upload and download addresses name the proxy's origin, work through it, and every request that
reaches them is recorded with any credentials it carried."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from castdeck.sandbox.__main__ import parse_args
from tests.conftest import DEMO_KEY, wait_for
from tests.helpers import complete, pdf_bytes, put_bytes, reserve_ok
from tests.soak.service import Service
from tests.tls import SHARED_TLS


def test_signed_addresses_point_at_the_proxy_and_it_records_them(
    service_factory: Callable[..., Service],
) -> None:
    service = service_factory("--speed", "50")
    api = httpx.Client(
        base_url=service.base_url,
        headers={"Authorization": f"Bearer {DEMO_KEY}"},
        timeout=30,
        verify=SHARED_TLS,
    )
    content = pdf_bytes(2)
    reservation = reserve_ok(api, "notes.pdf", "application/pdf", content)
    slot = reservation["upload"]
    assert slot["url"].startswith(service.signed.url + "/uploads/"), slot["url"]
    assert put_bytes(slot, content).status_code == 200
    assert complete(api, reservation["source"]["id"]).status_code == 200

    def audio() -> str | None:  # the seeded episodes' audio is made just after the sandbox starts
        for item in api.get("/v1/episodes", params={"limit": 100}).json()["data"]:
            url = api.get(f"/v1/episodes/{item['id']}").json()["data"].get("audio_url")
            if url:
                return str(url)
        return None

    url = wait_for(audio, timeout=120, interval=0.5)
    assert url.startswith(service.signed.url + "/files/")
    assert httpx.get(url, timeout=30, verify=SHARED_TLS).status_code == 200
    # a request that carries the key to a signed address is recorded as such (and refused there)
    refused = httpx.get(url, headers={"Authorization": f"Bearer {DEMO_KEY}"}, timeout=30, verify=SHARED_TLS)
    assert refused.status_code == 400

    seen = [(s.method, s.path.split("/")[1], s.status, s.whole, s.credentials) for s in service.signed.seen]
    assert seen == [
        ("PUT", "uploads", 200, True, []),
        ("GET", "files", 200, True, []),
        ("GET", "files", 400, True, ["Authorization"]),
    ]
    assert [s.credentials for s in service.signed.with_credentials] == [["Authorization"]]
    assert all(s.credentials == ["Authorization"] for s in service.api.seen)  # the API gets the key

    # down: connections are refused; up: the same address answers again
    service.offline()
    with pytest.raises(httpx.ConnectError):
        api.get("/v1/account")
    service.online()
    assert api.get("/v1/account").status_code == 200
    api.close()


def test_the_soaks_proxies_keep_counts_and_only_the_credentials_that_went_astray(
    service_factory: Callable[..., Service],
) -> None:
    """In the soak (``keep_api=False``) the proxies keep no record of the API's requests, which all
    carry the key, so the test process's memory stays the app's; a signed address that gets the key
    is still kept."""
    service = service_factory("--speed", "50", keep_api=False)
    with httpx.Client(
        base_url=service.base_url,
        headers={"Authorization": f"Bearer {DEMO_KEY}"},
        timeout=30,
        verify=SHARED_TLS,
    ) as api:
        for _ in range(3):
            assert api.get("/v1/account").status_code == 200
        episode = api.get("/v1/episodes", params={"limit": 1}).json()["data"][0]["id"]
        assert api.get(f"/v1/episodes/{episode}").status_code == 200
    assert (service.api.requests, service.api.credentialed) == (5, 5)
    assert (service.api.seen, service.api.with_credentials) == ([], [])
    strayed = httpx.get(
        service.signed.url + "/files/nothing", headers={"Authorization": f"Bearer {DEMO_KEY}"}, timeout=30,
        verify=SHARED_TLS,
    )  # fmt: skip
    assert strayed.status_code in (400, 404)
    assert service.signed.seen == []
    assert [(s.path, s.credentials) for s in service.signed.with_credentials] == [
        ("/files/nothing", ["Authorization"])
    ]


@pytest.mark.parametrize(
    "value", ["ftp://127.0.0.1:9", "http://127.0.0.1:9/files", "127.0.0.1:9", "http://h:1/?a=1"]
)
def test_signed_base_url_must_be_an_http_origin(value: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse_args(["--data", "/tmp/x", "--signed-base-url", value])
    assert "--signed-base-url" in capsys.readouterr().err


def test_signed_base_url_defaults_to_the_sandbox_itself() -> None:
    settings, _ = parse_args(["--data", "/tmp/x"])
    assert settings.signed_base_url is None
    settings, _ = parse_args(["--data", "/tmp/x", "--signed-base-url", "http://127.0.0.1:8081/"])
    assert settings.signed_base_url == "http://127.0.0.1:8081"
