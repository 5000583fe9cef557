"""The offline script model: no Qt, no I/O (see GUIDE section 1).

Two forms of one script: the text form (:mod:`.text_form`, spec 2.5's import format with ``# Title``
chapter lines) and the structured form (:mod:`.structured`, spec 2.4's ``script`` object). The
validator (:mod:`.problems`) checks every limit with positions, :mod:`.speakers` resolves labels to
hosts as the service does on import, and :mod:`.estimate` says how long the narration will take and
the credits it holds.
"""

from __future__ import annotations

from .analysis import Analysis, analyze
from .estimate import Estimate, credits_for, estimate
from .problems import BOTH, ERROR, GENERATE, IMPORT, WARNING, Problem, check_text
from .speakers import HostRef, Resolution, resolve, speaker_characters
from .structured import StructuredScript, read_structured, to_structured, to_text
from .text_form import ParsedScript, TextChapter, TextSegment, parse_text

__all__ = [
    "BOTH",
    "ERROR",
    "GENERATE",
    "IMPORT",
    "WARNING",
    "Analysis",
    "Estimate",
    "HostRef",
    "ParsedScript",
    "Problem",
    "Resolution",
    "StructuredScript",
    "TextChapter",
    "TextSegment",
    "analyze",
    "check_text",
    "credits_for",
    "estimate",
    "parse_text",
    "read_structured",
    "resolve",
    "speaker_characters",
    "to_structured",
    "to_text",
]
