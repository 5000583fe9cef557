"""``castdeck``: the desktop studio's entry point (see :mod:`castdeck.app`).

castdeck --sandbox [--data DIR] [--speed F]   start on the embedded sandbox service
castdeck [--profile NAME]                     connect to the service
castdeck COMMAND ...                          a command-line companion (see castdeck.cli)
"""

from __future__ import annotations

import sys

__all__ = ["run"]


def run() -> None:
    """Console-script entry point: a command-line companion when the first argument names one,
    else the desktop app (its Qt modules are imported only then)."""
    from castdeck.cli import dispatch

    code = dispatch(sys.argv[1:])
    if code is not None:
        sys.exit(code)
    from castdeck.app import main

    sys.exit(main())


if __name__ == "__main__":
    run()
