"""install.sh in the downloaded folder: a launcher and icons for this user, `castdeck` on PATH,
and --uninstall taking them away again; the launcher is a valid desktop entry that starts the
folder's executable, wherever the folder is (a path with a space and a quote here). And the
AppDir an AppImage is made of."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, DownloadedApp

sys.path.insert(0, str(ROOT / "packaging"))
import bundle_linux

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # the first one builds the app


def test_install_script_adds_a_launcher_icons_and_the_command_then_removes_them(
    downloaded_app: DownloadedApp, tmp_path: Path
) -> None:
    assert shutil.which("desktop-file-validate"), (
        "desktop-file-validate (desktop-file-utils) is needed (python -m castdeck.system_packages --install)"
    )
    folder = tmp_path / "My Apps" / "it's castdeck"
    folder.parent.mkdir(parents=True)
    shutil.copytree(downloaded_app.folder, folder, symlinks=True)
    home = tmp_path / "home"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "XDG_DATA_HOME": str(home / "data")}
    installed = subprocess.run([str(folder / "install.sh")], env=env, capture_output=True, text=True,
                               timeout=60, check=False)  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    desktop = home / "data" / "applications" / "castdeck.desktop"
    check = subprocess.run(
        ["desktop-file-validate", str(desktop)], capture_output=True, text=True, check=False
    )
    assert check.returncode == 0 and not check.stdout.strip(), check.stdout + check.stderr
    entry = dict(line.split("=", 1) for line in desktop.read_text().splitlines() if "=" in line)
    assert entry["Icon"] == "castdeck"
    # The Exec key as a launcher reads it: one quoted argument, the executable in the folder.
    assert shlex.split(entry["Exec"]) == [str(folder / "castdeck")]
    for size in ("16x16", "48x48", "256x256", "512x512"):
        assert (home / "data" / "icons" / "hicolor" / size / "apps" / "castdeck.png").is_file()
    assert (home / "data" / "icons" / "hicolor" / "scalable" / "apps" / "castdeck.svg").is_file()
    command = home / ".local" / "bin" / "castdeck"
    assert command.is_symlink() and command.resolve() == (folder / "castdeck").resolve()
    # The command on PATH is the app (started through the link, it finds its files).
    usage = subprocess.run([str(command), "--help"], env=env, capture_output=True, text=True, timeout=60,
                           check=False)  # fmt: skip
    assert usage.returncode == 0, usage.stderr
    assert "--sandbox" in usage.stdout

    removed = subprocess.run([str(folder / "install.sh"), "--uninstall"], env=env, capture_output=True,
                             text=True, timeout=60, check=False)  # fmt: skip
    assert removed.returncode == 0, removed.stderr
    assert not desktop.exists()
    assert not command.exists() and not command.is_symlink()
    assert not list((home / "data" / "icons").rglob("castdeck.*"))
    assert (folder / "castdeck").is_file()  # the app itself stays


def test_the_appdir_for_an_appimage_starts_the_app(downloaded_app: DownloadedApp, tmp_path: Path) -> None:
    """What appimagetool packs (where it is installed: the release workflow): AppRun starts the
    app from wherever the image is mounted, and the desktop entry and icon sit at the top."""
    icons = tmp_path / "icons" / "png"
    icons.mkdir(parents=True)
    shutil.copy(
        downloaded_app.folder / "share/icons/hicolor/256x256/apps/castdeck.png", icons / "castdeck-256.png"
    )
    appdir = bundle_linux.appdir(
        downloaded_app.folder, tmp_path / "mnt" / "Castdeck.AppDir", tmp_path / "icons"
    )
    check = subprocess.run(["desktop-file-validate", str(appdir / "castdeck.desktop")], capture_output=True,
                           text=True, check=False)  # fmt: skip
    assert check.returncode == 0 and not check.stdout.strip(), check.stdout + check.stderr
    assert (appdir / ".DirIcon").resolve() == (appdir / "castdeck.png").resolve()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    usage = subprocess.run([str(appdir / "AppRun"), "--help"], cwd=elsewhere, capture_output=True, text=True,
                           timeout=60, check=False)  # fmt: skip
    assert usage.returncode == 0, usage.stderr
    assert "--sandbox" in usage.stdout
