"""Media work with PyAV, done in a short-lived child process and never in the test process.

PyAV (``av``) bundles its own FFmpeg (libavcodec 62); QtMultimedia's FFmpeg backend (libavcodec 61)
plays media in the test process. Two FFmpeg builds in one process are a risk we keep out (the
soak crashed four times out of four with both loaded, though a crash was later seen without PyAV
too), so the test process never imports ``av`` (tests/conftest.py fails a test that loads it). Tests make and inspect media through this module instead:

* :func:`mp3_bytes` — a short MP3 (a 440 Hz tone) made in the child;
* :func:`probe` — decode a file (bytes or a path) fully in the child and return plain data:
  :class:`MediaProbe` with the container's format and duration and, per stream, its kind, codec,
  duration, and what decoding it gave (audio: samples, seconds, RMS; video: frames, first frame's
  size and pixel format, last frame time);
* :func:`in_child` — call any importable function in the child (for example
  ``castdeck.sandbox.render.encode_mp3``), its arguments and result pickled across.

The child is ``python -m tests.media_child``: it reads a pickled request from standard input
(``(module, qualified name, args, kwargs)``), calls the function and writes the pickled outcome,
the result or the text of the exception, to the standard output it was started with; anything the
function prints goes to standard error. PyAV is imported only inside the functions that run in the
child.
"""

from __future__ import annotations

import importlib
import io
import os
import pickle
import subprocess
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
TIMEOUT = 180.0  # seconds a child may take (rendering or decoding a few minutes of media takes seconds)
STDERR_TAIL = 4000  # characters of the child's standard error quoted when it fails

T = TypeVar("T")


class MediaChildFailed(RuntimeError):
    """The function failed in the child process (or the child itself did)."""


# --- the parent's side --------------------------------------------------------------------------------------


def run_in_child(
    function: Callable[..., T],
    args: tuple[Any, ...] = (),
    kwargs: dict[str, Any] | None = None,
    *,
    timeout: float = TIMEOUT,
) -> T:
    """``function(*args, **kwargs)`` in a fresh ``python -m tests.media_child``; its result.

    ``function`` must be importable by its module and qualified name (no lambdas or local functions);
    the arguments and the result must pickle. Raises :class:`MediaChildFailed` with the child's
    traceback and the tail of its standard error when the call raises, the child dies or times out.
    """
    module, name = function.__module__, function.__qualname__
    if module == "__main__" or "<" in name:
        raise ValueError(f"{module}.{name} cannot be called in a child process: import it from a module")
    request = pickle.dumps((module, name, tuple(args), dict(kwargs or {})))
    what = f"{module}.{name}"
    try:
        done = subprocess.run(
            [sys.executable, "-m", "tests.media_child"],
            cwd=ROOT,
            input=request,
            capture_output=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise MediaChildFailed(
            f"{what} did not finish within {timeout:.0f} s in the media child process"
            f"{_tail(exc.stderr if isinstance(exc.stderr, bytes) else b'')}"
        ) from None
    try:
        outcome = pickle.loads(done.stdout)  # noqa: S301 - our own child's answer
    except Exception:
        raise MediaChildFailed(
            f"the media child process running {what} exited with status {done.returncode} "
            f"without an answer{_tail(done.stderr)}"
        ) from None
    status, value = outcome
    if status != "ok":
        raise MediaChildFailed(f"{what} failed in the media child process:\n{value}{_tail(done.stderr)}")
    result: T = value
    return result


def in_child(function: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``function(*args, **kwargs)`` run in a child process (see :func:`run_in_child`)."""
    return run_in_child(function, args, kwargs)


def _tail(stderr: bytes | None) -> str:
    text = (stderr or b"").decode("utf-8", errors="replace").strip()
    if not text:
        return ""
    return f"\n--- the child's standard error (tail) ---\n{text[-STDERR_TAIL:]}"


# --- plain data about a media file --------------------------------------------------------------------------


@dataclass(frozen=True)
class StreamProbe:
    """One stream of a container, and what decoding all of it gave (audio and video streams)."""

    index: int
    kind: str  # the stream's type: "audio", "video", "data", "subtitle"...
    codec: str | None  # the decoder's name (``stream.codec_context.name``)
    duration: float | None  # seconds (``stream.duration * stream.time_base``), when the stream says
    # audio
    rate: int = 0
    channels: int = 0
    samples: int = 0  # decoded samples per channel
    sample_format: str | None = None  # the first decoded frame's (``fltp``, ``s16p``...)
    rms: float = 0.0  # over every decoded sample, on the 16-bit scale (float samples times 32767)
    # video
    width: int = 0  # the stream's
    height: int = 0
    frames: int = 0  # decoded frames
    first_width: int = 0  # the first decoded frame's
    first_height: int = 0
    first_format: str | None = None
    timed_frames: int = 0  # decoded frames that have a time
    last_time: float | None = None  # the latest frame time, seconds

    @property
    def seconds(self) -> float:
        """Decoded audio length: samples over the stream's rate."""
        return self.samples / float(self.rate) if self.rate else 0.0


@dataclass(frozen=True)
class MediaProbe:
    format_name: str  # the container format (``container.format.name``: "mp3", "mov,mp4,m4a,3gp,3g2,mj2")
    duration: float | None  # the container's duration in seconds, None when it does not say
    streams: list[StreamProbe] = field(default_factory=list)

    @property
    def audio(self) -> list[StreamProbe]:
        return [s for s in self.streams if s.kind == "audio"]

    @property
    def video(self) -> list[StreamProbe]:
        return [s for s in self.streams if s.kind == "video"]


def probe(media: bytes | str | Path, *, timeout: float = TIMEOUT) -> MediaProbe:
    """Open ``media`` (its bytes, or a path) in a child process and decode every audio and video stream."""
    return run_in_child(
        probe_here, (bytes(media) if isinstance(media, bytes | bytearray) else str(media),), timeout=timeout
    )


def mp3_bytes(seconds: float = 1.0, rate: int = 22050) -> bytes:
    """A mono MP3 of a 440 Hz tone, ``seconds`` long at ``rate`` Hz, made in a child process."""
    return run_in_child(mp3_bytes_here, (seconds, rate))


# --- what runs in the child (these import PyAV: never call them in the test process) ------------------------


def probe_here(media: bytes | str) -> MediaProbe:
    import av
    import numpy as np

    source: Any = io.BytesIO(media) if isinstance(media, bytes) else media
    with av.open(source, mode="r") as container:
        streams = list(container.streams)
        decoded = [s for s in streams if s.type in ("audio", "video")]
        audio: dict[int, dict[str, Any]] = {}
        video: dict[int, dict[str, Any]] = {}
        for stream in decoded:
            if stream.type == "audio":
                audio[stream.index] = {"samples": 0, "format": None, "squares": 0.0, "values": 0}
            else:
                video[stream.index] = {"frames": 0, "first": None, "timed": 0, "last": None}
        for packet in container.demux(*decoded) if decoded else ():
            for frame in packet.decode():
                index = packet.stream.index
                if index in audio:
                    seen = audio[index]
                    if seen["format"] is None:
                        seen["format"] = frame.format.name
                    seen["samples"] += int(frame.samples)
                    scale = 32767.0 if seen["format"].startswith(("flt", "dbl")) else 1.0
                    values = frame.to_ndarray().astype(np.float64).ravel() * scale
                    seen["squares"] += float(np.sum(values**2))
                    seen["values"] += values.size
                else:
                    seen = video[index]
                    seen["frames"] += 1
                    if seen["first"] is None:
                        seen["first"] = (frame.width, frame.height, frame.format.name)
                    if frame.time is not None:
                        seen["timed"] += 1
                        seen["last"] = frame.time if seen["last"] is None else max(seen["last"], frame.time)
        out = []
        for stream in streams:
            duration = (
                float(stream.duration * stream.time_base)
                if stream.duration is not None and stream.time_base is not None
                else None
            )
            codec = stream.codec_context.name if stream.type in ("audio", "video") else None
            decoded_as: dict[str, Any] = {}  # what decoding the stream gave, by its kind
            if stream.index in audio:
                seen = audio[stream.index]
                decoded_as = {
                    "rate": int(stream.rate),
                    "channels": int(stream.channels),
                    "samples": seen["samples"],
                    "sample_format": seen["format"],
                    "rms": float(np.sqrt(seen["squares"] / seen["values"])) if seen["values"] else 0.0,
                }
            elif stream.index in video:
                seen = video[stream.index]
                first = seen["first"] or (0, 0, None)
                decoded_as = {
                    "width": int(stream.width),
                    "height": int(stream.height),
                    "frames": seen["frames"],
                    "first_width": first[0],
                    "first_height": first[1],
                    "first_format": first[2],
                    "timed_frames": seen["timed"],
                    "last_time": float(seen["last"]) if seen["last"] is not None else None,
                }
            out.append(StreamProbe(stream.index, stream.type, codec, duration, **decoded_as))
        return MediaProbe(
            format_name=container.format.name,
            duration=container.duration / 1e6 if container.duration is not None else None,
            streams=out,
        )


def mp3_bytes_here(seconds: float = 1.0, rate: int = 22050) -> bytes:
    import av
    import numpy as np

    buffer = io.BytesIO()
    with av.open(buffer, "w", format="mp3") as container:
        stream = container.add_stream("libmp3lame", rate=rate)
        stream.layout = "mono"
        t = np.arange(int(rate * seconds)) / rate
        samples = (np.sin(2 * np.pi * 440 * t) * 0.3).astype("float32").reshape(1, -1)
        frame = av.AudioFrame.from_ndarray(samples, format="fltp", layout="mono")
        frame.sample_rate = rate
        for packet in stream.encode(frame):
            container.mux(packet)
        for packet in stream.encode(None):
            container.mux(packet)
    return buffer.getvalue()


# --- the child ----------------------------------------------------------------------------------------------


def _child() -> int:
    answer = os.fdopen(os.dup(1), "wb")  # the pickled outcome goes here, and nothing else
    os.dup2(2, 1)  # whatever the function prints (Python or C) goes to standard error
    sys.stdout = sys.stderr
    try:
        module, name, args, kwargs = pickle.loads(sys.stdin.buffer.read())  # noqa: S301 - from our parent
        target: Any = importlib.import_module(module)
        for part in name.split("."):
            target = getattr(target, part)
        outcome: tuple[str, Any] = ("ok", target(*args, **kwargs))
        payload = pickle.dumps(outcome)
    except BaseException:
        payload = pickle.dumps(("error", traceback.format_exc()))
    answer.write(payload)
    answer.close()
    return 0


if __name__ == "__main__":
    sys.exit(_child())
