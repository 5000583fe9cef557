"""Episode audio and word timestamps kept on disk, so a listened episode plays and reads offline.

No Qt and no network. One folder per profile and episode holds the audio file, the timestamps
(``timestamps.json``, as the service sent them) and ``entry.json`` (which audio address the file
came from, its size, and when it was last used). The whole cache stays under a size cap: after
each new audio file the least recently used episodes are removed (never the one being opened).
Every write goes to a temporary file that is renamed into place, so a crash leaves either the old
file or the new one. All calls block: the services run them on a worker thread.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import shutil
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .atomic import write_atomic
from .lru import over_cap

__all__ = ["DEFAULT_CAP_BYTES", "CachedEpisode", "MediaCacheStore", "audio_key"]

DEFAULT_CAP_BYTES = 1024 * 1024 * 1024
_SAFE = re.compile(r"[^A-Za-z0-9._-]")


def audio_key(url: str) -> str:
    """What identifies an audio file behind a signed address: the address without its query (the
    signature and expiry change; the path changes when the episode is rendered again)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


@dataclass(frozen=True)
class CachedEpisode:
    episode_id: str
    folder: Path
    audio: Path | None
    audio_key: str | None
    timestamps: dict[str, Any] | list[Any] | None
    size: int
    used: float

    @property
    def complete(self) -> bool:
        return self.audio is not None and self.timestamps is not None


class MediaCacheStore:
    """Audio and timestamps by (profile, episode); ``cap_bytes`` bounds the whole folder."""

    def __init__(self, root: Path, cap_bytes: int = DEFAULT_CAP_BYTES) -> None:
        self.root = root
        self.cap_bytes = cap_bytes
        self._lock = threading.Lock()

    def folder(self, profile: str, episode_id: str) -> Path:
        digest = hashlib.sha256(profile.encode("utf-8")).hexdigest()[:12]
        return self.root / digest / _SAFE.sub("_", episode_id)

    # --- reading -----------------------------------------------------------------------------------------------

    def get(self, profile: str, episode_id: str, *, touch: bool = True) -> CachedEpisode | None:
        """The cached files of an episode (``None`` when nothing is cached); ``touch`` marks it used."""
        with self._lock:
            folder = self.folder(profile, episode_id)
            entry = self._entry(folder)
            if entry is None:
                return None
            if touch:
                entry["used"] = time.time()
                self._put_entry(folder, entry)
            return self._cached(episode_id, folder, entry)

    def _cached(self, episode_id: str, folder: Path, entry: dict[str, Any]) -> CachedEpisode:
        audio_name = entry.get("audio_file")
        audio = folder / audio_name if isinstance(audio_name, str) and audio_name else None
        if audio is not None and not audio.is_file():
            audio = None
        timestamps: Any = None
        with contextlib.suppress(OSError, ValueError):
            timestamps = json.loads((folder / "timestamps.json").read_text(encoding="utf-8"))
        if not isinstance(timestamps, dict | list):
            timestamps = None
        key = entry.get("audio_key")
        return CachedEpisode(
            episode_id,
            folder,
            audio,
            key if isinstance(key, str) else None,
            timestamps,
            self._size(folder),
            float(entry.get("used") or 0.0),
        )

    @staticmethod
    def _entry(folder: Path) -> dict[str, Any] | None:
        try:
            entry = json.loads((folder / "entry.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return entry if isinstance(entry, dict) else None

    @staticmethod
    def _put_entry(folder: Path, entry: dict[str, Any]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        write_atomic(folder / "entry.json", json.dumps(entry).encode("utf-8"), make_folder=True)

    @staticmethod
    def _size(folder: Path) -> int:
        total = 0
        with contextlib.suppress(OSError):
            for item in folder.iterdir():
                with contextlib.suppress(OSError):
                    total += item.stat().st_size
        return total

    # --- writing -----------------------------------------------------------------------------------------------

    def put_timestamps(self, profile: str, episode_id: str, payload: dict[str, Any] | list[Any]) -> None:
        with self._lock:
            folder = self.folder(profile, episode_id)
            folder.mkdir(parents=True, exist_ok=True)
            write_atomic(folder / "timestamps.json", json.dumps(payload).encode("utf-8"), make_folder=True)
            entry = self._entry(folder) or {}
            entry["used"] = time.time()
            self._put_entry(folder, entry)

    def audio_path(self, profile: str, episode_id: str, url: str, *, stem: str = "audio") -> Path:
        """Where the file from ``url`` goes (the folder is created); keeps the address's suffix.
        ``stem`` names the file (other media kept here name theirs after the address)."""
        suffix = Path(urlsplit(url).path).suffix.lower()
        suffix = suffix if re.fullmatch(r"\.[a-z0-9]{1,5}", suffix) else f".{_SAFE.sub('_', stem)}"
        folder = self.folder(profile, episode_id)
        folder.mkdir(parents=True, exist_ok=True)
        return folder / f"{_SAFE.sub('_', stem)}{suffix}"

    def commit_audio(self, profile: str, episode_id: str, audio: Path, url: str) -> list[str]:
        """Record a downloaded audio file (now at ``audio``) and evict what the cap no longer
        holds; returns the ids of the episodes removed."""
        with self._lock:
            folder = self.folder(profile, episode_id)
            entry = self._entry(folder) or {}
            old = entry.get("audio_file")
            if isinstance(old, str) and old and old != audio.name:
                (folder / old).unlink(missing_ok=True)
            entry.update(audio_file=audio.name, audio_key=audio_key(url), used=time.time())
            self._put_entry(folder, entry)
            return self._evict(keep=folder)

    def remove(self, profile: str, episode_id: str) -> None:
        with self._lock:
            shutil.rmtree(self.folder(profile, episode_id), ignore_errors=True)

    # --- size --------------------------------------------------------------------------------------------------

    def entries(self) -> list[CachedEpisode]:
        """Every cached episode of every profile, least recently used first."""
        found: list[CachedEpisode] = []
        if not self.root.is_dir():
            return found
        for profile_dir in self.root.iterdir():
            if not profile_dir.is_dir():
                continue
            for folder in profile_dir.iterdir():
                entry = self._entry(folder) if folder.is_dir() else None
                if entry is not None:
                    found.append(self._cached(folder.name, folder, entry))
        return sorted(found, key=lambda cached: cached.used)

    def usage(self) -> int:
        return sum(cached.size for cached in self.entries())

    def evict(self) -> list[str]:
        with self._lock:
            return self._evict(keep=None)

    def _evict(self, keep: Path | None) -> list[str]:
        going = over_cap(
            self.entries(),
            cap=self.cap_bytes,
            size=lambda cached: cached.size,
            used=lambda cached: cached.used,
            keep=lambda cached: cached.folder == keep,
        )
        for cached in going:
            shutil.rmtree(cached.folder, ignore_errors=True)
        return [cached.episode_id for cached in going]
