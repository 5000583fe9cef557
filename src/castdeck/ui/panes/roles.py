"""Each pane's roles (:mod:`castdeck.ui.pane_roles`), checked by mypy.

The window calls a pane only through a role. Listing each pane under the roles it plays here makes
a missing or misspelt method a type error (``mypy``), before any click; the suite builds every pane
and checks the same at run time (``tests/gui/test_pane_roles.py``). Nothing is imported at run time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..pane_roles import (
        Creates,
        EpisodeFigures,
        EpisodeGenerator,
        EpisodeListener,
        Filters,
        OpensItems,
        Refreshes,
        Reveals,
        Shown,
        ShowsUploads,
    )
    from .account import AccountPane
    from .analytics import AnalyticsPane
    from .episodes import EpisodesPane
    from .hosts import HostsPane
    from .media import ShortsPane, VideosPane, VoiceoversPane
    from .podcasts import PodcastsPane
    from .scripts import ScriptsPane
    from .sources import SourcesPane
    from .voices import VoicesPane

    def _roles_hold(
        podcasts: PodcastsPane,
        episodes: EpisodesPane,
        analytics: AnalyticsPane,
        hosts: HostsPane,
        voices: VoicesPane,
        sources: SourcesPane,
        videos: VideosPane,
        shorts: ShortsPane,
        voiceovers: VoiceoversPane,
        scripts: ScriptsPane,
        account: AccountPane,
    ) -> None:
        listed = [podcasts, episodes, hosts, voices, sources, videos, shorts, voiceovers]
        shown: list[Shown] = [*listed, analytics, scripts, account]
        refreshes: list[Refreshes] = [*listed, analytics, scripts, account]
        filters: list[Filters] = [*listed, scripts]
        creates: list[Creates] = [podcasts, episodes, hosts, sources, videos, shorts, voiceovers, scripts]
        reveals: list[Reveals] = [
            podcasts,
            episodes,
            hosts,
            sources,
            videos,
            shorts,
            voiceovers,
            analytics,
            scripts,
        ]
        opens: list[OpensItems] = [podcasts, analytics, scripts]
        uploads: ShowsUploads = sources
        listener: EpisodeListener = episodes
        figures: EpisodeFigures = episodes
        generator: EpisodeGenerator = episodes
        del shown, refreshes, filters, creates, reveals, opens, uploads, listener, figures, generator
