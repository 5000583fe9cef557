"""What a failure means to a creator, and what goes into a report of it (Qt-free: it also speaks
when Qt itself could not be loaded).

:func:`failure_reason` says an error in a sentence or two to act on: for a shared library that
could not be loaded, which package gives it and the command that installs it.
:func:`failure_report` is the text a creator pastes into a bug report. :func:`start_failed` is how
any failure of the app's start ends: the traceback in the log, one line on stderr, a message box
where a display exists, and exit code 2.
"""

from __future__ import annotations

import logging
import platform
import sys
import traceback
from pathlib import Path

from castdeck import __version__
from castdeck.system_packages import hint_for_error, install_command, missing

__all__ = [
    "START_FAILED",
    "display",
    "failure_reason",
    "failure_report",
    "platform_failed",
    "start_failed",
]

START_FAILED = 2
"""The exit code of a start that failed (as the command-line companions' "cannot run")."""

log = logging.getLogger("castdeck")


def failure_reason(error: BaseException) -> str:
    """The error in one or two sentences a creator can act on."""
    text = str(error).strip() or type(error).__name__
    hint = hint_for_error(text)
    if hint is not None:
        return f"{text.rstrip('.')}. {hint}"
    if isinstance(error, ImportError):
        return f"a part of Castdeck could not be loaded ({text})"
    return f"{type(error).__name__}: {text}"


def platform_failed(message: str, log_file: Path | None = None) -> int:
    """Qt could not open its windowing platform (Qt then ends the process): one line on stderr with
    the system libraries missing and the command that installs them, Qt's message in the log;
    returns the exit code."""
    absent = missing(["app"])
    if absent:
        names = ", ".join(need.name for need in absent)
        reason = f"Qt cannot open windows without {names}; install them with: {install_command(absent)}"
    else:
        first = next((line.strip() for line in message.splitlines() if line.strip()), "unknown error")
        reason = f"Qt cannot open windows: {first.rstrip('.')}. Run with QT_DEBUG_PLUGINS=1 to see why"
    where = _keep_in_log(f"Castdeck could not start: Qt's platform failed\n{message}\n", log_file)
    details = f" (details in {where})" if where else ""
    print(f"castdeck: could not start: {reason}{details}", file=sys.stderr, flush=True)
    return START_FAILED


def _qt_versions() -> str:
    try:
        from PySide6 import __version__ as pyside
        from PySide6.QtCore import qVersion
    except ImportError as error:
        return f"Qt not loaded ({error})"
    return f"Qt {qVersion()}, PySide6 {pyside}"


def failure_report(what: str, error: BaseException) -> str:
    """Plain text for a report: what failed, the versions, the platform, the traceback."""
    lines = [
        f"Castdeck {__version__}: {what}",
        f"{type(error).__name__}: {error}",
        f"Python {platform.python_version()}, {_qt_versions()}, {platform.platform()}",
        "",
        "".join(traceback.format_exception(error)).rstrip(),
    ]
    return "\n".join(lines) + "\n"


def _keep_in_log(report: str, log_file: Path | None) -> str:
    """The report in the app's log (through logging once it is set up, else appended to the file);
    where it went, for the line on stderr."""
    if logging.getLogger().handlers:
        log.error("%s", report)
        return "castdeck.log"
    if log_file is None:
        return ""
    try:
        log_file.parent.mkdir(parents=True, exist_ok=True)
        with log_file.open("a", encoding="utf-8") as handle:
            handle.write(report)
    except OSError:
        return ""
    return str(log_file)


def display() -> bool:
    """A QApplication runs on a platform that shows windows (not offscreen or minimal)."""
    widgets = sys.modules.get("PySide6.QtWidgets")
    if widgets is None:
        return False
    app = widgets.QApplication.instance()
    return app is not None and widgets.QApplication.platformName() not in ("offscreen", "minimal", "")


def start_failed(
    error: BaseException,
    log_file: Path | None = None,
    *,
    reason: str | None = None,
    stopped: bool = False,
    box: bool = True,
) -> int:
    """End a start that failed with ``error``: its traceback in the log (``log_file`` when logging
    is not set up yet), one line on stderr, a message box where a display exists (unless ``box``
    is False: the caller shows its own); returns the exit code (:data:`START_FAILED`).

    ``reason`` replaces :func:`failure_reason`'s words; ``stopped``: the app had started, and
    stopped on this error."""
    reason = reason or failure_reason(error)
    doing = "stopped" if stopped else "could not start"
    where = _keep_in_log(failure_report(f"Castdeck {doing}", error), log_file)
    details = f" (details in {where})" if where else ""
    print(f"castdeck: {doing}: {reason}{details}", file=sys.stderr, flush=True)
    if box and display():
        try:
            from PySide6.QtWidgets import QMessageBox

            message = QMessageBox(
                QMessageBox.Icon.Critical,
                f"Castdeck {doing}",
                f"Castdeck {doing}: {reason}",
                QMessageBox.StandardButton.Close,
            )
            if where:
                message.setInformativeText(f"The details are in {where}.")
            message.exec()
        except Exception:  # the message was printed; a box that fails too says nothing more
            log.exception("the message box about the failed start could not be shown")
    return START_FAILED
