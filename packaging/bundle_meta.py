"""What the installed app says about itself on each platform: name, identifier, version, the
macOS Info.plist and the Windows version resource. Read by the spec and by build.py."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

APP_NAME = "Castdeck"
EXECUTABLE = "castdeck"
"""The executable's name (``castdeck.exe`` on Windows; inside ``Castdeck.app`` on macOS)."""
CLI_EXECUTABLE = "castdeck-cli"
"""Windows only: the same program as a console executable, for the command-line companions
(a windowed ``castdeck.exe`` has no console to print to)."""
BUNDLE_ID = "app.castdeck.Castdeck"
DESCRIPTION = "Castdeck desktop studio"
COPYRIGHT = "Copyright © Castdeck"
MACOS_MINIMUM = "12.0"  # Qt 6.11 supports macOS 12 and later


def version() -> str:
    """The project's version (pyproject.toml), e.g. ``0.1.0``."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return str(data["project"]["version"])


def version_tuple(text: str) -> tuple[int, int, int, int]:
    """``0.1.0`` -> ``(0, 1, 0, 0)``: the four numbers of a Windows version resource."""
    numbers = [int(match.group()) if (match := re.match(r"\d+", part)) else 0 for part in text.split(".")[:4]]
    padded = [*numbers, 0, 0, 0, 0]
    return padded[0], padded[1], padded[2], padded[3]


def info_plist(version_text: str) -> dict[str, object]:
    """Keys PyInstaller adds to the .app's Info.plist (it writes the bundle's name, identifier,
    executable and icon itself). The app records no sound, so it asks for no microphone: there is
    no ``NSMicrophoneUsageDescription``. It follows the system's light or dark appearance."""
    return {
        "CFBundleDisplayName": APP_NAME,
        "CFBundleShortVersionString": version_text,
        "CFBundleVersion": version_text,
        "CFBundleDevelopmentRegion": "en",
        "LSApplicationCategoryType": "public.app-category.video",
        "LSMinimumSystemVersion": MACOS_MINIMUM,
        "NSHighResolutionCapable": True,
        "NSRequiresAquaSystemAppearance": False,  # dark mode supported
        "NSHumanReadableCopyright": COPYRIGHT,
    }


FORBIDDEN_PLIST_KEYS = ("NSMicrophoneUsageDescription", "NSCameraUsageDescription")
"""Permissions the app never asks for; build.py fails when the Info.plist carries one."""


def windows_version_file(version_text: str) -> str:
    """The version resource of ``castdeck.exe`` in PyInstaller's version-file format."""
    numbers = version_tuple(version_text)
    strings = {
        "CompanyName": APP_NAME,
        "FileDescription": DESCRIPTION,
        "FileVersion": version_text,
        "InternalName": EXECUTABLE,
        "LegalCopyright": COPYRIGHT,
        "OriginalFilename": f"{EXECUTABLE}.exe",
        "ProductName": APP_NAME,
        "ProductVersion": version_text,
    }
    table = ",\n          ".join(f"StringStruct({key!r}, {value!r})" for key, value in strings.items())
    return f"""# Windows version resource of {APP_NAME} (written by packaging/build.py)
VSVersionInfo(
  ffi=FixedFileInfo(
    filevers={numbers},
    prodvers={numbers},
    mask=0x3F,
    flags=0x0,
    OS=0x40004,
    fileType=0x1,
    subtype=0x0,
    date=(0, 0),
  ),
  kids=[
    StringFileInfo([
      StringTable('040904B0', [
          {table}
      ])
    ]),
    VarFileInfo([VarStruct('Translation', [0x0409, 1200])]),
  ],
)
"""
