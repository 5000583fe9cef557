"""Where Castdeck keeps its data (Qt-free: a start that cannot load Qt still logs there)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["user_data_dir"]


def user_data_dir() -> Path:
    """Where Castdeck keeps its data on this platform: platformdirs'
    ``user_data_dir("castdeck", appauthor=False)``.

    On Linux and macOS the rule is two lines, worked out here: importing platformdirs (and the
    ``typing`` and ``configparser`` it loads) took 3 to 6 ms of a start-up that may spend 59 ms
    beyond a bare window (``benchmarks/app_startup.py``). On Windows the folder comes from the
    shell's known-folder API, so platformdirs itself answers there. A test holds the two equal."""
    if sys.platform == "win32":
        import platformdirs

        return Path(platformdirs.user_data_dir("castdeck", appauthor=False))
    if sys.platform == "darwin":
        return Path(os.path.expanduser("~/Library/Application Support"), "castdeck")
    base = os.environ.get("XDG_DATA_HOME", "")
    if not base.strip():
        base = os.path.expanduser("~/.local/share")
    return Path(base, "castdeck")
