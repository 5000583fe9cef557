"""The organization's library: list, read, create, edit and delete podcasts, hosts, sources and episodes.

Every call a pane or dialog makes on these resources is written here once, so a widget never
writes an API call: it asks for a feed (``hosts(session)``), a record (``host(session, id)``) or a
change (``delete_host(session, id)``), and shows what comes back or the error it raises
(:class:`~castdeck.api.errors.CastdeckError`). Writes go through ``Session.call(..., write=True)``:
refused while the service is unreachable or the account cannot write, and never repeated
automatically (the resource writes here carry no idempotency key, spec 4.2).

Long-running work (generate, import, media, publish) goes through :mod:`castdeck.services.starting`
and the outbox instead; uploads of source files through :mod:`castdeck.services.uploads`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, Literal

from castdeck.api import Client
from castdeck.api.local_files import check_image_file
from castdeck.api.models import (
    Episode,
    EpisodeCreate,
    EpisodeImageResult,
    EpisodeUpdate,
    Host,
    HostCreate,
    HostUpdate,
    Podcast,
    PodcastCreate,
    PodcastUpdate,
    Source,
    SourceCreateInput,
)
from castdeck.api.pagination import Page

from .listing import ListFeed, list_key
from .session import Session

__all__ = [
    "PICKER_PAGE",
    "check_cover_file",
    "create_episode",
    "create_host",
    "create_podcast",
    "create_source",
    "delete_episode",
    "delete_host",
    "delete_source",
    "episode",
    "episodes",
    "has_any",
    "host",
    "hosts",
    "podcast",
    "podcasts",
    "replace_episode_cover",
    "source",
    "sources",
    "unpublish_episode",
    "update_episode",
    "update_host",
    "update_podcast",
]

PICKER_PAGE = 100
"""Page size of the lists a dialog's picker reads whole (the service's largest page)."""


# --- lists (pages from the service, the cache when offline) ------------------------------------------


def hosts(session: Session, size: int = PICKER_PAGE) -> ListFeed[Host]:
    return ListFeed(session, "host", list_key("hosts"), lambda c: c.hosts.list(limit=size), Host)


def podcasts(session: Session, size: int = PICKER_PAGE) -> ListFeed[Podcast]:
    return ListFeed(session, "podcast", list_key("podcasts"), lambda c: c.podcasts.list(limit=size), Podcast)


def sources(session: Session, size: int = PICKER_PAGE) -> ListFeed[Source]:
    return ListFeed(session, "source", list_key("sources"), lambda c: c.sources.list(limit=size), Source)


def episodes(session: Session, size: int, filters: dict[str, str | None] | None = None) -> ListFeed[Episode]:
    """Episodes, newest first; ``filters`` (``podcast_id``, ``status``) that are empty are not sent."""
    given = {name: value for name, value in (filters or {}).items() if value}
    return ListFeed(
        session,
        "episode",
        list_key("episodes", **(filters or {})),
        lambda c: c.episodes.list(limit=size, **given),
        Episode,
    )


async def has_any(session: Session, collection: Literal["hosts", "podcasts", "episodes"]) -> bool:
    """Whether the organization has made at least one host, podcast or episode (one short read)."""
    readers: dict[str, Callable[[Client], Awaitable[Page[Any]]]] = {
        "hosts": lambda c: c.hosts.list(limit=1).first_page(),
        "podcasts": lambda c: c.podcasts.list(limit=1).first_page(),
        "episodes": lambda c: c.episodes.list(limit=1).first_page(),
    }
    page = await session.call(readers[collection])
    return bool(page.items)


# --- one record ------------------------------------------------------------------------------------------


async def host(session: Session, host_id: str) -> Host:
    return await session.call(lambda c: c.hosts.get(host_id))


async def podcast(session: Session, podcast_id: str) -> Podcast:
    return await session.call(lambda c: c.podcasts.get(podcast_id))


async def source(session: Session, source_id: str) -> Source:
    return await session.call(lambda c: c.sources.get(source_id))


async def episode(session: Session, episode_id: str) -> Episode:
    return await session.call(lambda c: c.episodes.get(episode_id))


# --- changes ---------------------------------------------------------------------------------------------


async def create_host(session: Session, payload: HostCreate) -> Host:
    return await session.call(lambda c: c.hosts.create(payload), write=True)


async def update_host(session: Session, host_id: str, payload: HostUpdate) -> Host:
    return await session.call(lambda c: c.hosts.update(host_id, payload), write=True)


async def delete_host(session: Session, host_id: str) -> None:
    await session.call(lambda c: c.hosts.delete(host_id), write=True)


async def create_podcast(session: Session, payload: PodcastCreate) -> Podcast:
    return await session.call(lambda c: c.podcasts.create(payload), write=True)


async def update_podcast(session: Session, podcast_id: str, payload: PodcastUpdate) -> Podcast:
    return await session.call(lambda c: c.podcasts.update(podcast_id, payload), write=True)


async def create_source(session: Session, payload: SourceCreateInput) -> Source:
    return await session.call(lambda c: c.sources.create(payload), write=True)


async def delete_source(session: Session, source_id: str) -> None:
    await session.call(lambda c: c.sources.delete(source_id), write=True)


async def create_episode(session: Session, payload: EpisodeCreate) -> Episode:
    return await session.call(lambda c: c.episodes.create(payload), write=True)


async def update_episode(session: Session, episode_id: str, payload: EpisodeUpdate) -> Episode:
    return await session.call(lambda c: c.episodes.update(episode_id, payload), write=True)


async def unpublish_episode(session: Session, episode_id: str) -> Episode:
    return await session.call(lambda c: c.episodes.unpublish(episode_id), write=True)


async def delete_episode(session: Session, episode_id: str) -> None:
    await session.call(lambda c: c.episodes.delete(episode_id), write=True)


async def check_cover_file(session: Session, path: Path) -> None:
    """Raise :class:`~castdeck.api.errors.UploadError` when the service would refuse ``path`` as a
    cover (type, size), ``OSError`` when it cannot be read; read on the disk worker."""
    await session.on_disk(check_image_file, path)


async def replace_episode_cover(session: Session, episode_id: str, path: Path) -> EpisodeImageResult:
    return await session.call(lambda c: c.episodes.upload_image(episode_id, path), write=True)
