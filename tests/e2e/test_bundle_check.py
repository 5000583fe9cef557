"""The check build.py runs after PyInstaller: quiet on the real build, and it names what is wrong
when a part the app needs is taken out of it."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import ROOT, DownloadedApp

sys.path.insert(0, str(ROOT / "packaging"))
import bundle_check

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]  # the first one builds the app
SRC = ROOT / "src" / "castdeck"


def linked_copy(folder: Path, target: Path) -> Path:
    """A copy of the bundle made of hard links (instant); removing a file from it leaves the
    original alone."""
    shutil.copytree(folder, target, symlinks=True, copy_function=os.link)
    return target


def test_the_built_app_passes_the_check(downloaded_app: DownloadedApp) -> None:
    assert bundle_check.check_bundle(downloaded_app.folder, SRC) == []


@pytest.mark.parametrize(
    ("removed", "said"),
    [
        # a Qt library an excluded module's plugin needs: Qt's FFmpeg media plugin links QtQuick
        ("PySide6/Qt/lib/libQt6Quick.so.6", "libffmpegmediaplugin.so links libQt6Quick.so.6"),
        # PySide's QtMultimedia imports QtNetwork when it loads
        ("PySide6/QtNetwork.abi3.so", "PySide6.QtMultimedia imports PySide6.QtNetwork"),
        # a module the app imports (lazily: the Listen window)
        ("PySide6/QtMultimedia.abi3.so", "PySide6.QtMultimedia is imported by the app"),
        ("espeakng_loader/espeak-ng-data/phontab", "eSpeak NG phoneme data is missing"),
        ("espeakng_loader/libespeak-ng.so", "eSpeak NG library is missing"),
        ("certifi/cacert.pem", "TLS certificates (certifi) is missing"),
        ("PySide6/Qt/plugins/multimedia/libffmpegmediaplugin.so", "Qt FFmpeg media plugin"),
        ("PySide6/Qt/plugins/platforms/libqxcb.so", "Qt window plugin is missing"),
        # the app's own icons (sidebar, menus) and the module that draws them
        ("castdeck/ui/icons/podcasts.svg", "app icon podcasts is missing"),
        ("PySide6/QtSvg.abi3.so", "PySide6.QtSvg is imported by the app"),
    ],
)
def test_the_check_names_a_missing_part(
    downloaded_app: DownloadedApp, tmp_path: Path, removed: str, said: str
) -> None:
    copy = linked_copy(downloaded_app.folder, tmp_path / "castdeck")
    (copy / "_internal" / removed).unlink()
    problems = bundle_check.check_bundle(copy, SRC)
    assert any(said in problem for problem in problems), problems


def test_the_check_names_a_part_that_should_have_stayed_out(
    downloaded_app: DownloadedApp, tmp_path: Path
) -> None:
    copy = linked_copy(downloaded_app.folder, tmp_path / "castdeck")
    internal = copy / "_internal"
    (internal / "PySide6" / "Qt" / "qml" / "QtQuick").mkdir(parents=True)
    (internal / "PySide6" / "Qt" / "qml" / "QtQuick" / "qmldir").write_text("module QtQuick\n")
    shutil.copy(internal / "PySide6" / "QtCore.abi3.so", internal / "PySide6" / "QtWebEngineCore.abi3.so")
    plugin = internal / "PySide6" / "Qt" / "plugins" / "platforms" / "libqvnc.so"
    shutil.copy(internal / "PySide6" / "Qt" / "plugins" / "platforms" / "libqxcb.so", plugin)
    problems = bundle_check.check_bundle(copy, SRC)
    assert any("PySide6/Qt/qml/QtQuick/qmldir" in p for p in problems), problems
    assert any("QtWebEngineCore.abi3.so" in p for p in problems), problems
    assert any("platforms/libqvnc.so: a Qt plugin the app does not use" in p for p in problems), problems
