"""A child process for the kill tests: the real Castdeck app (CastdeckApp, its window) on a data
folder of the test's, connected to the service address it is given, doing one thing through the
window until the test kills it with SIGKILL; or started again on the same folder to say how it
picked up.

    python -m tests.soak.kill_child generate DATA URL PROMPT   # Episodes → Generate…, the prompt, Generate
    python -m tests.soak.kill_child upload DATA URL FOLDER     # the folder dropped on Sources (one at a time)
    python -m tests.soak.kill_child batch DATA URL FOLDER PODCAST  # the folder dropped on Scripts, Import, Send
    python -m tests.soak.kill_child resume DATA URL            # start, wait until everything is answered

It prints one line per event, flushed: ``ready``; ``asked`` once Generate was pressed; ``entry ID
STATE ATTEMPTS`` on each change of an outbox entry; ``upload NAME STATE SENT`` on each change of an
upload's state; ``state S`` when the connection's state changes. ``resume`` ends with one JSON line
(``{"entries": [...], "uploads": [...], "batches": [...]}``) once no request is unanswered, no
upload unfinished and every batch of scripts ended, then closes the window and exits 0.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from castdeck.app import CastdeckApp
from castdeck.services.event_loop import new_event_loop
from castdeck.services.script_sending import TITLE_OWED
from castdeck.services.session import ConnectionState
from castdeck.services.settings import CONCURRENCY_KEY
from castdeck.ui.dialogs.generate_dialog import GenerateDialog
from castdeck.ui.scripts.batch_dialog import BatchSendDialog
from tests.conftest import DEMO_KEY
from tests.gui.helpers import drop_on

UNFINISHED = ("queued", "uploading", "completing", "paused")


def say(*parts: object) -> None:
    print(*parts, flush=True)


async def until(predicate: Any, timeout: float = 120.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        await asyncio.sleep(0.02)
    raise TimeoutError("the child waited too long")


async def ready(app: CastdeckApp) -> None:
    await until(lambda: app.window is not None and app.session is not None and app.background is not None)
    assert app.session is not None and app.background is not None
    await until(lambda: app.session is not None and app.session.state is ConnectionState.ONLINE)
    app.background.outbox.entryChanged.connect(lambda e: say("entry", e.id, e.state, e.attempts))
    states: dict[str, str] = {}

    def changed(item: Any) -> None:
        if states.get(item.id) != item.state:
            states[item.id] = item.state
            say("upload", item.name, item.state, item.sent)

    app.background.uploads.itemChanged.connect(changed)
    app.session.stateChanged.connect(lambda state: say("state", getattr(state, "value", state)))
    say("ready")


async def generate(app: CastdeckApp, prompt: str) -> None:
    await ready(app)
    assert app.window is not None
    pane = app.window.show_pane("Episodes")
    await until(lambda: pane.generate_button.isEnabled())
    QTest.mouseClick(pane.generate_button, Qt.MouseButton.LeftButton)
    dialog = await until(lambda: pane.dialog if isinstance(pane.dialog, GenerateDialog) else None)
    for picker in (dialog.podcast_picker, dialog.hosts_picker, dialog.sources_picker):
        await picker.wait_loaded()
    dialog.prompt_edit.setFocus()
    QTest.keyClicks(dialog.prompt_edit, prompt)
    dialog.length_spin.selectAll()
    QTest.keyClicks(dialog.length_spin, "1")
    await until(lambda: dialog.submit_button.isEnabled())
    QTest.mouseClick(dialog.submit_button, Qt.MouseButton.LeftButton)
    say("asked")
    await asyncio.sleep(3600)  # until killed


async def upload(app: CastdeckApp, folder: Path) -> None:
    await ready(app)
    assert app.window is not None
    pane = app.window.show_pane("Sources")
    drop_on(pane.drop_area, [folder], direct=pane.drop_area.dropEvent)
    say("dropped")
    await asyncio.sleep(3600)  # until killed


async def batch(app: CastdeckApp, folder: Path, podcast_id: str, count: int) -> None:
    """Drop a season on Scripts; its drafts come selected; Import…, the podcast, Send."""
    await ready(app)
    assert app.window is not None
    pane = app.window.show_pane("Scripts")
    await until(lambda: pane.hosts)
    drop_on(pane, [folder], direct=pane.dropEvent)
    await until(lambda: len(pane.selected_ids()) == count)
    QTest.mouseClick(pane.import_button, Qt.MouseButton.LeftButton)
    dialog = await until(lambda: pane.dialog if isinstance(pane.dialog, BatchSendDialog) else None)
    await dialog.podcast_picker.wait_loaded()
    dialog.podcast_picker.set_selected(podcast_id)
    dialog.render_check.setChecked(False)
    await until(lambda: dialog.send_button.isEnabled())
    QTest.mouseClick(dialog.send_button, Qt.MouseButton.LeftButton)
    say("asked")
    await asyncio.sleep(3600)  # until killed


async def resume(app: CastdeckApp) -> None:
    await ready(app)
    assert app.background is not None and app.window is not None
    background = app.background
    await background.uploads.loaded()
    await background.picked_up()  # the batches, jobs and outbox of the run killed are known first

    def settled() -> bool:
        unsent = any(e.unsent for e in background.outbox.entries())
        going = any(not progress.ended for progress in background.batches.batches())
        return not unsent and not going and not any(i.state in UNFINISHED for i in background.uploads.items())

    await until(settled, timeout=300)
    store = background.drafts.store  # (the driver's own reads: every episode given its draft's title)
    await until(lambda: not any(d.options.get(TITLE_OWED) for d in store.list_drafts()), timeout=120)
    say(json.dumps({
        "entries": [{"id": e.id, "state": e.state, "attempts": e.attempts, "key": e.idempotency_key,
                     "resource_id": e.resource_id} for e in background.outbox.entries()],
        "uploads": [{"name": i.name, "state": i.state, "source_id": i.source_id, "error": i.error}
                    for i in background.uploads.items()],
        "batches": [{"id": p.id, "summary": p.summary(),
                     "items": [[i.title, i.state, i.episode_id] for i in p.items]}
                    for p in background.batches.batches()],
    }))  # fmt: skip
    app.window.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("generate", "upload", "batch", "resume"))
    parser.add_argument("data", type=Path)
    parser.add_argument("url")
    parser.add_argument("what", nargs="?")
    parser.add_argument("podcast", nargs="?")
    args = parser.parse_args()
    args.count = (
        sum(1 for path in Path(args.what).iterdir() if path.suffix == ".txt") if args.mode == "batch" else 0
    )
    os.environ["CASTDECK_BASE_URL"] = args.url
    os.environ["CASTDECK_API_KEY"] = DEMO_KEY
    QCoreApplication.setOrganizationName("CastdeckKill")
    QCoreApplication.setApplicationName("CastdeckKill")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(args.data / "settings"))
    QSettings().setValue(CONCURRENCY_KEY, 1)  # one at a time: one done, one half-sent, one waiting
    qt = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(qt, QApplication)
    qt.setQuitOnLastWindowClosed(False)
    castdeck = CastdeckApp(argparse.Namespace(sandbox=False, data=None, speed=1.0, profile=None), args.data)

    async def run() -> int:
        app_task = asyncio.ensure_future(castdeck.run())
        if args.mode == "generate":
            work = asyncio.ensure_future(generate(castdeck, args.what))
        elif args.mode == "upload":
            work = asyncio.ensure_future(upload(castdeck, Path(args.what)))
        elif args.mode == "batch":
            work = asyncio.ensure_future(batch(castdeck, Path(args.what), args.podcast, args.count))
        else:
            work = asyncio.ensure_future(resume(castdeck))
        work.add_done_callback(
            lambda t: t.cancelled() or t.exception() is None or say("error", repr(t.exception()))
        )
        code = await app_task
        work.cancel()
        return code

    with asyncio.Runner(loop_factory=lambda: new_event_loop(qt)) as runner:
        return runner.run(run())


if __name__ == "__main__":
    sys.exit(main())
