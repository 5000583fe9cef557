"""The transcript of an episode's audio, without Qt and without I/O.

Words are normalised from both shapes the service sends (:mod:`.words`), grouped into speaker
turns, laid out for a reading view (:mod:`.layout`) and exported as SRT, WebVTT, plain text and
JSON (:mod:`.export`). The app's transcript view, the media cache and ``castdeck transcript``
share this code.
"""

from .export import FORMATS, Cue, clock, cues, export, suffix_of, to_json, to_srt, to_text, to_vtt
from .layout import DocumentPlan, find_all, plan_document, timed_text, turns_said
from .words import Speaker, Transcript, Turn, Word, normalise, word_at

__all__ = [
    "FORMATS",
    "Cue",
    "DocumentPlan",
    "Speaker",
    "Transcript",
    "Turn",
    "Word",
    "clock",
    "cues",
    "export",
    "find_all",
    "normalise",
    "plan_document",
    "suffix_of",
    "timed_text",
    "to_json",
    "to_srt",
    "to_text",
    "to_vtt",
    "turns_said",
    "word_at",
]
