"""A content-addressed cache of the sandbox's renders, which sandboxes may share.

Narrating and encoding are the sandbox's costliest work, and every sandbox started with the demo
content renders the same demo episodes, videos and shorts. With a cache folder
(``--render-cache DIR``, or ``CASTDECK_SANDBOX_RENDER_CACHE``), a render whose input was rendered
before, by this sandbox or another using the folder, is copied from it instead of done again. The
test suite gives all its sandboxes one folder for the run, so the demo is rendered once per run,
not once per sandbox.

The key is everything the output depends on: the render function, the code of the modules that
render (a changed renderer never reuses an old file), and the spec with its output paths reduced
to which outputs are asked for, a slide's image named by a digest of its bytes rather than by its
path. A spec asking to fail is never cached. An entry is written whole in a folder of its own and
renamed into place, so a sandbox reading it never sees half of one. A sandbox about to render an
input that another is rendering waits for that render and copies it (POSIX); where it cannot
wait, both render and the first rename wins. The cache is a convenience: a folder that cannot be
read or written means rendering as without one.

Runs in the worker process, beside the render itself: hashing images and copying files never
touch the server's event loop.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import shutil
import uuid
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

__all__ = ["ENV", "OUTPUTS", "cached_render", "render_key"]

log = logging.getLogger("castdeck.sandbox.render_cache")

ENV = "CASTDECK_SANDBOX_RENDER_CACHE"
"""The environment variable that names the cache folder when ``--render-cache`` is not given."""

OUTPUTS = ("audio_path", "video_path")
"""The spec's members that name files the render writes, and the result's that name them back."""

RESULT = "result.json"


RENDERER = ("render.py", "render_audio.py", "render_drawing.py", "render_mp4.py", "speech.py")
"""The modules whose code decides what a render writes (read as files: nothing is imported)."""


@cache
def _code_digest() -> str:
    """The renderer's own code: a change to it makes every earlier entry a miss."""
    digest = hashlib.sha256()
    for name in RENDERER:
        digest.update(Path(__file__).with_name(name).read_bytes())
    return digest.hexdigest()


def _file_digest(path: str | None) -> str | None:
    if not path:
        return None
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return "missing"  # renders as a slide without its picture: that too is an input


def render_key(function: Callable[..., Any], spec: dict[str, Any]) -> str:
    """The entry's name: a digest of the function, the renderer's code and the spec's content."""
    # where the files go is not an input, but which files are asked for is (an episode with its
    # video is another render than the same episode without)
    content: dict[str, Any] = {k: (v is not None if k in OUTPUTS else v) for k, v in spec.items()}
    if "slides" in spec:
        content["slides"] = [
            {**slide, "image": _file_digest(slide.get("image"))} for slide in spec.get("slides") or []
        ]
    named = f"{function.__module__}.{function.__qualname__}"
    text = json.dumps({"render": named, "code": _code_digest(), "spec": content}, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def cached_render(
    function: Callable[[dict[str, Any]], dict[str, Any]], spec: dict[str, Any], *, folder: str | None
) -> dict[str, Any]:
    """``function(spec)``, or its earlier result from ``folder`` with the files copied to the
    spec's output paths. Without a folder, or for a spec that asks to fail, just the render."""
    if not folder or spec.get("fail"):
        return function(spec)
    try:
        entry = Path(folder) / render_key(function, spec)
        entry.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        log.warning("render cache unusable (%s); rendering", exc)
        return function(spec)
    with _rendering(entry):  # a render of this input under way elsewhere is waited for, then read
        try:
            found = _read(entry, spec)
        except OSError as exc:
            log.warning("render cache unreadable (%s); rendering", exc)
            found = None
        if found is not None:
            return found
        result = function(spec)
        try:
            _store(entry, spec, result)
        except OSError as exc:
            log.warning("render cache not written (%s)", exc)
    return result


@contextlib.contextmanager
def _rendering(entry: Path) -> Iterator[None]:
    """While one process renders an input, another about to render the same waits for it and
    copies its result (two sandboxes started together seed the same demo). A lock on a file of
    the entry's name, which the system lets go when its holder ends, killed too; where there is
    no such lock (Windows) or no lock file can be made, each renders on its own."""
    try:
        import fcntl
    except ImportError:
        yield
        return
    try:
        handle = open(entry.with_name(f".{entry.name}.lock"), "a+b")  # noqa: SIM115
    except OSError:
        yield
        return
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _read(entry: Path, spec: dict[str, Any]) -> dict[str, Any] | None:
    try:
        stored = json.loads((entry / RESULT).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except ValueError:
        return None  # not a whole entry (written by hand?): render, and leave it be
    result = dict(stored)
    for member in OUTPUTS:
        if stored.get(member) is None:
            continue
        target = Path(str(spec[member]))
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.{uuid.uuid4().hex}")
        shutil.copyfile(entry / member, partial)
        os.replace(partial, target)
        result[member] = str(target)
    return result


def _store(entry: Path, spec: dict[str, Any], result: dict[str, Any]) -> None:
    if entry.exists():
        return
    entry.parent.mkdir(parents=True, exist_ok=True)
    building = entry.with_name(f".{entry.name}.{uuid.uuid4().hex}")
    building.mkdir()
    try:
        stored = dict(result)
        for member in OUTPUTS:
            written = result.get(member)
            if written is not None:
                shutil.copyfile(written, building / member)
                stored[member] = member
        (building / RESULT).write_text(json.dumps(stored), encoding="utf-8")
        try:
            os.rename(building, entry)
        except OSError:
            if not entry.exists():
                raise
            # another sandbox stored the same render first: theirs stays
    finally:
        shutil.rmtree(building, ignore_errors=True)
