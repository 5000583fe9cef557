"""The build's helpers (packaging/): what the check reads as the app's imports, which Qt parts
stay out, the platform metadata, the icons, the size report's parts, ELF reading. The built app
itself is tested in tests/e2e/."""

from __future__ import annotations

import plistlib
import sys
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))
import bundle_check  # noqa: E402
import bundle_contents  # noqa: E402
import bundle_elf  # noqa: E402
import bundle_icons  # noqa: E402
import bundle_meta  # noqa: E402
import bundle_sizes  # noqa: E402


def test_the_apps_imports_are_read_at_any_depth_but_not_those_for_type_checkers(tmp_path: Path) -> None:
    package = tmp_path / "castdeck"
    (package / "ui").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "ui" / "__init__.py").write_text("")
    (package / "ui" / "helper.py").write_text("")
    (package / "ui" / "window.py").write_text(
        "from __future__ import annotations\n"
        "from typing import TYPE_CHECKING\n"
        "from PySide6 import QtMultimedia\n"
        "from . import helper\n"
        "from ..ui.helper import thing\n"
        "if TYPE_CHECKING:\n"
        "    import only_for_mypy\n"
        "else:\n"
        "    import json\n"
        "def later():\n"
        "    import sqlite3.dbapi2\n"
    )
    imported = bundle_check.imported_modules(package)
    assert {"PySide6", "PySide6.QtMultimedia", "castdeck.ui.helper", "json", "sqlite3.dbapi2"} <= imported
    assert "only_for_mypy" not in imported
    assert "castdeck.ui.helper.thing" not in imported  # a name, not a module
    assert bundle_contents.app_modules(package) == {
        "castdeck",
        "castdeck.ui",
        "castdeck.ui.helper",
        "castdeck.ui.window",
    }


def test_every_module_of_the_app_is_read(tmp_path: Path) -> None:
    modules = bundle_contents.app_modules(ROOT / "src" / "castdeck")
    assert {
        "castdeck.__main__",
        "castdeck.sandbox.__main__",
        "castdeck.cli.transcript",
        "castdeck.ui.listen",
    } <= modules


@pytest.mark.parametrize(
    ("plugin", "used"),
    [
        ("platforms/libqxcb.so", True),
        ("platforms/libqwayland.so", True),
        ("platforms/libqoffscreen.so", True),
        ("platforms/qwindows.dll", True),
        ("platforms/libqcocoa.dylib", True),
        ("platforms/libqvnc.so", False),
        ("platforms/libqeglfs.so", False),
        ("platformthemes/libqgtk3.so", False),
        ("platformthemes/libqxdgdesktopportal.so", True),
        ("platforminputcontexts/libqtvirtualkeyboardplugin.so", False),
        ("platforminputcontexts/libcomposeplatforminputcontextplugin.so", True),
        ("multimedia/libffmpegmediaplugin.so", True),
        ("imageformats/libqsvg.so", True),
        ("imageformats/libqtiff.so", False),
        ("generic/libqevdevmouseplugin.so", False),
    ],
)
def test_unused_qt_plugins_stay_out(plugin: str, used: bool) -> None:
    assert bundle_contents.plugin_used(plugin) is used
    source = f"/site/PySide6/Qt/plugins/{plugin}"
    dest = "PySide6/Qt/plugins/" + plugin.rsplit("/", 1)[0]
    assert bundle_contents.used_plugins([(source, dest)]) == ([(source, dest)] if used else [])


@pytest.mark.parametrize(
    ("dest", "ships"),
    [
        ("PySide6/Qt/lib/libQt6Quick.so.6", True),  # Qt's FFmpeg media plugin links it
        ("PySide6/Qt/lib/libQt6Qml.so.6", True),
        ("PySide6/Qt/lib/libQt6Multimedia.so.6", True),
        ("PySide6/Qt/lib/libQt6WebEngineCore.so.6", False),
        ("PySide6/Qt6Pdf.dll", False),
        ("PySide6/Qt/lib/QtCharts.framework/Versions/A/QtCharts", False),
        ("PySide6/Qt/lib/libQt6QuickControls2.so.6", False),
        ("PySide6/Qt/qml/QtQuick/qmldir", False),
        ("PySide6\\translations\\qtbase_de.qm", False),
    ],
)
def test_what_ships(dest: str, ships: bool) -> None:
    assert bundle_contents.shipped(dest) is ships


def test_the_windows_version_resource_and_the_macos_info_plist(tmp_path: Path) -> None:
    version = bundle_meta.version()
    path = tmp_path / "version.txt"
    path.write_text(bundle_meta.windows_version_file(version))
    bundle_check.check_version_file(path, version)
    assert bundle_meta.version_tuple("1.2.3rc1") == (1, 2, 3, 0)
    plist = bundle_meta.info_plist(version)
    assert bundle_check.check_info_plist(plist) == []
    assert plistlib.loads(plistlib.dumps(plist))["CFBundleShortVersionString"] == version
    with pytest.raises(ValueError, match="NSMicrophoneUsageDescription"):
        bundle_check.check_info_plist({**plist, "NSMicrophoneUsageDescription": "to record"})
    with pytest.raises(ValueError, match="dark mode"):
        bundle_check.check_info_plist({**plist, "NSRequiresAquaSystemAppearance": True})
    path.write_text(bundle_meta.windows_version_file("9.9.9"))
    with pytest.raises(ValueError, match="FileVersion"):
        bundle_check.check_version_file(path, version)


def test_icons_are_drawn_from_the_svg_at_every_size(tmp_path: Path) -> None:
    icons = bundle_icons.make_icons(ROOT / "resources" / "castdeck.svg", tmp_path)
    for size in bundle_icons.PNG_SIZES:
        with Image.open(icons[f"png-{size}"]) as png:
            assert png.size == (size, size)
            assert png.getpixel((size // 2, size // 2))[3] == 255  # drawn, not transparent
            assert png.getpixel((0, 0))[3] < 255  # the rounded corner
    with Image.open(icons["ico"]) as ico:
        assert set(ico.info["sizes"]) == {(s, s) for s in bundle_icons.ICO_SIZES}
    with Image.open(icons["icns"]) as icns:
        assert (512, 512, 2) in icns.info["sizes"]


@pytest.mark.parametrize(
    ("path", "part"),
    [
        ("_internal/espeakng_loader/espeak-ng-data/en_dict", "eSpeak NG"),
        ("_internal/PySide6/Qt/lib/libavcodec.so.61", "FFmpeg in Qt"),
        ("_internal/av.libs/libavcodec-5e6b81c2.so.62.28.102", "FFmpeg in PyAV"),
        ("_internal/av.libs/libx264-d6533a8d.so.165", "FFmpeg in PyAV"),
        ("_internal/av/_core.abi3.so", "PyAV bindings"),
        ("_internal/PySide6/Qt/lib/libQt6Core.so.6", "Qt"),
        ("_internal/PySide6/Qt/lib/libicudata.so.73", "Qt"),
        ("_internal/libpython3.11.so.1.0", "Python"),
        ("_internal/base_library.zip", "Python"),
        ("castdeck", "Python"),
        ("_internal/numpy.libs/libscipy_openblas64_-32a4b2a6.so", "NumPy"),
        ("_internal/libX11.so.6", "system libraries"),
        ("_internal/pydantic_core/_pydantic_core.cpython-311-x86_64-linux-gnu.so", "other Python packages"),
        ("_internal/PySide6/avcodec-61.dll", "FFmpeg in Qt"),
        ("Contents/Frameworks/PySide6/Qt/lib/QtCore.framework/Versions/A/QtCore", "Qt"),
    ],
)
def test_size_report_parts(path: str, part: str) -> None:
    assert bundle_sizes.part_of(path).startswith(part)


def test_elf_reading_on_pyside_itself() -> None:
    import PySide6

    module = next(Path(PySide6.__file__).parent.glob("QtMultimedia.*.so"))
    assert bundle_elf.is_elf(module)
    assert {"libQt6Multimedia.so.6", "libQt6Network.so.6"} <= set(bundle_elf.needed(module))
    assert bundle_elf.loads_aligned(module)
    assert not bundle_elf.is_elf(ROOT / "pyproject.toml")
