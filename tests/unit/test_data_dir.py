"""The app's data folder is where platformdirs puts it, though start-up no longer imports it on
Linux and macOS (``castdeck.startup.user_data_dir``)."""

from __future__ import annotations

import sys
from pathlib import Path

import platformdirs.macos
import platformdirs.unix
import pytest

from castdeck.startup import user_data_dir


@pytest.mark.parametrize("xdg", [None, "", "   ", "/srv/data", "relative/data"])
def test_the_data_folder_on_linux_is_platformdirs(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, xdg: str | None
) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    if xdg is None:
        monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_DATA_HOME", xdg)
    expected = Path(platformdirs.unix.Unix("castdeck", appauthor=False).user_data_dir)
    assert user_data_dir() == expected
    assert expected.parts[-1] == "castdeck"


def test_the_data_folder_on_macos_is_platformdirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(sys, "platform", "darwin")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_DATA_HOME", "/not/on/macos")
    expected = Path(platformdirs.macos.MacOS("castdeck", appauthor=False).user_data_dir)
    assert user_data_dir() == expected
    assert expected == tmp_path / "home" / "Library" / "Application Support" / "castdeck"
