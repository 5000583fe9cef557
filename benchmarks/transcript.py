"""Transcript sync on a 75-minute episode (about 11,000 words, synthesized timestamps, a silent
75-minute audio file played by the real QMediaPlayer).

    uv run python benchmarks/transcript.py [--words 11000] [--minutes 75] [--seconds 60]

Figures, each beside its baseline run side by side:
- open to first paint: the Listen window built and shown with the transcript until the
  transcript's first paint, against a bare QPlainTextEdit given the same text;
- cost of one sync tick (the 16 ms frame handler: clock, binary search, highlight, follow
  scroll, player bar), median and 99th percentile, against the frame timer's period;
- highlight lag: when each word lit up against when the true position (a least-squares line
  through the backend's position reports) reached the word's start;
- the longest event-loop stall during the playback with follow mode on (a 1 ms probe timer),
  against the same window idle for as long.
Targets: open under 200 ms, tick under 0.5 ms, lag under 50 ms, no stall over 16 ms.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import wave
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from PySide6.QtCore import QEvent, QEventLoop, QObject, Qt, QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication, QPlainTextEdit  # noqa: E402

from castdeck.services.media_cache import ListenMedia  # noqa: E402
from castdeck.services.settings import Settings  # noqa: E402
from castdeck.transcript import normalise, plan_document  # noqa: E402
from castdeck.ui.listen.listen_window import ListenWindow  # noqa: E402

VOCABULARY = [
    "the",
    "tide",
    "rises",
    "twice",
    "a",
    "day",
    "because",
    "moon",
    "pulls",
    "water",
    "towards",
    "it",
    "and",
    "sun",
    "helps",
    "too",
    "when",
    "both",
    "pull",
    "together",
    "we",
    "get",
    "spring",
    "tides",
    "highest",
    "of",
    "all",
    "neap",
    "come",
    "at",
    "right",
    "angles",
    "range",
    "is",
    "smaller",
    "harbour",
    "stays",
    "calm",
    "turbines",
    "barrages",
    "lagoons",
    "estuary",
    "energy",
    "predictable",
    "calendar",
    "grid",
    "planners",
]


def synthesize(words: int, seconds: float, seed: int = 7) -> dict[str, object]:
    """``words`` words spread over ``seconds``, three speakers, turns of 10 to 120 words."""
    rng = random.Random(seed)
    step = seconds / words
    out = []
    speaker, left = 0, rng.randint(10, 120)
    for i in range(words):
        if left == 0:
            speaker, left = (speaker + rng.randint(1, 2)) % 3, rng.randint(10, 120)
        left -= 1
        text = rng.choice(VOCABULARY) + ("." if rng.random() < 0.08 else "")
        start = i * step + rng.uniform(0, step * 0.2)
        out.append(
            {"start": round(start, 3), "end": round(start + step * 0.75, 3), "speaker": speaker, "text": text}
        )
    speakers = [
        {"host_id": f"h{i}", "name": name}
        for i, name in enumerate(("Alex Rivera", "Priya Natarajan", "Sam Okafor"))
    ]
    return {"episode_id": "benchmark", "speakers": speakers, "words": out}


def silent_wav(path: Path, seconds: float, rate: int = 8000) -> None:
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(1)
        out.setframerate(rate)
        chunk = b"\x80" * rate * 60
        for _ in range(int(seconds // 60)):
            out.writeframes(chunk)
        out.writeframes(b"\x80" * int(rate * (seconds % 60)))


def wait(ms: int) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def wait_for(predicate: Callable[[], bool], timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise SystemExit("benchmark: a condition was not met in time")
        wait(5)


class FirstPaint(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.at: float | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if event.type() == QEvent.Type.Paint and self.at is None:
            self.at = time.perf_counter()
        return False


def first_paint(build: Callable[[], object], viewport_of: Callable[[object], object]) -> float:
    """Milliseconds from ``build()`` until the widget's viewport first paints."""
    probe = FirstPaint()
    start = time.perf_counter()
    widget = build()
    viewport_of(widget).installEventFilter(probe)  # type: ignore[attr-defined]
    wait_for(lambda: probe.at is not None)
    assert probe.at is not None
    elapsed = (probe.at - start) * 1000
    widget.close()  # type: ignore[attr-defined]
    widget.deleteLater()  # type: ignore[attr-defined]
    wait(50)
    return elapsed


class StallProbe:
    """A 1 ms precise timer: the longest gap between its ticks, beyond its period, is a stall."""

    def __init__(self) -> None:
        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(1)
        self.timer.timeout.connect(self._tick)
        self.gaps: list[float] = []
        self._last = 0.0

    def _tick(self) -> None:
        now = time.perf_counter()
        if self._last:
            self.gaps.append((now - self._last) * 1000)
        self._last = now

    def run(self, ms: int) -> list[float]:
        self.gaps, self._last = [], 0.0
        self.timer.start()
        wait(ms)
        self.timer.stop()
        return self.gaps


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(len(ordered) * p), len(ordered) - 1)]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--words", type=int, default=11_000)
    parser.add_argument("--minutes", type=float, default=75.0)
    parser.add_argument("--seconds", type=float, default=60.0, help="playback (and idle) time measured")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    duration = args.minutes * 60
    payload = synthesize(args.words, duration - 5)
    transcript = normalise(payload)
    folder = Path(tempfile.mkdtemp(prefix="castdeck-bench-"))
    audio = folder / "episode.wav"
    silent_wav(audio, duration)
    media = ListenMedia("benchmark", audio, transcript, offline=False, from_cache=True)
    text = plan_document(transcript).text
    print(f"episode: {len(transcript.words):,} words, {len(plan_document(transcript).blocks)} paragraphs, "
          f"{duration / 60:.0f} min of audio ({audio.stat().st_size / 1e6:.0f} MB WAV)")  # fmt: skip

    # 1. open to first paint, against a bare QPlainTextEdit with the same text
    def listen() -> ListenWindow:
        # the media is given directly below: the window needs of its service only the settings
        offline = SimpleNamespace(session=SimpleNamespace(runtime=SimpleNamespace(settings=Settings())))
        window = ListenWindow(offline)  # type: ignore[arg-type]
        window.resize(960, 680)
        window.show()
        window.show_media(media)
        return window

    def bare() -> QPlainTextEdit:
        edit = QPlainTextEdit()
        edit.resize(960, 680)
        edit.show()
        edit.setPlainText(text)
        return edit

    first_paint(listen, lambda w: w.view.viewport())  # warm-up (fonts, styles, the media backend)
    first_paint(bare, lambda w: w.viewport())
    opened = [first_paint(listen, lambda w: w.view.viewport()) for _ in range(args.repeats)]
    baseline = [first_paint(bare, lambda w: w.viewport()) for _ in range(args.repeats)]
    open_ms, bare_ms = statistics.median(opened), statistics.median(baseline)

    # 2-4. playback with follow mode on, from the middle of the episode
    window = listen()
    wait_for(lambda: window.playback.duration > 0)
    playback = window.playback
    ticks: list[float] = []
    playback.timer.timeout.disconnect(playback._frame)

    def timed_frame() -> None:
        start = time.perf_counter()
        playback._frame()
        ticks.append((time.perf_counter() - start) * 1000)

    playback.timer.timeout.connect(timed_frame)
    reports: list[tuple[float, float]] = []
    lit: list[tuple[float, int]] = []
    recording = [False]

    def reported(ms: int) -> None:
        if recording[0]:
            reports.append((time.perf_counter(), ms / 1000))

    def changed(index: int) -> None:
        if recording[0]:
            lit.append((time.perf_counter(), index))

    playback.player.positionChanged.connect(reported)
    window.view.currentWordChanged.connect(changed)
    probe = StallProbe()
    idle_gaps = probe.run(int(args.seconds * 1000 / 4))  # warm the probe, then the measured idle run below
    playback.seek(duration / 2)
    playback.play()
    wait_for(lambda: playback.playing)
    wait(300)
    ticks.clear()
    recording[0] = True
    play_gaps = probe.run(int(args.seconds * 1000))
    recording[0] = False
    words_passed = len(lit)
    playback.pause()
    wait_for(lambda: not playback.playing)
    scrolled_to = window.view.verticalScrollBar().value()
    idle_gaps = probe.run(int(args.seconds * 1000))
    window.close()

    # highlight lag: the true position is the least-squares line through the backend's reports
    xs, ys = [t for t, _ in reports], [p for _, p in reports]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)
    lags = [(t - (mx + (transcript.words[i].start - my) / slope)) * 1000 for t, i in lit if i >= 0]
    residual = max(abs(y - (my + slope * (x - mx))) for x, y in zip(xs, ys, strict=True)) * 1000

    def ratio(a: float, b: float) -> str:
        return f"{a / b:.2f}x" if b else "n/a"

    tick_median, tick_p99 = statistics.median(ticks), percentile(ticks, 0.99)
    lag_median, lag_p99 = statistics.median(lags), percentile([abs(v) for v in lags], 0.99)
    play_stall, idle_stall = max(play_gaps) - 1, max(idle_gaps) - 1
    print()
    print(
        f"open to first paint     {open_ms:7.1f} ms   bare QPlainTextEdit {bare_ms:7.1f} ms   "
        f"ratio {ratio(open_ms, bare_ms)}   target < 200 ms  {'OK' if open_ms < 200 else 'MISSED'}"
    )
    print(
        f"sync tick (median)      {tick_median:7.3f} ms   frame period 16 ms   "
        f"ratio {ratio(tick_median, 16)}   target < 0.5 ms  {'OK' if tick_median < 0.5 else 'MISSED'}"
    )
    print(
        f"sync tick (p99, max)    {tick_p99:7.3f} ms   {max(ticks):7.3f} ms   ({len(ticks):,} ticks, "
        f"{words_passed} word changes)   target < 0.5 ms  {'OK' if tick_p99 < 0.5 else 'MISSED'}"
    )
    print(
        f"highlight lag (median)  {lag_median:7.1f} ms   p99 of |lag| {lag_p99:6.1f} ms   "
        f"(position reports {len(reports)}, clock {slope:.4f} s/s, report scatter {residual:.0f} ms)   "
        f"target < 50 ms  {'OK' if lag_p99 < 50 else 'MISSED'}"
    )
    print(
        f"longest stall, playing {play_stall:7.1f} ms   idle {idle_stall:7.1f} ms   "
        f"ratio {ratio(play_stall, idle_stall)}   p99 gap {percentile(play_gaps, 0.99):.2f} vs "
        f"{percentile(idle_gaps, 0.99):.2f} ms   target < 16 ms  {'OK' if play_stall < 16 else 'MISSED'}"
    )
    print(
        f"(follow mode scrolled the view to line {scrolled_to:,}; {args.seconds:.0f} s playing, {args.seconds:.0f} s idle)"
    )
    audio.unlink()
    folder.rmdir()
    del app


if __name__ == "__main__":
    main()
