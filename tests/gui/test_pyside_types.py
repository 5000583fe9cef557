"""PySide makes its classes for Qt's QObject subclasses at start-up, not in the user's work.

Each case runs in a fresh process: in the suite's own process some earlier test has long since
made PySide walk its classes, and nothing could fail.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import enum, gc, sys
    import castdeck.app  # every module the app loads, so PySide knows every class the app's does
    from castdeck.app import settle_startup_objects
    from PySide6.QtCore import QObject, QTimer
    from PySide6.QtWidgets import QApplication, QLabel, QLineEdit

    app = QApplication([])

    class SeesItsOwn(QObject):  # the app's widgets watch their own events from the first screen on
        def eventFilter(self, watched, event):
            return False

    first_screen = QLabel("first screen")
    own = SeesItsOwn()
    first_screen.installEventFilter(own)
    first_screen.show()
    QTimer.singleShot(300, app.quit)
    app.exec()
    if sys.argv[1] == "settled":
        settle_startup_objects()  # as the app does once its first screen is up

    def enum_classes():
        return sum(1 for thing in gc.get_objects() if isinstance(thing, enum.EnumType))

    class SeesEverything(QObject):  # as the quiet collector's filter does while a collection waits
        def eventFilter(self, watched, event):
            return False

    before = enum_classes()
    watcher = SeesEverything()
    app.installEventFilter(watcher)
    edit = QLineEdit()  # its internal text control is of a class PySide does not wrap
    edit.show()
    edit.setFocus()
    QTimer.singleShot(300, app.quit)
    app.exec()
    print(enum_classes() - before)
    """
)


def enums_made_by_the_first_events(mode: str) -> int:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, mode],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip().splitlines()[-1])


def test_an_application_filter_meeting_an_unwrapped_object_makes_pyside_walk_its_classes() -> None:
    """The cost the settling takes away: without it, the first events a Python filter on the
    application sees make PySide create the classes and enums of every QObject subclass not yet
    made (here QStyle's and QWindow's among them; in the app about a hundred)."""
    assert enums_made_by_the_first_events("fresh") > 0


def test_once_settled_the_first_events_make_no_classes() -> None:
    assert enums_made_by_the_first_events("settled") == 0
