"""The upload file-type contract: supported MIME types, their extensions, and file signatures (spec 2.8).

Pure functions only; nothing here reads files. Pass the first :data:`SNIFF_BYTES` bytes of a file.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Final

from .limits import MAX_FILE_NAME_CHARS

__all__ = [
    "MIME_BY_EXTENSION",
    "RESEARCH_MIME_TYPES",
    "SNIFF_BYTES",
    "TEXT_MIME_TYPES",
    "VISUAL_MIME_TYPES",
    "VOICEOVER_VISUAL_MIME_TYPES",
    "canonical_mime",
    "extension_matches",
    "file_extension",
    "is_acceptable_file_name",
    "is_video_mime",
    "mime_for_filename",
    "signature_matches",
    "sniff_mime",
]

SNIFF_BYTES: Final = 4096

PDF = "application/pdf"
PPT = "application/vnd.ms-powerpoint"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
PPTM = "application/vnd.ms-powerpoint.presentation.macroEnabled.12"
KEYNOTE = "application/vnd.apple.keynote"
ODP = "application/vnd.oasis.opendocument.presentation"
PNG = "image/png"
JPEG = "image/jpeg"
WEBP = "image/webp"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
DOC = "application/msword"
RTF = "application/rtf"
ODT = "application/vnd.oasis.opendocument.text"

_Table = Mapping[str, tuple[str, ...]]

VISUAL_MIME_TYPES: Final[_Table] = MappingProxyType(
    {
        PDF: (".pdf",),
        PPT: (".ppt",),
        PPTX: (".pptx",),
        PPTM: (".pptm",),
        KEYNOTE: (".key",),
        ODP: (".odp",),
        PNG: (".png",),
        JPEG: (".jpg", ".jpeg"),
        WEBP: (".webp",),
    }
)
"""Supported types with ``prepare_visuals`` (the full table of the spec), with their extensions."""

VOICEOVER_VISUAL_MIME_TYPES: Final[_Table] = MappingProxyType(
    {PDF: (".pdf",), PPTX: (".pptx",), PNG: (".png",), JPEG: (".jpg", ".jpeg"), WEBP: (".webp",)}
)
"""The narrower list one reference gives for Voiceover visuals; safe everywhere."""

TEXT_MIME_TYPES: Final[_Table] = MappingProxyType(
    {
        "text/plain": (".txt",),
        "text/markdown": (".md", ".markdown"),
        "text/csv": (".csv",),
        "text/html": (".html", ".htm"),
        "application/json": (".json",),
    }
)
"""Types whose content is UTF-8 text."""

RESEARCH_MIME_TYPES: Final[_Table] = MappingProxyType(
    {
        **VISUAL_MIME_TYPES,
        **TEXT_MIME_TYPES,
        DOCX: (".docx",),
        XLSX: (".xlsx",),
        DOC: (".doc",),
        RTF: (".rtf",),
        ODT: (".odt",),
        "audio/mpeg": (".mp3",),
        "audio/wav": (".wav",),
        "audio/mp4": (".m4a",),
        "audio/ogg": (".ogg",),
        "audio/flac": (".flac",),
        "image/gif": (".gif",),
    }
)
"""Supported types of general research uploads (without ``prepare_visuals``)."""

MIME_BY_EXTENSION: Final[Mapping[str, str]] = MappingProxyType(
    {ext: mime for mime, exts in RESEARCH_MIME_TYPES.items() for ext in exts}
)


def _norm(mime: str) -> str:
    """A MIME type without parameters, lowercased (MIME types are case-insensitive)."""
    return mime.split(";", 1)[0].strip().lower()


def canonical_mime(mime: str, table: Mapping[str, tuple[str, ...]] = RESEARCH_MIME_TYPES) -> str | None:
    """The spelling ``table`` uses for ``mime`` (case and parameters ignored), or ``None`` when not listed."""
    wanted = _norm(mime)
    for known in table:
        if known.lower() == wanted:
            return known
    return None


_EXTENSIONS_BY_MIME: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(
    {mime.lower(): exts for mime, exts in RESEARCH_MIME_TYPES.items()}
)


def file_extension(name: str) -> str:
    """The lowercase extension with its dot (``".pdf"``), or ``""``."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    dot = base.rfind(".")
    if dot <= 0 or dot == len(base) - 1:
        return ""
    return base[dot:].lower()


def mime_for_filename(name: str) -> str | None:
    """The supported MIME type for a file name's extension, or ``None``."""
    return MIME_BY_EXTENSION.get(file_extension(name))


def extension_matches(file_name: str, mime: str) -> bool:
    """Whether ``file_name`` carries an extension that belongs to ``mime``."""
    exts = _EXTENSIONS_BY_MIME.get(_norm(mime))
    return exts is not None and file_extension(file_name) in exts


def is_acceptable_file_name(name: str) -> bool:
    """1..255 characters, no directory separators or NUL, and not ``.`` or ``..``."""
    if not isinstance(name, str) or not 1 <= len(name) <= MAX_FILE_NAME_CHARS:
        return False
    if any(ch in name for ch in ("/", "\\", "\x00")):
        return False
    return name not in (".", "..")


def is_video_mime(mime: str) -> bool:
    return mime.strip().lower().startswith("video/")


# --- signatures ---------------------------------------------------------------------------------------------

_OLE2 = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ZIP_HEADS = (b"PK\x03\x04", b"PK\x05\x06")
_ZIP_TYPES = frozenset({PPTX, PPTM, KEYNOTE, ODP, DOCX, XLSX, ODT})
_OLE_TYPES = frozenset({PPT, DOC})


def _is_pdf(h: bytes) -> bool:
    return h.startswith(b"%PDF")


def _is_png(h: bytes) -> bool:
    return h.startswith(b"\x89PNG\r\n\x1a\n")


def _is_jpeg(h: bytes) -> bool:
    return h.startswith(b"\xff\xd8\xff")


def _is_webp(h: bytes) -> bool:
    return h[:4] == b"RIFF" and h[8:12] == b"WEBP"


def _is_wav(h: bytes) -> bool:
    return h[:4] in (b"RIFF", b"RIFX", b"RF64") and h[8:12] == b"WAVE"


def _is_gif(h: bytes) -> bool:
    return h[:6] in (b"GIF87a", b"GIF89a")


def _is_zip(h: bytes) -> bool:
    return h[:4] in _ZIP_HEADS


def _is_ole2(h: bytes) -> bool:
    return h.startswith(_OLE2)


def _is_mp3(h: bytes) -> bool:
    if h.startswith(b"ID3"):
        return True
    # MPEG audio frame sync: 11 set bits, a valid version and a layer other than "reserved".
    if len(h) < 2 or h[0] != 0xFF or (h[1] & 0xE0) != 0xE0:
        return False
    return (h[1] & 0x18) != 0x08 and (h[1] & 0x06) != 0


def _is_flac(h: bytes) -> bool:
    return h.startswith(b"fLaC")


def _is_ogg(h: bytes) -> bool:
    return h.startswith(b"OggS")


def _is_ftyp(h: bytes) -> bool:
    return h[4:8] == b"ftyp"


def _is_rtf(h: bytes) -> bool:
    return h.startswith(b"{\\rtf")


def _is_utf8_text(h: bytes) -> bool:
    if not h or b"\x00" in h:
        return False
    decoder = codecs.getincrementaldecoder("utf-8")()
    try:
        decoder.decode(h, final=False)  # a character cut at the end of the sample is fine
    except UnicodeDecodeError:
        return False
    return True


_SIGNATURES: Mapping[str, Callable[[bytes], bool]] = MappingProxyType(
    {
        PDF.lower(): _is_pdf,
        PNG: _is_png,
        JPEG: _is_jpeg,
        WEBP: _is_webp,
        "image/gif": _is_gif,
        "audio/wav": _is_wav,
        "audio/mpeg": _is_mp3,
        "audio/flac": _is_flac,
        "audio/ogg": _is_ogg,
        "audio/mp4": _is_ftyp,
        RTF: _is_rtf,
        **{m.lower(): _is_zip for m in _ZIP_TYPES},
        **{m.lower(): _is_ole2 for m in _OLE_TYPES},
        **{m: _is_utf8_text for m in TEXT_MIME_TYPES},
    }
)

_ODF_MIMETYPE_OFFSET = 30


def _sniff_zip(head: bytes, ext: str) -> str:
    by_ext = MIME_BY_EXTENSION.get(ext)
    if by_ext in _ZIP_TYPES:
        return by_ext
    # OpenDocument stores an uncompressed "mimetype" entry first.
    if head[_ODF_MIMETYPE_OFFSET : _ODF_MIMETYPE_OFFSET + 8] == b"mimetype":
        rest = head[_ODF_MIMETYPE_OFFSET + 8 : _ODF_MIMETYPE_OFFSET + 8 + 80]
        for mime in (ODP, ODT):
            if rest.startswith(mime.encode()):
                return mime
    for marker, mime in ((b"ppt/", PPTX), (b"word/", DOCX), (b"xl/", XLSX)):
        if marker in head:
            return mime
    return "application/zip"


def sniff_mime(head: bytes, file_name: str | None = None) -> str | None:
    """The MIME type the first bytes of a file show, or ``None`` when unknown.

    Container formats (ZIP-based office files, OLE2 ``.ppt``/``.doc``) and text types are told apart by the
    file name's extension when one is given.
    """
    if not head:
        return None
    ext = file_extension(file_name) if file_name else ""
    if _is_pdf(head):
        return PDF
    if _is_png(head):
        return PNG
    if _is_jpeg(head):
        return JPEG
    if _is_gif(head):
        return "image/gif"
    if _is_webp(head):
        return WEBP
    if _is_wav(head):
        return "audio/wav"
    if _is_zip(head):
        return _sniff_zip(head, ext)
    if _is_ole2(head):
        by_ext = MIME_BY_EXTENSION.get(ext)
        return by_ext if by_ext in _OLE_TYPES else "application/x-ole-storage"
    if _is_flac(head):
        return "audio/flac"
    if _is_ogg(head):
        return "audio/ogg"
    if _is_ftyp(head):
        brand = head[8:12]
        if brand in (b"M4A ", b"M4B ", b"M4P ") or ext == ".m4a":
            return "audio/mp4"
        return "video/quicktime" if brand == b"qt  " else "video/mp4"
    if _is_mp3(head):
        return "audio/mpeg"
    if _is_rtf(head):
        return RTF
    if _is_utf8_text(head):
        by_ext = MIME_BY_EXTENSION.get(ext)
        return by_ext if by_ext in TEXT_MIME_TYPES else "text/plain"
    return None


def signature_matches(head: bytes, mime: str, file_name: str | None = None) -> bool:
    """Whether the first bytes of a file fit the declared ``mime`` (unknown types never match).

    ``file_name`` is accepted for symmetry with :func:`sniff_mime`; containers are checked by header only.
    """
    check = _SIGNATURES.get(_norm(mime))
    return check is not None and check(head)
