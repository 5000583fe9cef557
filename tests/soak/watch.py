"""What the soak watches while the app runs: unhandled exceptions, Qt warnings, event-loop stalls
and memory.

* :class:`Problems` records every exception that reaches ``sys.excepthook`` (slots, tasks started
  through ``castdeck.services.tasks``) or the asyncio loop's exception handler (a task whose error
  nobody retrieved, a callback that raised), and every Qt message of level warning or above. It
  passes each on to the handler it replaced (pytest-qt's, the app's), so nothing is hidden.
  Platform noise is left out with exactly the patterns of pyproject's ``qt_log_ignore`` (read
  from pyproject.toml, so the soak and the test suite ignore the same lines and nothing more).
* :class:`StallProbe` is a 5 ms QTimer (as benchmarks/episodes_scale.py measures): the longest gap
  between its ticks beyond 5 ms is the longest stall, attributed to the step that was running.
* :func:`rss_mib` is the process's resident memory.
"""

from __future__ import annotations

import asyncio
import faulthandler
import re
import sys
import tempfile
import threading
import time
import tomllib
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from PySide6.QtCore import QMessageLogContext, QObject, QTimer, QtMsgType, qInstallMessageHandler

__all__ = ["Problems", "StallProbe", "qt_log_ignore", "rss_mib", "sqlite_mib"]

ROOT = Path(__file__).resolve().parents[2]


def qt_log_ignore() -> list[str]:
    """The suite's ignore list of Qt messages (pyproject.toml, ``[tool.pytest.ini_options]``)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return list(config["tool"]["pytest"]["ini_options"].get("qt_log_ignore", []))


def sqlite_mib() -> float | None:
    """Memory SQLite holds in this process (its page caches, statements), or None where the
    library does not say (``sqlite3_memory_used``)."""
    import _sqlite3
    import ctypes

    try:
        used = ctypes.CDLL(_sqlite3.__file__).sqlite3_memory_used
    except (OSError, AttributeError):
        return None
    used.restype = ctypes.c_int64
    return int(used()) / 2**20


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@dataclass
class Problem:
    kind: str  # "exception", "asyncio", "qt"
    text: str
    step: str


@dataclass
class Problems:
    """Install with :meth:`install`, remove with :meth:`remove` (the replaced handlers come back)."""

    step: Callable[[], str] = lambda: "-"
    found: list[Problem] = field(default_factory=list)
    ignored_qt: dict[str, int] = field(default_factory=dict)
    _patterns: list[re.Pattern[str]] = field(default_factory=list)
    _hook: Any = None
    _qt_previous: Any = None
    _loop: asyncio.AbstractEventLoop | None = None
    _loop_previous: Any = None

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        self._patterns = [re.compile(p) for p in qt_log_ignore()]
        self._hook = sys.excepthook
        sys.excepthook = self._excepthook
        self._loop, self._loop_previous = loop, loop.get_exception_handler()
        loop.set_exception_handler(self._loop_error)
        self._qt_previous = qInstallMessageHandler(self._qt_message)

    def remove(self) -> None:
        if self._hook is not None and sys.excepthook == self._excepthook:
            sys.excepthook = self._hook
        if self._loop is not None and not self._loop.is_closed():
            self._loop.set_exception_handler(self._loop_previous)
        qInstallMessageHandler(self._qt_previous)

    @property
    def exceptions(self) -> list[Problem]:
        return [p for p in self.found if p.kind != "qt"]

    @property
    def qt_warnings(self) -> list[Problem]:
        return [p for p in self.found if p.kind == "qt"]

    def _excepthook(self, kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
        text = "".join(traceback.format_exception(kind, error, tb))
        self.found.append(Problem("exception", text, self.step()))
        if self._hook is not None:
            self._hook(kind, error, tb)

    def _loop_error(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        error = context.get("exception")
        text = str(context.get("message", ""))
        if isinstance(error, BaseException):
            text += "\n" + "".join(traceback.format_exception(type(error), error, error.__traceback__))
        self.found.append(Problem("asyncio", text, self.step()))
        if self._loop_previous is not None:
            self._loop_previous(loop, context)
        else:
            loop.default_exception_handler(context)

    def _qt_message(self, kind: QtMsgType, context: QMessageLogContext, message: str) -> None:
        if kind not in (QtMsgType.QtDebugMsg, QtMsgType.QtInfoMsg):
            pattern = next((p.pattern for p in self._patterns if p.search(message)), None)
            if pattern is not None:
                self.ignored_qt[pattern] = self.ignored_qt.get(pattern, 0) + 1
            else:
                self.found.append(Problem("qt", f"{kind.name}: {message}", self.step()))
        if self._qt_previous is not None:
            self._qt_previous(kind, context, message)


def _thread_block(dump: str, thread_id: int) -> str:
    """The block of one thread in a faulthandler dump ("Current thread 0x…" or "Thread 0x…")."""
    wanted = f"0x{thread_id:016x}"
    blocks = dump.split("\n\n")
    return next((b for b in blocks if wanted in b.splitlines()[0]), "") if blocks else ""


class StallProbe(QObject):
    """A 5 ms timer; a gap between ticks beyond 5 ms is a stall, noted against the running step.

    A watchdog thread looks every 10 ms; once a stall has lasted 60 ms it notes where the loop's
    thread is (its Python stack), so the report can say what the longest stall was doing (as far as
    Python sees: a stall inside Qt shows the Python call that entered it)."""

    def __init__(self, step: Callable[[], str]) -> None:
        super().__init__()
        self._thread_id = threading.get_ident()
        self._watching = threading.Event()
        self._stacks: list[tuple[float, str]] = []  # (when seen, stack) during the current stall
        self.step = step
        self.timer = QTimer(self)
        self.timer.setObjectName("soak stall probe")
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)
        self.last = 0.0
        self.worst = 0.0
        self.worst_step = "-"
        self.per_step: dict[str, float] = {}
        self.over_50ms = 0
        self.over_50ms_by_step: dict[str, int] = {}
        self.longest: list[tuple[float, str, str]] = []
        """The five longest stalls: (seconds, step, the loop thread's Python stack during it)."""
        self._step_then = "-"
        self._paused = False

    def start(self) -> None:
        self.last = time.perf_counter()
        self._step_then = self.step()
        self.timer.start()
        self._watching.set()
        threading.Thread(target=self._watch, name="soak stall watchdog", daemon=True).start()

    def stop(self) -> None:
        self.timer.stop()
        self._watching.clear()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """The driver's own work (a full garbage collection before reading the memory) is no stall."""
        self.timer.stop()
        self._paused = True
        try:
            yield
        finally:
            self.last = time.perf_counter()
            self._stacks = []
            self._step_then = self.step()
            self._paused = False
            self.timer.start()

    def _watch(self) -> None:
        """Once a stall has lasted 60 ms, dump the threads' stacks with faulthandler (made for a
        watchdog thread: it reads the stacks without touching the stalled thread's frame objects)."""
        dumped_for = -1.0
        while self._watching.is_set():
            time.sleep(0.01)
            last = self.last
            if time.perf_counter() - last > 0.06 and last != dumped_for and not self._paused:
                dumped_for = last
                with tempfile.TemporaryFile("w+") as out:
                    faulthandler.dump_traceback(out, all_threads=True)
                    out.seek(0)
                    self._stacks.append((last, _thread_block(out.read(), self._thread_id)))

    def _tick(self) -> None:
        now = time.perf_counter()
        previous, self.last = self.last, now
        gap = now - previous - 0.005
        stacks, self._stacks = self._stacks, []
        step, self._step_then = self._step_then, self.step()  # the step running when the stall began
        if gap <= 0.001:
            return
        if gap > self.per_step.get(step, 0.0):
            self.per_step[step] = gap
        if gap > 0.05:
            self.over_50ms += 1
            self.over_50ms_by_step[step] = self.over_50ms_by_step.get(step, 0) + 1
            stack = next((stack for began, stack in stacks if began == previous), "")
            self.longest.append((gap, step, stack))
            self.longest = sorted(self.longest, key=lambda x: -x[0])[:5]
        if gap > self.worst:
            self.worst, self.worst_step = gap, step
