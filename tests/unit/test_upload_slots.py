"""A stored upload slot after the service moved: slots on its own host move with it, others stay."""

from __future__ import annotations

from castdeck.services.upload_transfer import SERVICE_ORIGIN, slot_for_service


def slot(url: str, origin: str | None) -> dict[str, object]:
    stored: dict[str, object] = {"url": url, "method": "PUT", "headers": {"content-type": "application/pdf"}}
    if origin is not None:
        stored[SERVICE_ORIGIN] = origin
    return stored


def test_a_slot_on_the_service_host_follows_the_service_to_its_new_address() -> None:
    moved = slot_for_service(slot("http://127.0.0.1:4100/files/up/abc?signature=s", "http://127.0.0.1:4100"),
                             "http://127.0.0.1:5200")  # fmt: skip
    assert moved["url"] == "http://127.0.0.1:5200/files/up/abc?signature=s"
    assert SERVICE_ORIGIN not in moved and moved["method"] == "PUT"


def test_a_slot_on_a_storage_host_or_from_before_stays_as_it_was() -> None:
    storage = "https://uploads.example-storage.net/b/abc?sig=s"
    assert (
        slot_for_service(slot(storage, "https://api.example.com"), "https://api2.example.com")["url"]
        == storage
    )
    same = "http://127.0.0.1:4100/files/up/abc"
    assert slot_for_service(slot(same, "http://127.0.0.1:4100"), "http://127.0.0.1:4100/")["url"] == same
    assert slot_for_service(slot(same, None), "http://127.0.0.1:5200")["url"] == same
