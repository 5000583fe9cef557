"""Listening to an episode: the audio player and the word-by-word transcript that follows it."""

from .listen_window import ListenWindow

__all__ = ["ListenWindow"]
