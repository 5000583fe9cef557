"""A video frame as a ``QImage``, made on a worker thread.

``QVideoFrame.toImage()`` converts on the GPU through Qt's rendering hardware interface; where
there is none (a headless machine, a remote session) it warns and converts on the CPU. The
common planar YUV formats the FFmpeg backend delivers are converted here with numpy instead (the
matrices of BT.601 and BT.709, video or full range); other formats fall back to ``toImage()``.
Everything here may run on any thread: it touches ``QImage`` only, never ``QPixmap``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QImage, QTransform

from .. import multimedia

if TYPE_CHECKING:
    from ..multimedia import QVideoFrame

__all__ = ["fit_image", "frame_image"]


@dataclass(frozen=True)
class _Formats:
    """QtMultimedia's pixel formats and rotations this module converts (made when first needed:
    only a frame, which QtMultimedia made, ever asks)."""

    planar: dict[Any, tuple[int, int, int]]  # (u plane, v plane, vertical chroma subsampling)
    semi_planar: dict[Any, bool]  # True: V comes first
    wide: dict[Any, int]  # 16-bit semi-planar: keep the high byte
    wide_planar: dict[Any, int]  # 16-bit planar, 10 bits used
    rotations: dict[Any, int]
    frame_format: Any  # QVideoFrameFormat
    read_only: Any  # QVideoFrame.MapMode.ReadOnly


@functools.cache
def _formats() -> _Formats:
    qt = multimedia.require()
    pf = qt.QVideoFrameFormat.PixelFormat
    return _Formats(
        planar={pf.Format_YUV420P: (1, 2, 2), pf.Format_YV12: (2, 1, 2), pf.Format_YUV422P: (1, 2, 1)},
        semi_planar={pf.Format_NV12: False, pf.Format_NV21: True},
        wide={pf.Format_P010: 8, pf.Format_P016: 8},
        wide_planar={pf.Format_YUV420P10: 2},
        rotations={
            qt.QtVideo.Rotation.Clockwise90: 90,
            qt.QtVideo.Rotation.Clockwise180: 180,
            qt.QtVideo.Rotation.Clockwise270: 270,
        },
        frame_format=qt.QVideoFrameFormat,
        read_only=qt.QVideoFrame.MapMode.ReadOnly,
    )


# fixed-point (x256) coefficients: (luma, r from v, g from u, g from v, b from u)
_MATRICES = {
    (False, False): (298, 409, 100, 208, 516),  # BT.601, video range
    (True, False): (298, 459, 55, 136, 541),  # BT.709, video range
    (False, True): (256, 359, 88, 183, 454),  # BT.601, full range
    (True, True): (256, 403, 48, 120, 475),  # BT.709, full range
}


def _plane(frame: QVideoFrame, index: int, width: int, height: int, dtype: type = np.uint8) -> np.ndarray:
    itemsize = np.dtype(dtype).itemsize
    stride = frame.bytesPerLine(index) // itemsize
    data: np.ndarray = np.frombuffer(frame.bits(index), dtype=dtype)
    return data[: stride * height].reshape(height, stride)[:, :width]


def _rgb32(y: np.ndarray, u: np.ndarray, v: np.ndarray, *, bt709: bool, full: bool) -> QImage:
    """Y at full size, U and V at any whole subsampling: a ``Format_RGB32`` image."""
    height, width = y.shape
    u = np.repeat(np.repeat(u, -(-height // u.shape[0]), axis=0), -(-width // u.shape[1]), axis=1)
    v = np.repeat(np.repeat(v, -(-height // v.shape[0]), axis=0), -(-width // v.shape[1]), axis=1)
    luma, rv, gu, gv, bu = _MATRICES[(bt709, full)]
    c = (y.astype(np.int32) - (0 if full else 16)) * luma + 128
    d = u[:height, :width].astype(np.int32) - 128
    e = v[:height, :width].astype(np.int32) - 128
    out = np.empty((height, width, 4), dtype=np.uint8)
    out[..., 2] = np.clip((c + rv * e) >> 8, 0, 255)
    out[..., 1] = np.clip((c - gu * d - gv * e) >> 8, 0, 255)
    out[..., 0] = np.clip((c + bu * d) >> 8, 0, 255)
    out[..., 3] = 255
    image = QImage(out.data, width, height, width * 4, QImage.Format.Format_RGB32)
    return image.copy()  # owns its pixels (``out`` goes away)


def _convert(frame: QVideoFrame) -> QImage | None:
    formats = _formats()
    frame_format = formats.frame_format
    fmt = frame.surfaceFormat()
    pixel = frame.pixelFormat()
    width, height = frame.width(), frame.height()
    half_w, half_h = (width + 1) // 2, (height + 1) // 2
    full = fmt.colorRange() == frame_format.ColorRange.ColorRange_Full
    space = fmt.colorSpace()
    bt709 = space in (
        frame_format.ColorSpace.ColorSpace_BT709,
        frame_format.ColorSpace.ColorSpace_BT2020,
    ) or (space == frame_format.ColorSpace.ColorSpace_Undefined and height >= 720)
    if pixel in formats.planar:
        u_index, v_index, vertical = formats.planar[pixel]
        chroma_h = half_h if vertical == 2 else height
        y = _plane(frame, 0, width, height)
        u = _plane(frame, u_index, half_w, chroma_h)
        v = _plane(frame, v_index, half_w, chroma_h)
        return _rgb32(y, u, v, bt709=bt709, full=full)
    if pixel in formats.wide_planar:
        shift = formats.wide_planar[pixel]
        y = (_plane(frame, 0, width, height, np.uint16) >> shift).astype(np.uint8)
        u = (_plane(frame, 1, half_w, half_h, np.uint16) >> shift).astype(np.uint8)
        v = (_plane(frame, 2, half_w, half_h, np.uint16) >> shift).astype(np.uint8)
        return _rgb32(y, u, v, bt709=bt709, full=full)
    if pixel in formats.semi_planar or pixel in formats.wide:
        wide = pixel in formats.wide
        dtype = np.uint16 if wide else np.uint8
        y = _plane(frame, 0, width, height, dtype)
        uv = _plane(frame, 1, half_w * 2, half_h, dtype)
        if wide:
            y, uv = (y >> 8).astype(np.uint8), (uv >> 8).astype(np.uint8)
        first, second = uv[:, 0::2], uv[:, 1::2]
        u, v = (second, first) if formats.semi_planar.get(pixel) else (first, second)
        return _rgb32(y, u, v, bt709=bt709, full=full)
    image_format = frame_format.imageFormatFromPixelFormat(pixel)
    if image_format != QImage.Format.Format_Invalid:
        plain = QImage(frame.bits(0), width, height, frame.bytesPerLine(0), image_format)
        return plain.copy()
    return None


def frame_image(frame: QVideoFrame, fit: QSize | None = None) -> QImage | None:
    """The picture of ``frame`` (upright, as it is meant to be seen), scaled to fit ``fit`` when
    given; ``None`` for a frame without a picture."""
    if not frame.isValid():
        return None
    image: QImage | None = None
    formats = _formats()
    if frame.map(formats.read_only):
        try:
            image = _convert(frame)
        finally:
            frame.unmap()
    if image is None:
        image = frame.toImage()  # a format not converted here: Qt's own conversion
        if image.isNull():
            return None
    rotations = formats.rotations
    angle = (rotations.get(frame.rotation(), 0) + rotations.get(frame.surfaceFormat().rotation(), 0)) % 360
    if angle:
        image = image.transformed(QTransform().rotate(angle))
    if frame.mirrored() != frame.surfaceFormat().isMirrored():
        image = image.mirrored(True, False)
    return fit_image(image, fit) if fit is not None else image


def fit_image(image: QImage, fit: QSize) -> QImage:
    """``image`` scaled (smoothly) to fit inside ``fit``, keeping its aspect; never larger."""
    if image.isNull() or fit.isEmpty():
        return image
    if image.width() <= fit.width() and image.height() <= fit.height():
        return image
    return image.scaled(fit, Qt.AspectRatioMode.KeepAspectRatio, Qt.TransformationMode.SmoothTransformation)
