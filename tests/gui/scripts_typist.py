"""A child process for test_scripts_recovery: the real Castdeck app (CastdeckApp, its window and the
Scripts workspace) on a service that cannot be reached, in a data folder of the test's.

``python -m tests.gui.scripts_typist type DATA_DIR TEXT_FILE`` opens Scripts, makes a draft and types
TEXT one key at a time (every ~30 ms) until it is killed; it prints ``typed N MONOTONIC`` after each
key and ``saved LENGTH MONOTONIC`` after each autosave reached the disk.

``python -m tests.gui.scripts_typist recover DATA_DIR`` starts the app again and prints one JSON line
with what the window offered and what the Scripts workspace shows, then quits cleanly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["CASTDECK_BASE_URL"] = "http://127.0.0.1:9"  # nothing listens there: offline from the start
os.environ["CASTDECK_API_KEY"] = "sk_offline_test"

from PySide6.QtCore import QCoreApplication, QSettings, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

from castdeck.app import CastdeckApp
from castdeck.services.event_loop import new_event_loop

KEY_EVERY = 0.03


async def until(predicate, timeout: float = 60.0):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        await asyncio.sleep(0.02)
    raise TimeoutError("the child waited too long")


def say(*parts: object) -> None:
    print(*parts, flush=True)


async def type_forever(app: CastdeckApp, text: str) -> None:
    window = await until(lambda: app.window)
    pane = window.show_pane("Scripts")
    await until(lambda: pane._activated and not pane.work.pending())  # the drafts are read
    pane.new_item()
    await until(lambda: pane.draft is not None and pane.editor.isEnabled())
    pane.drafts.saved.connect(lambda draft: say("saved", len(draft.text), time.monotonic()))
    say("ready", pane.draft.id)
    editor = pane.editor
    editor.setFocus()
    for count, char in enumerate(text, start=1):
        if char == "\n":
            QTest.keyClick(editor, Qt.Key.Key_Return)
        else:
            QTest.keyClicks(editor, char)
        say("typed", count, time.monotonic())
        await asyncio.sleep(KEY_EVERY)
    say("done")
    await asyncio.sleep(3600)


async def recover(app: CastdeckApp) -> None:
    window = await until(lambda: app.window)
    offered = window.banner.text if not window.recover_button.isHidden() else ""
    if offered:
        window.recover_button.click()  # "Open in Scripts"
    pane = window.show_pane("Scripts")
    await until(lambda: pane.draft is not None)
    await until(lambda: "ended without closing" in pane.banner.text)
    say(json.dumps({
        "window_offered": offered,
        "window_banner_after": window.banner.text if window.banner.isVisibleTo(window) else "",
        "pane_banner": pane.banner.text,
        "draft": pane.draft.id,
        "text": pane.editor.toPlainText(),
    }))  # fmt: skip
    window.close()


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("type", "recover"))
    parser.add_argument("data", type=Path)
    parser.add_argument("text", nargs="?", type=Path)
    args = parser.parse_args()
    QCoreApplication.setOrganizationName("CastdeckTypist")
    QCoreApplication.setApplicationName("CastdeckTypist")
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(args.data / "settings"))
    qt = QApplication.instance() or QApplication(sys.argv[:1])
    qt.setQuitOnLastWindowClosed(False)
    castdeck = CastdeckApp(argparse.Namespace(sandbox=False, data=None, speed=1.0, profile=None), args.data)

    async def run() -> int:
        app_task = asyncio.ensure_future(castdeck.run())
        if args.mode == "type":
            work = asyncio.ensure_future(type_forever(castdeck, args.text.read_text(encoding="utf-8")))
        else:
            work = asyncio.ensure_future(recover(castdeck))
        code = await app_task
        work.cancel()
        return code

    with asyncio.Runner(loop_factory=lambda: new_event_loop(qt)) as runner:
        return runner.run(run())


if __name__ == "__main__":
    sys.exit(main())
