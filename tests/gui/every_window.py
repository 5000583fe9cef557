"""One of every dialog the app has, and its windows, opened on the sandbox's data: the screen-fit
and the accessibility walks go through the same list (a new dialog is added here once)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from PySide6.QtWidgets import QDialog

from castdeck.api.models import Episode
from castdeck.scripts.analysis import analyze
from castdeck.scripts.speakers import HostRef
from castdeck.services.background import Background
from castdeck.services.profiles import KeyStore, ProfileStore
from castdeck.services.season import SeasonPublisher, local_zone
from castdeck.services.session import Session
from castdeck.store.drafts import Draft, SnapshotInfo
from castdeck.ui.connect_dialog import ConnectDialog
from castdeck.ui.dialogs.episode_dialogs import EpisodeCreateDialog, EpisodeEditDialog, PublishDialog
from castdeck.ui.dialogs.generate_dialog import GenerateDialog
from castdeck.ui.dialogs.host_dialog import HostDialog
from castdeck.ui.dialogs.media_dialog import MediaCreateDialog
from castdeck.ui.dialogs.podcast_dialog import PodcastDialog
from castdeck.ui.dialogs.season_dialog import SeasonDialog
from castdeck.ui.dialogs.source_dialog import SourceDialog
from castdeck.ui.scripts.batch_dialog import BatchSendDialog
from castdeck.ui.scripts.dialogs import HistoryDialog, MappingDialog, RenameDialog, SendDialog
from castdeck.ui.welcome import WelcomeDialog

SCRIPT = "MAYA: Welcome back to the show.\nTOM: Today, rivers and why they bend.\n"


async def every_dialog(session: Session, background: Background) -> list[QDialog]:
    """One of each dialog class (``GenerateDialog`` third), not shown yet."""
    client = session.client
    episodes = [e for e in await client.episodes.list(limit=50).to_list() if isinstance(e, Episode)]
    episode = episodes[0]
    podcast_id = episode.podcast_id
    hosts = [HostRef(str(h.id), h.name or "") for h in await client.hosts.list(limit=10).to_list()]
    video_options = await client.videos.options()
    short_options = await client.shorts.options()
    voiceover_options = await client.voiceovers.options()
    analysis = analyze(SCRIPT, hosts=hosts)

    async def nothing(_: Any) -> None:
        return None

    # a season of twelve, one with an unknown speaker (its label mapped once for all, under the list)
    season = [
        Draft(f"d{n}", f"Episode {n}.txt", f"[{hosts[0].name}]\nWelcome to part {n} of the tides.\n\n"
              f"[{'Guest' if n in (3, 7) else hosts[1].name}]\nThe water turns at {n}.\n")
        for n in range(1, 13)
    ]  # fmt: skip

    def planner(drafts: list[Draft], action: str, podcast: str | None, render: bool) -> Any:
        return background.batches.plan(drafts, action, podcast_id=podcast, render=render, hosts=hosts,
                                       balance=1000.0)  # fmt: skip

    async def no_sandbox() -> None:
        return None

    return [
        ConnectDialog(ProfileStore(), KeyStore()),
        WelcomeDialog(no_sandbox),
        GenerateDialog(session, background, podcast_id),
        EpisodeCreateDialog(session, podcast_id),
        EpisodeEditDialog(session, episode),
        PublishDialog(session, episode, nothing, schedule=True),
        SeasonDialog(
            episodes[:12],
            SeasonPublisher(background.publisher),
            lambda work: work.close(),
            zone=local_zone(),
            now=lambda: datetime.now(UTC),
        ),
        PodcastDialog(session),
        HostDialog(session),
        SourceDialog(session, kind="text"),
        MediaCreateDialog(session, background, "videos", video_options),
        MediaCreateDialog(session, background, "shorts", short_options),
        MediaCreateDialog(session, background, "voiceovers", voiceover_options),
        SendDialog(session, "import", analysis, podcast_id=podcast_id, render=True, balance=1000.0),
        MappingDialog(["MAYA", "TOM"], hosts, {}),
        BatchSendDialog(
            session, season, planner, action="import", hosts=hosts, podcast_id=podcast_id, render=False
        ),
        RenameDialog("MAYA"),
        HistoryDialog([SnapshotInfo(n, "draft", "saved", 120 * n, 1_700_000_000.0 + n) for n in range(40)]),
    ]
