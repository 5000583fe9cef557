"""Castdeck: a desktop studio for the podcast, video, short and voiceover generation service."""

__version__ = "0.1.0"
