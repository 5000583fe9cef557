"""The script editor on the largest script the service takes: 75,000 characters, 600 turns.

    uv run python benchmarks/script_editor.py [--keys 300] [--opens 7]

Figures, side by side with a bare QPlainTextEdit holding the same text in a window of the same size:

* open to painted: from asking the Scripts workspace to open the draft (read from the drafts file,
  highlighted, checked, counted, its panels filled; the parsed-line caches emptied first, as at
  the first open after a start) to the editor's first paint of it; the bare editor: from
  ``setPlainText`` to its first paint.
* keystroke to repainted: one key typed in the middle of the script (letters, spaces, full stops
  and now and then Enter), through the highlighter, the problems (underlines and the list), the
  counts and the autosave request, to the editor repainted (``repaint()``, synchronous); the bare
  editor: the key and its repaint.

Targets: open under 100 ms; keystroke 95th percentile under 16 ms (one frame at 60 Hz). The outline,
speakers and structured view follow typing after a 250 ms pause and are not part of a keystroke.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QEvent, QObject, Qt  # noqa: E402
from PySide6.QtGui import QTextCursor  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication, QPlainTextEdit  # noqa: E402

from castdeck.scripts import analyze  # noqa: E402
from castdeck.scripts.estimate import speaking_seconds, word_count  # noqa: E402
from castdeck.scripts.lines import classify_line  # noqa: E402
from castdeck.services.background import Background  # noqa: E402
from castdeck.services.event_loop import new_event_loop  # noqa: E402
from castdeck.services.profiles import Profile  # noqa: E402
from castdeck.services.runtime import Runtime  # noqa: E402
from castdeck.services.session import Session  # noqa: E402
from castdeck.store.cache import Cache  # noqa: E402
from castdeck.ui.scripts.pane import ScriptsPane  # noqa: E402

CHARS, TURNS, CHAPTERS = 75_000, 600, 10
SPEAKERS = ("Alex", "Priya", "Maya", "Oliver")
WORDS = str.split(
    "the tide comes in and goes out twice a day because the moon pulls on the oceans, and the keepers of the "
    "lighthouse wrote it down every night (laughs) for two hundred years."
)
KEYS = "abcdefghij klmnopq rstuvw. xyz, "


def big_script() -> str:
    """Exactly CHARS characters in CHAPTERS chapters of TURNS turns in all."""
    headings = [f"# Chapter {c + 1}\n" for c in range(CHAPTERS)]
    labels = [f"[{SPEAKERS[i % len(SPEAKERS)]}]\n" for i in range(TURNS)]
    spoken = CHARS - sum(map(len, headings)) - sum(map(len, labels)) - TURNS  # each turn ends with "\n"
    sizes = [spoken // TURNS + (1 if i < spoken % TURNS else 0) for i in range(TURNS)]
    words = itertools.cycle(WORDS)
    parts: list[str] = []
    for index, (label, size) in enumerate(zip(labels, sizes, strict=True)):
        if index % (TURNS // CHAPTERS) == 0:
            parts.append(headings[index // (TURNS // CHAPTERS)])
        text = ""
        while len(text) < size:
            text += next(words) + " "
        parts.append(f"{label}{text[: size - 1]}.\n")
    return "".join(parts)


class PaintWatch(QObject):
    """The time of the first paint of an editor once it holds the big script (not a paint of what
    it showed before)."""

    def __init__(self, editor: QPlainTextEdit) -> None:
        super().__init__()
        self.editor = editor
        self.painted_at: float | None = None

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.Paint
            and self.painted_at is None
            and self.editor.document().characterCount() >= CHARS
        ):
            self.painted_at = time.perf_counter()
        return False


async def painted(watch: PaintWatch, timeout: float = 10.0) -> float:
    deadline = time.perf_counter() + timeout
    while watch.painted_at is None:
        if time.perf_counter() > deadline:
            raise TimeoutError("no paint")
        await asyncio.sleep(0)
    return watch.painted_at


def forget_parsed_lines() -> None:
    classify_line.cache_clear()
    speaking_seconds.cache_clear()
    word_count.cache_clear()


def stats(values: list[float]) -> tuple[float, float]:
    ordered = sorted(values)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def type_keys(editor: QPlainTextEdit, count: int) -> list[float]:
    """Type ``count`` keys at places spread over the middle of the script; ms per key and repaint."""
    times: list[float] = []
    length = len(editor.toPlainText())
    for index in range(count):
        if index % 40 == 0:  # move to another place now and then, as a writer does
            cursor = editor.textCursor()
            cursor.setPosition(int(length * (0.3 + 0.4 * ((index * 7919) % 97) / 97)))
            cursor.movePosition(QTextCursor.MoveOperation.EndOfBlock)
            editor.setTextCursor(cursor)
            editor.centerCursor()
            editor.viewport().repaint()
        start = time.perf_counter()
        if index % 25 == 24:
            QTest.keyClick(editor, Qt.Key.Key_Return)
        else:
            QTest.keyClicks(editor, KEYS[index % len(KEYS)])
        editor.viewport().repaint()
        times.append((time.perf_counter() - start) * 1000)
    return times


async def run(keys: int, opens: int) -> None:
    text = big_script()
    analysis = analyze(text, check_speakers=False)
    assert len(text) == CHARS and analysis.script.segment_count == TURNS, (
        len(text),
        analysis.script.segment_count,
    )
    assert not analysis.blocking("generate"), analysis.blocking("generate")[:3]
    folder = Path(tempfile.mkdtemp(prefix="castdeck-bench-"))
    cache = Cache(folder / "cache.sqlite3")
    session = Session(
        Profile("Offline", "http://127.0.0.1:9"), "sk_bench", cache, runtime=Runtime.build()
    )  # nothing listens: offline
    background = Background(session, folder / "background")
    pane = ScriptsPane(session, background)
    pane.resize(1400, 900)
    pane.show()
    pane.activate()
    await asyncio.sleep(0.5)
    big = await background.drafts.create(text)
    small = await background.drafts.create("[Alex]\nA short one.\n")
    bare = QPlainTextEdit()
    bare.resize(pane.editor.size())
    bare.show()

    workspace_open: list[float] = []
    bare_open: list[float] = []
    for _ in range(opens):
        await pane.open_draft(small.id)
        await asyncio.sleep(0.05)
        watch = PaintWatch(pane.editor)
        pane.editor.viewport().installEventFilter(watch)
        forget_parsed_lines()  # as at the first open after a start: nothing of the script is known yet
        start = time.perf_counter()
        await pane.open_draft(big.id)
        workspace_open.append((await painted(watch) - start) * 1000)
        pane.editor.viewport().removeEventFilter(watch)
        bare.setPlainText("")
        await asyncio.sleep(0.05)
        watch = PaintWatch(bare)
        bare.viewport().installEventFilter(watch)
        start = time.perf_counter()
        bare.setPlainText(text)
        bare_open.append((await painted(watch) - start) * 1000)
        bare.viewport().removeEventFilter(watch)

    await asyncio.sleep(0.3)
    workspace_keys = type_keys(pane.editor, keys)
    bare_keys = type_keys(bare, keys)
    problems = len(pane.analysis.problems) if pane.analysis else -1

    wo, wo95 = stats(workspace_open)
    bo, bo95 = stats(bare_open)
    wk, wk95 = stats(workspace_keys)
    bk, bk95 = stats(bare_keys)
    print(f"script: {len(text):,} characters, {analysis.script.segment_count} turns, "
          f"{len(analysis.script.chapters)} chapters; {problems} problems after typing")  # fmt: skip
    print(f"open to painted, {opens} runs (ms):     workspace median {wo:6.1f}  p95 {wo95:6.1f}   |   "
          f"bare QPlainTextEdit median {bo:6.1f}  p95 {bo95:6.1f}   |   ratio {wo / bo:4.1f}x")  # fmt: skip
    print(f"keystroke to repainted, {keys} keys (ms): workspace median {wk:6.2f}  p95 {wk95:6.2f}   |   "
          f"bare QPlainTextEdit median {bk:6.2f}  p95 {bk95:6.2f}   |   ratio {wk / bk:4.1f}x")  # fmt: skip
    print(f"targets: open < 100 ms: {'met' if wo < 100 else 'MISSED'} ({wo:.1f}); "
          f"keystroke p95 < 16 ms: {'met' if wk95 < 16 else 'MISSED'} ({wk95:.2f})")  # fmt: skip

    bare.close()
    pane.close()
    await background.drafts.flush()
    await background.close()
    await session.close()
    await session.tasks.cancel_all()
    cache.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keys", type=int, default=300)
    parser.add_argument("--opens", type=int, default=7)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setQuitOnLastWindowClosed(False)
    with asyncio.Runner(loop_factory=lambda: new_event_loop(app)) as runner:
        runner.run(run(args.keys, args.opens))


if __name__ == "__main__":
    main()
