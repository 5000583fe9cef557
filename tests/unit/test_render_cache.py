"""The sandbox's render cache: a render whose input was rendered before is copied, not done again;
anything that changes the output changes the key; a failing render and an unusable folder render
as without a cache. Renders run in a child process (``tests.media_child``), as in the sandbox's
workers."""

from __future__ import annotations

import fcntl
import json
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from castdeck.sandbox.render import SynthesisFailed, render_episode, render_media
from castdeck.sandbox.render_cache import cached_render, render_key
from tests.media_child import in_child


def episode_spec(folder: Path, name: str, text: str = "Hello there. A short line.") -> dict[str, Any]:
    voice = {"language": "en", "espeak_voice": "en-us", "variant": None, "rate": 150, "pitch": 50}
    return {
        "turns": [{"speaker": 0, "text": text, "voice": voice}],
        "audio_path": str(folder / f"{name}.mp3"),
        "video_path": None,
        "title": "T",
        "fail": False,
    }


def entries(cache: Path) -> list[str]:
    """The cache's entries (not the lock files beside them)."""
    return sorted(p.name for p in cache.iterdir() if not p.name.startswith("."))


def test_the_same_input_again_is_copied_from_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = in_child(cached_render, render_episode, episode_spec(tmp_path, "a"), folder=str(cache))
    assert first["audio_path"] == str(tmp_path / "a.mp3")
    [key] = entries(cache)
    # mark the stored file: a second render that returns the mark was copied, not narrated again
    stored = cache / key / "audio_path"
    assert stored.read_bytes() == (tmp_path / "a.mp3").read_bytes()
    stored.write_bytes(b"from the cache")
    second = in_child(cached_render, render_episode, episode_spec(tmp_path, "b"), folder=str(cache))
    assert (tmp_path / "b.mp3").read_bytes() == b"from the cache"
    assert second["audio_path"] == str(tmp_path / "b.mp3")
    assert second["video_path"] is None
    assert (second["duration"], second["words"]) == (first["duration"], first["words"])
    # other words are another render, stored beside the first
    third = in_child(
        cached_render, render_episode, episode_spec(tmp_path, "c", "Other words."), folder=str(cache)
    )
    assert (tmp_path / "c.mp3").read_bytes() != b"from the cache"
    assert third["words"][0][2] == "Other"
    assert len(entries(cache)) == 2


def test_the_key_follows_the_content_not_the_paths(tmp_path: Path) -> None:
    (tmp_path / "one.png").write_bytes(b"picture")
    (tmp_path / "two.png").write_bytes(b"picture")
    (tmp_path / "three.png").write_bytes(b"another picture")

    def media(image: str, video: str, **more: Any) -> dict[str, Any]:
        slide = {"start": None, "title": "One", "body": "", "image": str(tmp_path / image)}
        return {
            "turns": [],
            "slides": [slide],
            "video_path": str(tmp_path / video),
            "size": [640, 360],
            **more,
        }

    key = render_key(render_media, media("one.png", "x.mp4"))
    assert render_key(render_media, media("two.png", "y.mp4")) == key  # same bytes elsewhere, other output
    assert render_key(render_media, media("three.png", "x.mp4")) != key  # the picture changed
    assert render_key(render_media, media("one.png", "x.mp4", captions=True)) != key
    assert render_key(render_episode, media("one.png", "x.mp4")) != key  # another renderer
    # an episode with its video is another render than the same episode without
    episode = {"turns": [], "audio_path": str(tmp_path / "a.mp3"), "title": "T"}
    assert render_key(render_episode, {**episode, "video_path": str(tmp_path / "a.mp4")}) != render_key(
        render_episode, {**episode, "video_path": None}
    )


def test_a_failing_render_is_not_cached_and_an_unusable_folder_renders_anyway(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    failed = in_child(
        _outcome, render_episode, {**episode_spec(tmp_path, "a"), "fail": True}, folder=str(cache)
    )
    assert failed == "SynthesisFailed"
    assert not cache.exists()
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("a file where the cache should be")
    result = in_child(cached_render, render_episode, episode_spec(tmp_path, "b"), folder=str(not_a_folder))
    assert Path(result["audio_path"]).stat().st_size > 1000
    assert not_a_folder.read_text() == "a file where the cache should be"


def _outcome(function: Any, spec: dict[str, Any], *, folder: str) -> str:
    """The exception's name, for a render that should raise (run in the child)."""
    try:
        cached_render(function, spec, folder=folder)
    except SynthesisFailed as failure:
        return type(failure).__name__
    return "rendered"


def lock_waiters(lock: Path) -> int:
    """Processes waiting for the lock on ``lock`` (Linux's /proc/locks marks a waiter "->")."""
    inode = f":{lock.stat().st_ino} "
    return sum(1 for line in Path("/proc/locks").read_text().splitlines() if "->" in line and inode in line)


@pytest.mark.skipif(not Path("/proc/locks").exists(), reason="needs Linux's /proc/locks to see a waiter")
def test_a_render_another_sandbox_is_doing_is_waited_for_and_copied(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    spec = episode_spec(tmp_path, "mine")
    key = render_key(render_episode, spec)
    lock = cache / f".{key}.lock"
    with lock.open("a+b") as held:  # another sandbox is rendering this input
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        with ThreadPoolExecutor(1) as pool:
            mine = pool.submit(in_child, cached_render, render_episode, spec, folder=str(cache))
            deadline = time.monotonic() + 60
            while lock_waiters(lock) == 0:  # this one waits for it
                assert time.monotonic() < deadline and not mine.done(), "the render did not wait"
                time.sleep(0.01)
            # the other finishes: its entry, marked, appears and its lock is let go
            entry = cache / key
            entry.mkdir()
            (entry / "audio_path").write_bytes(b"rendered by the other")
            words = [[0.0, 0.5, "Hello", 0]]
            (entry / "result.json").write_text(
                json.dumps({"duration": 0.5, "words": words, "audio_path": "audio_path", "video_path": None})
            )
            fcntl.flock(held.fileno(), fcntl.LOCK_UN)
            result = mine.result(timeout=120)
    assert (tmp_path / "mine.mp3").read_bytes() == b"rendered by the other"
    assert result == {
        "duration": 0.5,
        "words": words,
        "audio_path": str(tmp_path / "mine.mp3"),
        "video_path": None,
    }
