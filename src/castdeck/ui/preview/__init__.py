"""Previews of finished Videos, Shorts and Voiceovers: their stills and an in-app player."""

from .preview import MediaPreview
from .stills import Stills

__all__ = ["MediaPreview", "Stills"]
