"""``castdeck``: the desktop studio's entry point (see :mod:`castdeck.app`).

castdeck --sandbox [--data DIR] [--speed F]   start on the embedded sandbox service
castdeck [--profile NAME]                     connect to the service
"""

from __future__ import annotations

import sys

from castdeck.app import main, user_data_dir

__all__ = ["main", "run", "user_data_dir"]


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    run()
