"""Command-line companions of the app: ``castdeck <command> ...`` beside the desktop studio.

Each command is a module of this package with ``main(argv: list[str]) -> int``, imported only when
it is asked for (the desktop app's start-up pays nothing for them). They share the app's code
(the script model, the client, the saved profiles), never its widgets. Problems are printed as
``FILE:LINE:COL: error: message``; the exit status is 0 (fine), 1 (problems found) or 2 (cannot
run), and no traceback ever reaches the user.
"""

from __future__ import annotations

import importlib
import logging
import sys

__all__ = ["COMMANDS", "dispatch"]

COMMANDS: dict[str, str] = {
    "import": "import_scripts",
    "publish": "publish",
    "script": "script",
    "transcript": "transcript",
}
"""Command name -> module under castdeck.cli."""

log = logging.getLogger(__name__)


def dispatch(argv: list[str]) -> int | None:
    """Run the command ``argv`` names and return its exit status; None when ``argv`` names none
    (the desktop app starts instead)."""
    if not argv or argv[0] not in COMMANDS:
        return None
    module = importlib.import_module(f"castdeck.cli.{COMMANDS[argv[0]]}")
    try:
        code: int = module.main(argv[1:])
    except KeyboardInterrupt:
        return 2
    except Exception as error:  # a bug: one line, never a traceback (the log has the details)
        log.debug("castdeck %s failed", argv[0], exc_info=True)
        print(f"castdeck {argv[0]}: error: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        return 2
    return code
