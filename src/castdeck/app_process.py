"""What the app sets up for its process, apart from its work: the log file (signed addresses
redacted), the hook that turns a bug into a logged traceback and a banner (never a traceback
dialog), and the garbage collector's freeze of what start-up made.
"""

from __future__ import annotations

import gc
import logging
import logging.handlers
import traceback
from pathlib import Path
from types import TracebackType

from PySide6.QtWidgets import QApplication

from castdeck.redact import RedactingFilter
from castdeck.ui.main_window import MainWindow
from castdeck.ui.pyside_types import resolve_object_types

__all__ = ["settle_startup_objects", "setup_logging", "show_bug"]

log = logging.getLogger("castdeck")


def setup_logging(data_dir: Path) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    handler = logging.handlers.RotatingFileHandler(
        data_dir / "castdeck.log", maxBytes=2_000_000, backupCount=2
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactingFilter())  # signed addresses keep their secrets out of the log
    root = logging.getLogger()
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    # httpx logs every request line at INFO; request lines carry no key, but keep the log quiet.
    logging.getLogger("httpx").setLevel(logging.WARNING)


def settle_startup_objects() -> None:
    """Move everything start-up created (modules, classes, validators, the window) out of the
    garbage collector's reach. They live as long as the app; without this, every full collection
    walks them again, and with ten thousand rows loaded one such walk stalled the event loop for
    60 ms (benchmarks/episodes_scale.py).

    The collector was off while the app loaded (``castdeck.__main__``): this one full collection
    frees what start-up dropped, and the collector is on from here.

    PySide's lazily made classes are made here first (:mod:`castdeck.ui.pyside_types`), so that
    they are frozen with the rest and never made in the middle of the user's work."""
    resolve_object_types()
    gc.collect()
    gc.freeze()
    gc.enable()


def show_bug(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    """A bug: logged with its traceback, shown as a message (never a traceback dialog)."""
    log.error("unexpected error\n%s", "".join(traceback.format_exception(kind, error, tb)))
    app = QApplication.instance()
    window = (
        next((w for w in QApplication.topLevelWidgets() if isinstance(w, MainWindow)), None) if app else None
    )
    if window is not None:
        window.banner.show_message(
            f"Something went wrong inside Castdeck ({kind.__name__}: {error}). Details are in the log.",
            kind="error",
        )
