"""The app's own icons ship with the package and the bundle: every one is found where the installed
package looks for it, is drawn in the house style (24×24 lines in the current colour), and is in the
bundle's data files and in the check the build runs."""

from __future__ import annotations

import importlib.resources
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import castdeck.ui.icons as icons_module
from castdeck.ui.icons import ICON_FOLDER, icon_names

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging"))
import bundle_check  # noqa: E402
import bundle_contents  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"
COLOURS = ("fill", "stroke", "color", "stop-color")


def test_every_icon_is_found_from_the_installed_package() -> None:
    names = icon_names()
    assert len(names) >= 24
    package = importlib.resources.files("castdeck.ui.icons")
    for name in names:
        assert package.joinpath(f"{name}.svg").is_file(), name
    assert Path(str(package)) == ICON_FOLDER == Path(icons_module.__file__).resolve().parent


def test_every_icon_is_a_24px_line_drawing_in_the_current_colour() -> None:
    for name in icon_names():
        root = ET.fromstring((ICON_FOLDER / f"{name}.svg").read_bytes())  # noqa: S314 (our own files)
        assert root.tag == f"{SVG}svg", name
        assert root.get("viewBox") == "0 0 24 24" and root.get("width") == root.get("height") == "24", name
        assert root.get("stroke") == "currentColor" and root.get("fill") == "none", name
        for element in root.iter():
            for attribute in COLOURS:
                value = element.get(attribute)
                assert value in (None, "none", "currentColor"), (name, element.tag, attribute, value)
            assert "style" not in element.attrib, (name, element.tag)  # no colours hidden in styles
            assert element.tag.removeprefix(SVG) in ("svg", "path", "circle", "rect", "line", "g"), name


def test_the_bundle_carries_every_icon_and_its_check_asks_for_each(tmp_path: Path) -> None:
    src = ROOT / "src" / "castdeck"
    datas = bundle_contents.icon_datas(src)
    assert sorted(Path(source).stem for source, _dest in datas) == sorted(icon_names())
    assert {dest for _source, dest in datas} == {"castdeck/ui/icons"}  # beside castdeck.ui.icons
    folder = tmp_path / "castdeck"
    required = dict(bundle_check.required_files(folder, src))
    for name in icon_names():
        assert required[f"app icon {name}"] == [
            folder / "_internal" / "castdeck" / "ui" / "icons" / f"{name}.svg"
        ]
    assert "QtSvg" in bundle_contents.USED_QT_MODULES  # QSvgRenderer draws them
    assert "PySide6.QtSvg" not in bundle_contents.EXCLUDED_MODULES
