"""What goes into the bundle and what stays out.

The app imports five Qt modules (QtCore, QtGui, QtWidgets, QtMultimedia, and QtSvg, which draws
its icons), and PySide's QtMultimedia imports QtNetwork (its types use QtNetwork's); every other
PySide6 module stays out, with its Qt libraries, plugins, QML files and translations. Some Qt libraries
of unused modules are still needed: Qt's FFmpeg media plugin links QtQuick, QtQml and QtOpenGL,
so those libraries ship (their Python modules and QML files do not). build.py checks the result
(bundle_check.py): every module the app imports is inside and every library finds its Qt
libraries.
"""

from __future__ import annotations

import re
from pathlib import Path

USED_QT_MODULES = ("QtCore", "QtGui", "QtWidgets", "QtMultimedia", "QtNetwork", "QtSvg")

_UNUSED_QT = [
    "Qt3DAnimation",
    "Qt3DCore",
    "Qt3DExtras",
    "Qt3DInput",
    "Qt3DLogic",
    "Qt3DRender",
    "QtBluetooth",
    "QtCanvasPainter",
    "QtCharts",
    "QtConcurrent",
    "QtDBus",
    "QtDataVisualization",
    "QtDesigner",
    "QtGraphs",
    "QtGraphsWidgets",
    "QtHelp",
    "QtHttpServer",
    "QtLocation",
    "QtMultimediaWidgets",
    "QtNetworkAuth",
    "QtNfc",
    "QtOpenGL",
    "QtOpenGLWidgets",
    "QtPdf",
    "QtPdfWidgets",
    "QtPositioning",
    "QtPrintSupport",
    "QtQml",
    "QtQuick",
    "QtQuick3D",
    "QtQuickControls2",
    "QtQuickTest",
    "QtQuickWidgets",
    "QtRemoteObjects",
    "QtScxml",
    "QtSensors",
    "QtSerialBus",
    "QtSerialPort",
    "QtSpatialAudio",
    "QtSql",
    "QtStateMachine",
    "QtSvgWidgets",
    "QtTest",
    "QtTextToSpeech",
    "QtUiTools",
    "QtWebChannel",
    "QtWebEngineCore",
    "QtWebEngineQuick",
    "QtWebEngineWidgets",
    "QtWebSockets",
    "QtWebView",
    "QtXml",
]

EXCLUDED_MODULES = [
    *(f"PySide6.{name}" for name in _UNUSED_QT),
    "PySide6.scripts",  # pyside6-designer, -uic, ... (developer tools)
    "tkinter",
    "_tkinter",
    # Build tools that come with PyInstaller into the build environment. Packed, setuptools' run-time
    # hook imports it at every start (about 60 ms); nothing the app runs imports it.
    "setuptools",
    "_distutils_hack",
    "distutils",
    "pkg_resources",
]
"""Python modules kept out of the analysis (and so their Qt libraries and plugins)."""

NOT_SHIPPED = [
    # Qt libraries of modules the app does not use, should anything pull them in (libQt6Pdf.so.6,
    # Qt6Pdf.dll, QtPdf.framework).
    r"(lib)?Qt6?(WebEngine|Pdf|3D|Charts|Graphs|DataVisualization|Designer|Quick3D|QuickControls2"
    r"|QuickTemplates2|QuickDialogs|QuickLayouts|QuickTest|QuickWidgets|Location|Positioning|Sensors"
    r"|SerialPort|SerialBus|Sql|Test|TextToSpeech|WebChannel|WebSockets|WebView|Bluetooth|Nfc"
    r"|RemoteObjects|Scxml|StateMachine|Help|HttpServer|SpatialAudio|Labs|ShaderTools|UiTools"
    r"|CanvasPainter|VirtualKeyboard)",
    # QML files: the app has no QML (the media plugin needs QtQuick's library, not its QML types).
    r"PySide6/Qt/qml/",
    r"PySide6/qml/",
    # Qt's own translations: the app installs no translator.
    r"PySide6/Qt/translations/",
    r"PySide6/translations/",
]
_NOT_SHIPPED = re.compile("|".join(f"(?:{pattern})" for pattern in NOT_SHIPPED))

UNUSED_PLUGINS = [
    # platforms for kernel displays and remote framebuffers (not a desktop app's): xcb, wayland,
    # offscreen and minimal stay on Linux, windows and cocoa elsewhere
    r"^platforms/(lib)?q(eglfs|linuxfb|vnc|vkkhrdisplay|minimalegl)\b",
    r"^egldeviceintegrations/",
    r"^generic/",  # evdev and TUIO input, loaded only by those platforms or on request
    r"^platforminputcontexts/(lib)?qtvirtualkeyboard",  # the on-screen keyboard (QML)
    # the GTK theme plugin brings GTK's whole stack (cairo, pango, gdk-pixbuf, atk) against the
    # user's own GTK; the xdg-desktop-portal theme (light/dark scheme, file dialogs) stays
    r"^platformthemes/(lib)?qgtk3",
    r"^imageformats/(lib)?q(tiff|pdf)\b",  # TIFF needs a libtiff most systems lack; PDF needs QtPdf
]
"""Qt plugins left out, as ``TYPE/FILE`` patterns (``platforms/libqvnc.so``)."""
_UNUSED_PLUGINS = re.compile("|".join(f"(?:{pattern})" for pattern in UNUSED_PLUGINS))


def plugin_used(plugin: str) -> bool:
    """Whether a Qt plugin (``TYPE/FILE``, e.g. ``platforms/libqxcb.so``) ships."""
    return _UNUSED_PLUGINS.search(plugin) is None


def used_plugins(binaries: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """A Qt hook's ``(source, destination folder)`` binaries without the unused plugins."""
    kept = []
    for source, dest in binaries:
        parts = dest.replace("\\", "/").split("/")
        if "plugins" in parts:
            name = source.replace("\\", "/").rsplit("/", 1)[-1]
            if not plugin_used("/".join([*parts[parts.index("plugins") + 1 :], name])):
                continue
        kept.append((source, dest))
    return kept


def keep(toc: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """An Analysis TOC (``(dest, source, kind)`` entries) without the files that do not ship."""
    return [entry for entry in toc if shipped(entry[0])]


def shipped(dest: str) -> bool:
    """Whether a file that ends up at ``dest`` (relative to the bundle) ships."""
    return _NOT_SHIPPED.search(dest.replace("\\", "/")) is None


def app_modules(src: Path) -> set[str]:
    """The app's own modules (``castdeck``, ``castdeck.app``, ...)."""
    names = set()
    for path in src.rglob("*.py"):
        parts = list(path.relative_to(src.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names.add(".".join(parts))
    return names


ICON_FOLDER = ("castdeck", "ui", "icons")
"""Where the app's own icons are, inside the package (src/castdeck/ui/icons) and the bundle."""


def icon_files(src: Path) -> list[Path]:
    """The app's icon drawings (``src`` is the castdeck package)."""
    return sorted(src.parent.joinpath(*ICON_FOLDER).glob("*.svg"))


def icon_datas(src: Path) -> list[tuple[str, str]]:
    """``(source, destination folder)`` pairs for the spec's datas: each icon where the package's
    ``castdeck.ui.icons`` looks for it in the bundle (beside its module)."""
    return [(str(path), "/".join(ICON_FOLDER)) for path in icon_files(src)]
