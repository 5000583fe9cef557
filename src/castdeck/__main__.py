"""``castdeck``: the desktop studio's entry point (see :mod:`castdeck.startup`, then :mod:`castdeck.app`).

castdeck --sandbox [--data DIR] [--speed F]   start on the embedded sandbox service
castdeck [--profile NAME]                     connect to the service
castdeck COMMAND ...                          a command-line companion (see castdeck.cli)
castdeck sandbox-service ...                  the sandbox service alone (as ``castdeck-sandbox``)

``sandbox-service`` is how the app starts its sandbox child: the installed app is one executable
with no ``python -m``, so the app runs its own executable again with this first argument (see
:mod:`castdeck.services.sandbox_process`).
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path

__all__ = ["SANDBOX_SERVICE", "run"]

SANDBOX_SERVICE = "sandbox-service"
"""First argument that makes this executable the sandbox service instead of the app."""


def run() -> None:
    """Console-script entry point: the sandbox service, a command-line companion when the first
    argument names one, else the desktop app (its Qt modules are imported only then; the rest of
    it after the early window has painted, see :mod:`castdeck.startup`)."""
    if getattr(sys, "frozen", False):
        # In a bundle, the sandbox's speech workers are this executable started again with
        # multiprocessing's arguments: they run their work here and never reach the app.
        import multiprocessing

        multiprocessing.freeze_support()
    argv = sys.argv[1:]
    if argv[:1] == [SANDBOX_SERVICE]:
        from castdeck.sandbox.__main__ import main as sandbox_main

        sandbox_main(argv[1:])
        sys.exit(0)
    from castdeck.cli import dispatch

    code = dispatch(argv)
    if code is not None:
        sys.exit(code)
    # Start-up allocates much and frees little (modules, classes, Qt wrappers): the cyclic collector
    # would walk it all again and again for nothing. It is on again once the first screen is up,
    # after one full collection (castdeck.app_process.settle_startup_objects), or when a dialog comes first.
    gc.disable()
    # Before Qt starts its threads: large blocks go back to the system when freed, and the threads
    # share two heaps (castdeck.services.heap: what kept a long session's memory growing).
    from castdeck.services.heap import tune_heap

    tune_heap()
    sys.exit(desktop_app())


def desktop_app() -> int:
    """The desktop app's exit code. A start that fails, however (Qt that cannot be loaded, a bug),
    never ends silently: :func:`castdeck.failures.start_failed` says it in one line on stderr
    (and in a message box where a display exists), keeps the traceback in the log, and the exit
    code is 2."""
    try:
        from castdeck.startup import main

        return main()
    except Exception as error:
        from castdeck.failures import start_failed

        return start_failed(error, _log_file())


def _log_file() -> Path:
    """Where the log is (``castdeck.log`` in the user data folder), found without Qt."""
    from castdeck.data_dir import user_data_dir

    return user_data_dir() / "castdeck.log"


if __name__ == "__main__":
    run()
