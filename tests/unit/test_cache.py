"""The offline cache: lists in order, pages replacing what was there, per profile, no secrets."""

from __future__ import annotations

from pathlib import Path

from castdeck.store.cache import Cache


def test_pages_build_a_list_and_the_first_page_replaces_it(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "c.sqlite3")
    cache.put_page("p", "episodes", "episode", [{"id": "a"}, {"id": "b"}], offset=0, last=False)
    cache.put_page("p", "episodes", "episode", [{"id": "c"}], offset=2, last=True)
    listed = cache.get_list("p", "episodes")
    assert listed is not None and listed.complete
    assert [r["id"] for r in listed.items] == ["a", "b", "c"]
    cache.put_page("p", "episodes", "episode", [{"id": "z", "title": "new"}], offset=0, last=False)
    listed = cache.get_list("p", "episodes")
    assert listed is not None and not listed.complete
    assert [r["id"] for r in listed.items] == ["z"]
    assert cache.get("p", "episode", "a") == {"id": "a"}  # records stay for their details
    cache.close()


def test_profiles_are_apart_and_records_update_lists(tmp_path: Path) -> None:
    cache = Cache(tmp_path / "c.sqlite3")
    cache.put_page("one", "hosts", "host", [{"id": "h1", "name": "A"}], offset=0, last=True)
    assert cache.get_list("two", "hosts") is None
    cache.put("one", "host", {"id": "h1", "name": "B"})
    listed = cache.get_list("one", "hosts")
    assert listed is not None and listed.items == [{"id": "h1", "name": "B"}]
    cache.delete("one", "host", "h1")
    listed = cache.get_list("one", "hosts")
    assert listed is not None and listed.items == []
    cache.forget_profile("one")
    assert cache.get_list("one", "hosts") is None
    cache.close()


def test_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite3"
    cache = Cache(path)
    cache.put_page("p", "voices", "voice", [{"id": 1}, {"id": 2}], offset=0, last=True)
    cache.close()
    again = Cache(path)
    listed = again.get_list("p", "voices")
    assert listed is not None and [r["id"] for r in listed.items] == [1, 2]
    again.close()
