"""Linux: the desktop integration beside the app, the .tar.gz a creator downloads, and the
AppDir an AppImage is made from.

The folder (and the archive's top folder ``castdeck/``) holds::

    castdeck                       the app (double-click, or run it)
    _internal/                     what it runs on
    install.sh                     the launcher, icons and `castdeck` on PATH for this user
    share/applications/castdeck.desktop
    share/icons/hicolor/SIZExSIZE/apps/castdeck.png, scalable/apps/castdeck.svg
"""

from __future__ import annotations

import shutil
import tarfile
from pathlib import Path

__all__ = ["THEME_SIZES", "add_desktop_integration", "appdir", "tarball"]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DESKTOP_FILE = ROOT / "resources" / "castdeck.desktop"
ICON_SVG = ROOT / "resources" / "castdeck.svg"
THEME_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)  # hicolor's usual sizes


def add_desktop_integration(folder: Path, icons: Path) -> None:
    share = folder / "share"
    (share / "applications").mkdir(parents=True, exist_ok=True)
    shutil.copy2(DESKTOP_FILE, share / "applications" / "castdeck.desktop")
    for size in THEME_SIZES:
        target = share / "icons" / "hicolor" / f"{size}x{size}" / "apps"
        target.mkdir(parents=True, exist_ok=True)
        shutil.copy2(icons / "png" / f"castdeck-{size}.png", target / "castdeck.png")
    scalable = share / "icons" / "hicolor" / "scalable" / "apps"
    scalable.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ICON_SVG, scalable / "castdeck.svg")
    install = folder / "install.sh"
    shutil.copy2(HERE / "linux" / "install.sh", install)
    install.chmod(0o755)


RELEASE_COMPRESSION = 6
"""gzip level of the download: 139 MB in about 45 s here; level 1 makes 151 MB in 8 s (the test
suite's build uses it: the same files, packed faster)."""


def tarball(folder: Path, target: Path, compression: int = RELEASE_COMPRESSION) -> Path:
    """``target`` (.tar.gz) with ``folder`` as its top folder; links and modes kept."""
    target.unlink(missing_ok=True)
    partial = target.with_name(target.name + ".partial")
    with tarfile.open(partial, "w:gz", compresslevel=compression) as archive:
        archive.add(folder, arcname=folder.name)
    partial.replace(target)
    return target


APPRUN = """#!/bin/sh
# The AppImage's entry: the app in this (mounted) folder.
here=$(dirname "$(readlink -f "$0")")
exec "$here/castdeck" "$@"
"""


def appdir(folder: Path, target: Path, icons: Path) -> Path:
    """An AppDir for appimagetool: the app's folder, AppRun, the .desktop file and the icon."""
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(folder, target, symlinks=True)
    (target / "AppRun").write_text(APPRUN, encoding="utf-8")
    (target / "AppRun").chmod(0o755)
    shutil.copy2(DESKTOP_FILE, target / "castdeck.desktop")
    shutil.copy2(icons / "png" / "castdeck-256.png", target / "castdeck.png")
    (target / ".DirIcon").symlink_to("castdeck.png")
    return target
