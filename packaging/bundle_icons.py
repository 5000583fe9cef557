"""The app's icons, made from ``resources/castdeck.svg`` at build time: PNGs for Linux (the
desktop's hicolor theme and the AppImage), ``castdeck.ico`` for Windows and ``castdeck.icns``
for macOS. QtSvg rasterises the drawing; Pillow writes the .ico and .icns containers."""

from __future__ import annotations

import os
from pathlib import Path

PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512, 1024)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)
ICNS_SIZES = (16, 32, 64, 128, 256, 512, 1024)


def render_pngs(svg: Path, folder: Path) -> dict[int, Path]:
    """``folder/castdeck-SIZE.png`` for every size, drawn from the SVG at that size (not scaled
    from one picture, so small sizes stay crisp)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    _app = QGuiApplication.instance() or QGuiApplication([])
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise RuntimeError(f"{svg} is not an SVG QtSvg can draw")
    folder.mkdir(parents=True, exist_ok=True)
    made: dict[int, Path] = {}
    for size in PNG_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter)
        painter.end()
        path = folder / f"castdeck-{size}.png"
        if not image.save(str(path)):  # PNG, from the suffix
            raise RuntimeError(f"could not write {path}")
        made[size] = path
    return made


def write_ico(pngs: dict[int, Path], path: Path) -> Path:
    from PIL import Image

    largest = Image.open(pngs[max(ICO_SIZES)])
    frames = [Image.open(pngs[size]) for size in ICO_SIZES]
    largest.save(path, format="ICO", sizes=[(s, s) for s in ICO_SIZES], append_images=frames)
    return path


def write_icns(pngs: dict[int, Path], path: Path) -> Path:
    from PIL import Image

    largest = Image.open(pngs[max(ICNS_SIZES)])
    frames = [Image.open(pngs[size]) for size in ICNS_SIZES if size != max(ICNS_SIZES)]
    largest.save(path, format="ICNS", append_images=frames)
    return path


def make_icons(svg: Path, folder: Path) -> dict[str, Path]:
    """Every icon file the build needs, in ``folder``: ``png`` (the 256 px one), ``ico``, ``icns``,
    and ``png-SIZE`` for each PNG size."""
    pngs = render_pngs(svg, folder / "png")
    icons: dict[str, Path] = {f"png-{size}": path for size, path in pngs.items()}
    icons["png"] = pngs[256]
    icons["ico"] = write_ico(pngs, folder / "castdeck.ico")
    icons["icns"] = write_icns(pngs, folder / "castdeck.icns")
    return icons
