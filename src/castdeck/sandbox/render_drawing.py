"""Drawing for the sandbox's renders: fonts, wrapped text, colours, pictures and slide frames.

The helpers here (``load_font``, ``wrap``, ``palette``, ``gradient``...) draw with Pillow and
write no files; ``SlideRenderer`` draws each ``Slide`` of a video once and the per-frame overlay
(progress bar, caption) over it. The cover art in ``render`` uses the same helpers.
"""

from __future__ import annotations

import colorsys
import functools
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont, ImageOps

__all__ = [
    "RGB",
    "Font",
    "Slide",
    "SlideRenderer",
    "gradient",
    "line_height",
    "load_font",
    "palette",
    "text_width",
    "wrap",
]

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Slide:
    start: float  # seconds
    title: str
    body: str
    image: Path | None = None  # a user-supplied picture (png/jpeg/webp) shown with the text


# --- fonts, text and pictures -----------------------------------------------------------------------------

_FONT_CANDIDATES = {
    False: (
        "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans.ttf",
        "/usr/share/fonts/TTF/DejaVuSans.ttf",
        "/System/Library/Fonts/Supplemental/Arial.ttf",
        "/Library/Fonts/Arial.ttf",
        "C:\\Windows\\Fonts\\arial.ttf",
    ),
    True: (
        "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/dejavu/DejaVuSans-Bold.ttf",
        "/usr/share/fonts/TTF/DejaVuSans-Bold.ttf",
        "/System/Library/Fonts/Supplemental/Arial Bold.ttf",
        "/Library/Fonts/Arial Bold.ttf",
        "C:\\Windows\\Fonts\\arialbd.ttf",
    ),
}


@functools.lru_cache(maxsize=64)
def load_font(size: int, bold: bool = False) -> Font:
    size = max(6, size)
    for candidate in _FONT_CANDIDATES[bold]:
        if os.path.exists(candidate):
            try:
                return ImageFont.truetype(candidate, size)
            except OSError:
                continue
    return ImageFont.load_default(size)


def text_width(font: Font, text: str) -> float:
    return float(font.getlength(text))


def wrap(text: str, font: Font, width: float, max_lines: int) -> list[str]:
    """Greedy word wrap to ``width`` pixels; the last line gets an ellipsis when text is left over."""
    lines: list[str] = []
    for paragraph in text.splitlines() or [""]:
        words = paragraph.split()
        line = ""
        for word in words:
            candidate = f"{line} {word}" if line else word
            if text_width(font, candidate) <= width or not line:
                line = candidate
                while text_width(font, line) > width and len(line) > 1:  # a single over-long word
                    lo, hi = 1, len(line) - 1  # the longest prefix that fits (at least one character)
                    while lo < hi:
                        mid = (lo + hi + 1) // 2
                        if text_width(font, line[:mid]) <= width:
                            lo = mid
                        else:
                            hi = mid - 1
                    lines.append(line[:lo])
                    line = line[lo:]
            else:
                lines.append(line)
                line = word
        lines.append(line)
    lines = [ln for ln in lines if ln.strip()] or []
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        while last and text_width(font, last + "…") > width:
            last = last[:-1]
        lines[-1] = last.rstrip() + "…"
    return lines


def line_height(font: Font) -> int:
    box = font.getbbox("Ág")
    return int((box[3] - box[1]) * 1.3) + 1


def palette(index: int, seed: str = "") -> tuple[RGB, RGB, RGB]:
    """Two background colours and an accent for slide ``index`` (deterministic)."""
    digest = hashlib.sha256(f"{seed}:{index}".encode()).digest()
    hue = (digest[0] / 255.0 + index * 0.13) % 1.0

    def rgb(h: float, light: float, sat: float) -> RGB:
        r, g, b = colorsys.hls_to_rgb(h % 1.0, light, sat)
        return (round(r * 255), round(g * 255), round(b * 255))

    return rgb(hue, 0.20, 0.45), rgb(hue + 0.08, 0.09, 0.40), rgb(hue + 0.5, 0.62, 0.80)


def gradient(size: tuple[int, int], top: RGB, bottom: RGB) -> Image.Image:
    w, h = size
    t = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None]
    column = (np.array(top, np.float32) * (1 - t) + np.array(bottom, np.float32) * t).astype(np.uint8)
    return Image.fromarray(np.ascontiguousarray(np.broadcast_to(column[:, None, :], (h, w, 3))), "RGB")


def _load_picture(path: Path | None) -> Image.Image | None:
    if path is None:
        return None
    try:
        with Image.open(path) as im:
            im.draft("RGB", (2048, 2048))  # JPEG: decode at a reduced scale when large
            return ImageOps.exif_transpose(im).convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError):
        return None


# --- slides -----------------------------------------------------------------------------------------------


class SlideRenderer:
    """Draws slide backgrounds once, then per-frame overlays (progress bar, captions)."""

    def __init__(self, size: tuple[int, int], slides: Sequence[Slide], captions: bool) -> None:
        self.size = size
        self.slides = slides
        self.captions = captions
        w, h = size
        self.unit = min(w, h)
        self.bar_h = max(3, h // 90)
        self.caption_h = int(self.unit * 0.16) if captions else 0
        self.caption_font = load_font(int(self.unit * 0.06), bold=True)
        self._bases: dict[int, Image.Image] = {}

    def caption_chars(self) -> int:
        """About how many characters fit on one caption line."""
        sample = "the quick brown fox jumps over a lazy dog "
        per_char = text_width(self.caption_font, sample) / len(sample)
        return max(8, int(self.size[0] * 0.86 / max(1.0, per_char)))

    def base(self, index: int) -> Image.Image:
        img = self._bases.get(index)
        if img is None:
            img = self._draw_slide(index)
            self._bases[index] = img
        return img

    def _draw_slide(self, index: int) -> Image.Image:
        w, h = self.size
        slide = self.slides[index] if self.slides else Slide(0.0, "", "")
        top, bottom, accent = palette(index, slide.title)
        img = gradient(self.size, top, bottom)
        draw = ImageDraw.Draw(img)
        margin = int(self.unit * 0.07)
        bottom_limit = h - self.bar_h - self.caption_h - margin // 2
        title_font = load_font(int(self.unit * 0.085), bold=True)
        body_font = load_font(int(self.unit * 0.052))
        picture = _load_picture(slide.image)
        landscape = w >= h

        text_w = w - 2 * margin
        if picture is not None and landscape:
            text_w = int((w - 3 * margin) * 0.5)
        # Title (up to two lines) with an accent rule under it.
        y = margin
        title_lines = wrap(slide.title, title_font, w - 2 * margin, 2)
        th = line_height(title_font)
        for line in title_lines:
            draw.text((margin, y), line, font=title_font, fill=(255, 255, 255))
            y += th
        if title_lines:
            y += int(self.unit * 0.015)
            draw.rectangle((margin, y, margin + int(self.unit * 0.12), y + max(2, h // 120)), fill=accent)
            y += int(self.unit * 0.05)

        if picture is not None:
            if landscape:
                box = (margin * 2 + text_w, y, w - margin, bottom_limit)
            else:
                box = (margin, y, w - margin, y + int((bottom_limit - y) * 0.5))
            bw, bh = box[2] - box[0], box[3] - box[1]
            if bw > 8 and bh > 8:
                fitted = ImageOps.contain(picture, (bw, bh), Image.Resampling.BILINEAR)
                px = box[0] + (bw - fitted.width) // 2
                py = box[1] + (bh - fitted.height) // 2
                img.paste(fitted, (px, py))
                if not landscape:
                    y = box[3] + int(self.unit * 0.04)

        bh_line = line_height(body_font)
        max_lines = max(0, (bottom_limit - y) // bh_line)
        for line in wrap(slide.body, body_font, text_w, max_lines) if max_lines else []:
            draw.text((margin, y), line, font=body_font, fill=(232, 232, 240))
            y += bh_line
        return img

    def zoomed(self, index: int, zoom: float) -> Image.Image:
        base = self.base(index)
        if zoom <= 1.0005:
            return base
        w, h = self.size
        cw, ch = w / zoom, h / zoom
        x0, y0 = (w - cw) / 2, (h - ch) / 2
        return base.resize(self.size, Image.Resampling.BILINEAR, box=(x0, y0, x0 + cw, y0 + ch))

    def overlay(self, img: Image.Image, progress_px: int, caption: str | None, accent: RGB) -> Image.Image:
        w, h = self.size
        out = img.copy()
        draw = ImageDraw.Draw(out)
        draw.rectangle((0, h - self.bar_h, w, h), fill=(20, 20, 26))
        if progress_px > 0:
            draw.rectangle((0, h - self.bar_h, progress_px, h), fill=accent)
        if caption:
            font = self.caption_font
            lines = wrap(caption, font, w * 0.9, 2)
            lh = line_height(font)
            top = h - self.bar_h - self.caption_h
            box_top = top + (self.caption_h - lh * len(lines)) // 2 - 4
            widest = max((text_width(font, ln) for ln in lines), default=0.0)
            pad = int(self.unit * 0.02)
            draw.rectangle(
                ((w - widest) / 2 - pad, box_top, (w + widest) / 2 + pad, box_top + lh * len(lines) + 8),
                fill=(0, 0, 0),
            )
            for i, line in enumerate(lines):
                x = (w - text_width(font, line)) / 2
                draw.text((x, box_top + 4 + i * lh), line, font=font, fill=(255, 236, 120))
        return out
