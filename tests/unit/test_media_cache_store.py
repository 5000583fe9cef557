"""The media cache on disk: what it keeps, how it knows a file is current, and eviction by size
(least recently used first, never the episode being opened)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from castdeck.store.media_cache import MediaCacheStore, audio_key

URL = "http://127.0.0.1:8000/files/episodes/{}/audio-1.mp3?expires=1&signature=abc"


def put(store: MediaCacheStore, profile: str, episode: str, size: int) -> Path:
    url = URL.format(episode)
    store.put_timestamps(
        profile, episode, {"episode_id": episode, "words": [{"word": "hi", "start": 0, "end": 1}]}
    )
    target = store.audio_path(profile, episode, url)
    target.write_bytes(os.urandom(size))
    store.commit_audio(profile, episode, target, url)
    return target


def test_an_episode_comes_back_whole(tmp_path: Path) -> None:
    store = MediaCacheStore(tmp_path)
    assert store.get("p", "e1") is None
    audio = put(store, "p", "e1", 1000)
    cached = store.get("p", "e1")
    assert cached is not None and cached.complete
    assert cached.audio == audio and audio.suffix == ".mp3"
    assert (
        cached.audio_key
        == audio_key(URL.format("e1"))
        == "http://127.0.0.1:8000/files/episodes/e1/audio-1.mp3"
    )
    assert cached.timestamps == {"episode_id": "e1", "words": [{"word": "hi", "start": 0, "end": 1}]}
    assert store.get("other profile", "e1") is None  # profiles never share files
    assert not list(tmp_path.rglob("*.tmp"))


def test_timestamps_alone_are_not_complete(tmp_path: Path) -> None:
    store = MediaCacheStore(tmp_path)
    store.put_timestamps("p", "e1", [])
    cached = store.get("p", "e1")
    assert cached is not None and not cached.complete and cached.audio is None


def test_least_recently_used_go_first_when_over_the_cap(tmp_path: Path) -> None:
    store = MediaCacheStore(tmp_path, cap_bytes=4000)
    for name in ("e1", "e2", "e3"):
        put(store, "p", name, 1000)
        time.sleep(0.01)
    assert store.get("p", "e1") is not None  # e1 is used again: e2 is now the oldest
    time.sleep(0.01)
    put(store, "p", "e4", 1000)
    assert store.get("p", "e2", touch=False) is None
    assert {c.episode_id for c in store.entries()} == {"e1", "e3", "e4"}
    assert store.usage() <= 4000


def test_the_episode_being_opened_is_kept_even_when_alone_over_the_cap(tmp_path: Path) -> None:
    store = MediaCacheStore(tmp_path, cap_bytes=1500)
    put(store, "p", "e1", 1000)
    time.sleep(0.01)
    put(store, "p", "big", 5000)
    assert [c.episode_id for c in store.entries()] == ["big"]
    assert store.get("p", "big") is not None


def test_a_new_render_replaces_the_old_file(tmp_path: Path) -> None:
    store = MediaCacheStore(tmp_path)
    first = put(store, "p", "e1", 100)
    url = "http://127.0.0.1:8000/files/episodes/e1/audio-2.wav?expires=2"
    second = store.audio_path("p", "e1", url)
    second.write_bytes(b"x" * 10)
    store.commit_audio("p", "e1", second, url)
    cached = store.get("p", "e1")
    assert cached is not None and cached.audio == second and not first.exists()
    assert cached.audio_key == "http://127.0.0.1:8000/files/episodes/e1/audio-2.wav"


def test_a_damaged_entry_reads_as_not_cached(tmp_path: Path) -> None:
    store = MediaCacheStore(tmp_path)
    put(store, "p", "e1", 10)
    (store.folder("p", "e1") / "entry.json").write_text("{not json", encoding="utf-8")
    assert store.get("p", "e1") is None
    put(store, "p", "e1", 10)  # and is written afresh
    assert store.get("p", "e1") is not None
