"""The one map between the kinds of work the app follows and the service's collections."""

from __future__ import annotations

__all__ = [
    "COLLECTION_OF_KIND",
    "JOB_KINDS",
    "KIND_OF_COLLECTION",
    "MEDIA_COLLECTIONS",
    "MEDIA_KINDS",
    "collection_of",
    "kind_of",
]

COLLECTION_OF_KIND = {
    "episode": "episodes",
    "publish": "episodes",  # publishing an episode that still renders: followed on the episode
    "video": "videos",
    "short": "shorts",
    "voiceover": "voiceovers",
    "source": "sources",
}
JOB_KINDS = tuple(COLLECTION_OF_KIND)
MEDIA_KINDS = ("video", "short", "voiceover")
MEDIA_COLLECTIONS = frozenset(COLLECTION_OF_KIND[kind] for kind in MEDIA_KINDS)
KIND_OF_COLLECTION = {"episodes": "episode", "videos": "video", "shorts": "short", "voiceovers": "voiceover",
                      "sources": "source"}  # fmt: skip


def collection_of(kind: str) -> str:
    """The collection a job kind lives in (``video`` -> ``videos``); KeyError for an unknown kind."""
    return COLLECTION_OF_KIND[kind]


def kind_of(collection: str) -> str:
    """The job kind of a collection's items (``shorts`` -> ``short``); KeyError for an unknown one."""
    return KIND_OF_COLLECTION[collection]
