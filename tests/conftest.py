"""Shared fixtures: the real sandbox, started as its own process on a free loopback port."""

from __future__ import annotations

import asyncio
import contextlib
import faulthandler
import functools
import gc
import inspect
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import settings

from tests.tls import SHARED_TLS

if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
    sys.dont_write_bytecode = False
"""Where the environment asks Python not to write bytecode (container images often do), the suite
writes it anyway, for this process and every one it starts: the run starts hundreds of Python
processes (workers, sandboxes, the command-line companions, the app), and each would otherwise
compile every module it imports from source again, about half of a sandbox's start-up CPU. The
files go where Python puts them (``__pycache__`` beside each module: the clone and its venv)."""

LAPTOP_SCREEN = Path(__file__).parent / "fixtures" / "laptop_screen.json"
"""The screen the tests' windows open on: a 1366×768 laptop's, the smallest Castdeck is built for
(no title bars: the windows keep room for one, as they must before a real one is known)."""
if os.environ.get("QT_QPA_PLATFORM", "offscreen") == "offscreen":
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={LAPTOP_SCREEN}"

settings.register_profile("suite", derandomize=True, database=None, print_blob=True)
settings.load_profile("suite")
"""Property tests draw the same cases on every run (a test that passes only sometimes is a failing
test); ``--hypothesis-profile default`` draws new ones, to explore by hand."""


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Set up the machine before anything imports Qt (pytest-qt does in its own configure): the
    system libraries Qt and QtMultimedia load and the programs the tests run are installed when
    missing (as root, else with ``sudo -n``), so the README's test command is the whole set-up. When
    they cannot be, the run stops here with the packages and the one command that installs them."""
    from castdeck.system_packages import CannotInstall, ensure

    capture = config.pluginmanager.getplugin("capturemanager")
    with capture.global_and_fixture_disabled() if capture is not None else contextlib.nullcontext():
        try:
            ensure()
        except CannotInstall as error:
            pytest.exit(str(error), returncode=2)
    _record_starts()
    _share_renders(config)


def _share_renders(config: pytest.Config) -> None:
    """Every sandbox of the run (started by a test, by the app under test, by a worker) shares
    one render cache (``castdeck.sandbox.render_cache``): the demo content is narrated and encoded
    once per run, not once per sandbox, which was most of the suite's CPU. Set here, before xdist
    starts its workers, so they and the processes they start inherit it; a folder given in the
    environment is used and kept."""
    from castdeck.sandbox.render_cache import ENV

    if hasattr(config, "workerinput") or os.environ.get(ENV):
        return
    folder = tempfile.mkdtemp(prefix="castdeck-renders-")
    os.environ[ENV] = folder
    config.add_cleanup(lambda: shutil.rmtree(folder, ignore_errors=True))


def pytest_collection_finish(session: pytest.Session) -> None:
    """What is loaded now (the modules, Qt's wrappers of its types, the test functions) lives as
    long as the run: it is frozen out of the cyclic collector's reach, so the collection after
    each test (below) walks only what the test made. It walked everything before: 0.2 s a test,
    a quarter of the suite's time."""
    gc.collect()
    gc.freeze()


TEARDOWN_LIMIT = 240.0
"""Seconds a test's teardown may take before the worker prints every thread's stack and exits."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    """A teardown that waits for ever ends the run, naming the test, instead of hanging it.

    pytest-timeout stops its timer when a test fails (its ``pytest_exception_interact`` hook, meant
    for pdb), so the teardown after a failure had no limit: a teardown waiting on tasks that never
    woke hung a fresh-clone run for 25 minutes with the failure unreported. The standard library's
    faulthandler writes the stacks to artifacts/stuck-teardown-<worker>.txt (pytest holds stderr
    then) and exits the worker; xdist then ends the run, naming the test that was running."""
    folder = Path(__file__).resolve().parents[1] / "artifacts"
    folder.mkdir(exist_ok=True)
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    dump = open(folder / f"stuck-teardown-{worker}.txt", "w", encoding="utf-8")  # noqa: SIM115
    dump.write(f"{item.nodeid}: its teardown took over {TEARDOWN_LIMIT:.0f} s; every thread's stack:\n")
    dump.flush()
    faulthandler.dump_traceback_later(TEARDOWN_LIMIT, exit=True, file=dump)
    try:
        return (yield)
    finally:
        faulthandler.cancel_dump_traceback_later()
        dump.close()
        Path(dump.name).unlink(missing_ok=True)


def pytest_asyncio_loop_factories(config: pytest.Config, item: pytest.Item) -> dict[str, Callable[[], Any]]:
    """Async tests run on a qasync loop: the loop kind the app runs the client on."""
    from PySide6.QtWidgets import QApplication

    from castdeck.services.event_loop import new_event_loop

    def qasync_loop() -> Any:
        app = QApplication.instance() or QApplication([])
        assert isinstance(app, QApplication)
        # as castdeck.app.main() sets it: closing a window never stops the loop under the coroutine
        app.setQuitOnLastWindowClosed(False)
        return new_event_loop(app)

    return {"qasync": qasync_loop}


@pytest.fixture(autouse=True)
def _collect_garbage_between_tests() -> Iterator[None]:
    """Free each test's closed qasync loop and its Qt objects before the next test runs.

    Every async test gets a loop of its own. Without this, the Qt wrappers a closed loop leaves in
    reference cycles were freed by the cyclic garbage collector at whatever moment it ran, often in
    the middle of a later test's ``run_forever``, and the process died with a segmentation fault
    whose place moved with the set of collected tests. Collecting here made every run pass. The
    app itself creates one loop for its lifetime.

    A test that fails is no exception: pytest keeps its exception in ``sys.last_value`` and
    ``sys.last_traceback`` (for a debugger) until the next test's call, so its frames, its loop
    and its widgets were freed at that moment, inside the next test (a crash of a whole worker,
    seen after a failure). They are let go here, and collected with the rest.
    """
    yield
    for name in ("last_type", "last_value", "last_traceback", "last_exc"):
        if hasattr(sys, name):
            delattr(sys, name)
    gc.collect()


# --- PyAV never in the test process --------------------------------------------------------------------------


class _PyAVImportWatch:
    """Notes where ``av`` was first imported from (a meta path finder that never finds anything)."""

    def __init__(self) -> None:
        self.where = ""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "av" and not self.where:
            import traceback

            machinery = ("importlib", "_pytest", "pluggy")  # frames that only say how pytest got there
            frames = [
                f for f in traceback.extract_stack()[:-1] if not any(m in f.filename for m in machinery)
            ]
            self.where = "".join(traceback.format_list(frames[-6:]))


_PYAV_IMPORT = _PyAVImportWatch()
sys.meta_path.insert(0, _PYAV_IMPORT)


@pytest.fixture(autouse=True, scope="session")
def _the_qapplication_first(qapp: Any) -> None:
    """Each worker makes its QApplication before its first test. Code that needs only QtGui (the
    bundle's icon step, tests/unit/test_packaging.py) otherwise made a QGuiApplication when its
    file came first to a worker, and every widget test after it in that worker failed (seen when a
    worker's first files were unit tests; the whole suite's order only happened to avoid it)."""


@pytest.fixture(autouse=True)
def _no_pyav_in_the_test_process() -> Iterator[None]:
    """Fail a test after which PyAV (``av``) is loaded in the test process.

    PyAV bundles its own FFmpeg (libavcodec 62) and QtMultimedia's FFmpeg backend (libavcodec 61)
    plays media in this process: two FFmpeg builds in one process are kept out (see
    tests/media_child.py, where media is made and decoded with PyAV in a child process)."""
    before = "av" in sys.modules
    yield
    if "av" in sys.modules:
        when = (
            "before this test started (at collection, or by an earlier test)"
            if before
            else "during this test"
        )
        pytest.fail(
            f"PyAV (the 'av' module) was loaded in the test process {when}; it must never be: "
            "QtMultimedia's FFmpeg is loaded here, and two FFmpeg builds are kept out of one "
            "process. Make and decode media with PyAV in a child process with tests/media_child.py "
            "(probe, mp3_bytes, in_child). It was first imported from:\n"
            + (_PYAV_IMPORT.where or "(unknown)"),
            pytrace=False,
        )


# --- nothing outlives its test: asyncio tasks, QTimers, QThreads ---------------------------------------------

TOLERATED_TASKS: dict[str, str] = {}
"""Tasks (by name) that production code leaves running after their owner is closed, tolerated until
their owner changes: name -> why. Keep it to exact names, each with a TODO naming the owner."""

TOLERATED_TIMERS: dict[str, str] = {}
"""Active timers tolerated after a test, by the class name of the timer's parent: name -> why."""

CLOSED_WITH_THE_SESSION = {"reconnect", "refresh balance"}
"""Short-lived tasks a session owns and ends in ``Session.close()`` (the probe sleeps out its delay
after the service is back, then ends by itself; a read of the balance after writes may wait up to
a second for its turn). Stopped with the followers at the end of each test: pytest-qt's
event rounds after the test would otherwise step a balance read in flight with no running loop."""

WRITTEN_BEHIND = {"store job"}
"""Writes behind on the disk thread that a follower starts as it hears of a job (its state stored):
a poll answered just as a test ends starts one after the test's ``quiet()``. Awaited at the end of
each test, never named as leftovers (the tracker's ``close()`` flushes them too)."""


@dataclass
class Leftovers:
    """What the current test left running; ``tasks`` is filled by ``settle()`` (tests/gui/conftest.py),
    which names and cancels the work still running when a fixture closes a session."""

    tasks: list[str] = field(default_factory=list)
    timers: list[weakref.ref[Any]] = field(default_factory=list)
    threads: list[weakref.ref[Any]] = field(default_factory=list)


LEFTOVERS = Leftovers()


def _record_starts() -> None:
    """Note every QTimer and QThread started from Python (as napari's dangling-timer check does)."""
    from PySide6.QtCore import QThread, QTimer

    timer_start, thread_start = QTimer.start, QThread.start

    def start_timer(self: QTimer, *args: Any) -> None:
        LEFTOVERS.timers.append(weakref.ref(self))
        timer_start(self, *args)

    def start_thread(self: QThread, *args: Any) -> None:
        LEFTOVERS.threads.append(weakref.ref(self))
        thread_start(self, *args)

    QTimer.start = start_timer  # type: ignore[method-assign]
    QThread.start = start_thread  # type: ignore[method-assign]


def _owner_chain(obj: Any) -> str:
    names = []
    parent = obj.parent()
    while parent is not None:
        names.append(
            f"{type(parent).__name__}({parent.objectName()!r})"
            if parent.objectName()
            else type(parent).__name__
        )
        parent = parent.parent()
    return " < ".join(names) or "no parent"


@pytest.fixture(autouse=True)
def _nothing_left_running(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fail a test that leaves an asyncio task (started through ``castdeck.services.tasks``), an
    active QTimer or a running QThread behind.

    For async tests this fixture holds the event loop (pytest-asyncio's runner), so its teardown runs
    after every other fixture has closed what it owns (sessions, background work, widgets) and before
    the loop closes and would cancel leftovers silently. Long-running followers that a fixture closes
    are therefore fine; ``settle()`` names the short-lived work a test left running.
    """
    LEFTOVERS.tasks.clear()
    LEFTOVERS.timers.clear()
    LEFTOVERS.threads.clear()
    runner = None
    if request.node.get_closest_marker("asyncio") is not None:
        runner = request.getfixturevalue("_function_scoped_runner")
    yield
    problems: list[str] = []
    if runner is not None:
        problems += [
            f"task {name!r} (still running at the end; settle() cancelled it)" for name in LEFTOVERS.tasks
        ]
        problems += [
            f"task {name!r} (still running after the fixtures closed)"
            for name in runner.run(_still_running())
        ]
    from PySide6.QtCore import QCoreApplication, QEvent

    QCoreApplication.sendPostedEvents(None, QEvent.Type.DeferredDelete)  # widgets pytest-qt closed
    gc.collect()
    import shiboken6

    for ref in LEFTOVERS.timers:
        timer = ref()
        if timer is None or not shiboken6.isValid(timer) or not timer.isActive():
            continue
        parent = timer.parent()
        if parent is not None and type(parent).__name__ in TOLERATED_TIMERS:
            continue
        timer.stop()
        problems.append(f"active QTimer {timer.objectName()!r} owned by {_owner_chain(timer)}")
    for ref in LEFTOVERS.threads:
        thread = ref()
        if thread is None or not shiboken6.isValid(thread) or not thread.isRunning():
            continue
        if type(thread).__module__.startswith("qasync"):
            continue  # the event loop's own executor: shut down with the loop, right after this check
        problems.append(
            f"running QThread {type(thread).__name__} {thread.objectName()!r} owned by {_owner_chain(thread)}"
        )
    if problems:
        pytest.fail("the test left running:\n  " + "\n  ".join(problems), pytrace=False)


MAX_WORKERS = 4


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a worker per core, at most :data:`MAX_WORKERS` (each starts its own sandbox)."""
    return max(1, min(os.cpu_count() or 1, MAX_WORKERS))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every async test ends by stopping the job pollers inside its loop (see _followers_stopped)."""
    for item in items:
        test = getattr(item, "obj", None)
        if item.get_closest_marker("asyncio") is not None and inspect.iscoroutinefunction(test):
            item.obj = _followers_stopped(test)  # type: ignore[attr-defined]


def _followers_stopped(test: Callable[..., Any]) -> Callable[..., Any]:
    """The test, then its job pollers cancelled while the loop still runs.

    pytest-qt processes Qt events right after the test and again before the fixtures close the
    sessions, outside the asyncio loop: a poll that was in flight then (an answer arriving, a timer
    firing) would step its task with no running loop. Long-running followers are their owners' to
    close, and the fixtures still close them; stopping them here only moves their end before those
    event rounds. The session's own short-lived tasks (:data:`CLOSED_WITH_THE_SESSION`) stop here
    too, for the same reason; other short-lived work is left alone: ``settle()`` names it as a
    leftover."""

    @functools.wraps(test)
    async def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return await test(*args, **kwargs)
        finally:
            await stop_followers()

    return run


async def stop_followers() -> None:
    """Cancel the long-running followers (job pollers) and the session's own short-lived tasks
    (:data:`CLOSED_WITH_THE_SESSION`), and wait for them to end."""
    from tests import runner as work  # here: Qt is imported once the system packages are there

    short = {t for t in work.pending(followers=False) if t.get_name() not in CLOSED_WITH_THE_SESSION}
    followers = [t for t in work.pending() if t not in short]
    for task in followers:
        task.cancel()
    await asyncio.gather(*followers, return_exceptions=True)


async def _still_running() -> list[str]:
    """Names of the tasks still running (after one more turn of the loop), which are then cancelled."""
    from tests import runner as work

    await asyncio.sleep(0)
    left = [t for t in work.pending() if t.get_name() not in TOLERATED_TASKS]
    for task in left:
        task.cancel()
    await asyncio.gather(*left, return_exceptions=True)
    return [t.get_name() for t in left]


DEMO_KEY = "sk_sandbox_demo"
OTHER_KEY = "sk_sandbox_other"
FREE_KEY = "sk_sandbox_free"
START_TIMEOUT = 120.0
"""How long a sandbox may take to say it listens: a bound for a process that hangs, not a pace. It
starts in about 2 s on a quiet 2-core machine; with five suites beside it, 20 s was not enough."""


@dataclass
class RunningSandbox:
    base_url: str
    data_dir: Path
    process: subprocess.Popen[str]
    args: tuple[str, ...]
    clients: list[httpx.Client] = field(default_factory=list)

    def client(self, key: str | None = DEMO_KEY, **kwargs: Any) -> httpx.Client:
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        client = httpx.Client(
            base_url=self.base_url, headers=headers, timeout=30.0, **{"verify": SHARED_TLS, **kwargs}
        )
        self.clients.append(client)
        return client

    def advance(self, seconds: float) -> datetime:
        """Move the sandbox's time ``seconds`` ahead (its ``--test-clock``): a window lapses, a
        schedule comes due, work's floors pass, without waiting. Returns the sandbox's time."""
        response = httpx.post(
            f"{self.base_url}/_sandbox/clock",
            json={"advance_seconds": seconds},
            timeout=30,
            verify=SHARED_TLS,
        )
        assert response.status_code == 200, response.text
        return datetime.fromisoformat(response.json()["now"])

    def now(self) -> datetime:
        """The sandbox's time (the machine's, plus what :meth:`advance` moved it)."""
        return self.advance(0)

    @property
    def log(self) -> str:
        path = self.data_dir / "sandbox.log"
        return path.read_text(encoding="utf-8", errors="replace") if path.exists() else ""

    def stop(self, *, kill: bool = False) -> None:
        for client in self.clients:
            client.close()
        self.clients.clear()
        if self.process.poll() is None:
            if kill:
                self.process.kill()
            else:
                self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


def start_sandbox(data_dir: Path, *args: str, nice: int = 0) -> RunningSandbox:
    """Start ``castdeck-sandbox`` and wait for its ``listening on URL`` line. ``nice`` (POSIX, with
    the ``nice`` command) runs it and the workers it starts at that lower priority."""
    data_dir.mkdir(parents=True, exist_ok=True)
    log = (data_dir / "sandbox.log").open("a", encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "castdeck.sandbox",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--data",
        str(data_dir),
        "--exit-with-parent",
        "--test-clock",
        *args,
    ]
    if nice and shutil.which("nice"):
        command = ["nice", "-n", str(nice), *command]
    # stdin stays open while the test process lives; if it dies, the sandbox stops by itself.
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
    log.close()
    first_line: list[str] = []
    reader = threading.Thread(target=lambda: first_line.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(START_TIMEOUT)
    if not first_line or not first_line[0].startswith("listening on "):
        process.kill()
        raise RuntimeError(f"sandbox did not start: {first_line!r}\n{(data_dir / 'sandbox.log').read_text()}")
    return RunningSandbox(first_line[0].removeprefix("listening on ").strip(), data_dir, process, tuple(args))


@pytest.fixture(scope="session")
def sandbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningSandbox]:
    """One sandbox for the whole session, fast (``--speed 50``) with the seeded demo content."""
    running = start_sandbox(tmp_path_factory.mktemp("sandbox"), "--speed", "50", "--workers", "2")
    yield running
    running.stop()


@pytest.fixture
def sandbox_factory(tmp_path: Path) -> Iterator[Callable[..., RunningSandbox]]:
    """Start extra sandboxes (own data folder unless given); all are stopped after the test."""
    started: list[RunningSandbox] = []

    def start(*args: str, data_dir: Path | None = None) -> RunningSandbox:
        running = start_sandbox(data_dir or tmp_path / f"sandbox-{len(started)}", *args)
        started.append(running)
        return running

    yield start
    for running in started:
        running.stop()


@pytest.fixture
def api(sandbox: RunningSandbox) -> httpx.Client:
    """An HTTP client of the demo organization (Demo Studio)."""
    return sandbox.client(DEMO_KEY)


@pytest.fixture
def other_api(sandbox: RunningSandbox) -> httpx.Client:
    """An HTTP client of the second organization (Northwind Audio)."""
    return sandbox.client(OTHER_KEY)


def wait_for(predicate: Callable[[], Any], timeout: float = 60.0, interval: float = 0.05) -> Any:
    """Poll until ``predicate`` returns something truthy; return it, or fail with the last value."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = predicate()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s; last value: {last!r}")


def assert_problem(response: httpx.Response, status: int, type_: str | None = None) -> dict[str, Any]:
    """The response is a problem+json error with this status; returns its body."""
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"].startswith("application/problem+json"), response.headers
    body: dict[str, Any] = response.json()
    assert body["status"] == status
    assert body["title"]
    assert body["request_id"] == response.headers["x-request-id"]
    if type_ is not None:
        assert body["type"] == type_, body
    return body


def field_names(problem: dict[str, Any]) -> list[str]:
    return [e["field"] for e in problem.get("errors") or []]
