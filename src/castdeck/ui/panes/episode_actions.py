"""The Episodes pane's publish, schedule, unpublish and delete actions.

Publishing goes through the publish service: the dialog's attempt publishes at once, or, while
rendering runs, becomes a publish job with a card in Jobs. While such a job waits, a strip above
the list says so with a "Stop waiting" button; when it ends, the banner says how and the episode
is read again. Unpublishing and deleting ask first; a deleted episode's waiting publish stops.
The pane builds the buttons and shows them in its details; this does what they ask.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from castdeck.api.models import Episode, PublishInput, PublishResult
from castdeck.services import catalog
from castdeck.services.season import (
    Outcome,
    SeasonPublisher,
    delete_all,
    local_zone,
    republish,
    unpublish_all,
)
from castdeck.store.jobs import Job

from ..cells import format_time
from ..dialogs.episode_dialogs import PublishDialog
from ..dialogs.season_dialog import SeasonDialog, outcome_summary
from ..forms import FormDialog
from ..widgets import ask
from .episode_parts import PublishWait

if TYPE_CHECKING:
    from .episodes import EpisodesPane

__all__ = ["EpisodeActions"]


class EpisodeActions(QObject):
    """Publish now or at a time, the wait for rendering, unpublish and delete, for one pane."""

    def __init__(self, pane: EpisodesPane) -> None:
        super().__init__(pane)
        self.pane = pane
        self.waits: dict[str, PublishWait] = {}
        """The strip above the list of each publish waiting for rendering, by episode id."""

    # --- publishing ----------------------------------------------------------------------------------------

    def publish_current(self, schedule: bool = False) -> None:
        pane = self.pane
        episode = pane.current
        if not isinstance(episode, Episode):
            return
        dialog = PublishDialog(
            pane.session,
            episode,
            lambda value: self._publish_first(episode, value),
            schedule=schedule,
            parent=pane,
        )
        pane.open_dialog(dialog, self._published)

    async def _publish_first(self, episode: Episode, value: PublishInput) -> PublishResult | Job:
        """The dialog's attempt: published, or a publish job waiting for rendering, or refused."""
        return await self.pane.background.publisher.publish(episode, value.scheduled_time)

    def _published(self, dialog: FormDialog) -> None:
        result = dialog.result_value
        if isinstance(result, PublishResult) and isinstance(dialog, PublishDialog):
            self.pane.run(self._after_publish(dialog.episode, result), "Could not read the episode")

    async def _after_publish(self, episode: Episode, result: PublishResult) -> None:
        title = episode.title or "the episode"
        if result.status == "scheduled":
            self.pane.banner.show_message(f"Scheduled “{title}” for {format_time(result.scheduled_time)}.")
        else:
            self.pane.banner.show_message(f"Published “{title}”.")
        await self.pane.show_episode(str(episode.id))

    def publish_selection(self) -> None:
        """The selected episodes published now or scheduled as a series (the season dialog)."""
        pane = self.pane
        episodes = [item for item in pane.selected_items() if isinstance(item, Episode)]
        if not episodes:
            pane.banner.show_message(
                "Select the episodes to publish first: Ctrl+click or Shift+click rows to select several."
            )
            return
        dialog = SeasonDialog(
            episodes,
            SeasonPublisher(pane.background.publisher),
            lambda work: pane.run(work, "Could not publish the episodes"),
            zone=local_zone(),
            now=lambda: datetime.fromtimestamp(pane.session.clock.time(), UTC),
            parent=pane,
        )
        dialog.sent.connect(lambda outcomes: self._season_sent(outcomes, len(episodes)))
        pane.open_dialog(dialog, lambda _dialog: None)

    def _season_sent(self, outcomes: list[Outcome], selected: int) -> None:
        pane = self.pane
        text = outcome_summary(outcomes, selected - len(outcomes))
        failed = any(outcome.status in ("refused", "failed") for outcome in outcomes)
        pane.banner.show_message(f"Publish: {text}.", kind="error" if failed else "info")
        pane.refresh()

    # --- a selection taken back ---------------------------------------------------------------------------

    def unpublish_selection(self) -> None:
        episodes = [e for e in self.pane.selected_items() if isinstance(e, Episode)]
        going = [e for e in episodes if e.status in ("published", "scheduled")]
        self.pane.run(self._unpublish_many(going, len(episodes) - len(going)), "Could not unpublish")

    async def _unpublish_many(self, episodes: list[Episode], drafts: int) -> None:
        pane = self.pane
        if not episodes:
            pane.banner.show_message("None of the selected episodes is published or scheduled.")
            return
        also = f"\n\n{drafts} of the selected are drafts already and stay as they are." if drafts else ""
        confirmed = await ask(
            pane,
            "Unpublish episodes",
            f"Take these {len(episodes)} episodes back to draft?\n\nThey leave the feed and the website until "
            f"they are published again; Undo, right after, publishes them again (the scheduled ones at "
            f"their times).{also}",
            f"Unpublish {len(episodes)}",
            destructive=False,
        )
        if not confirmed:
            return
        done, failed = await unpublish_all(pane.session, episodes)
        for _before, after in done:
            pane.item_changed(after, select=False)
        self._selection_again()
        text = f"{len(done)} episodes are drafts again."
        if failed:
            text += " " + _failures("unpublish", failed)
        undo = ("Undo", lambda: pane.run(self._undo_unpublish(done), "Could not publish them again"))
        pane.banner.show_message(text, kind="error" if failed else "info", action=undo if done else None)

    async def _undo_unpublish(self, done: list[tuple[Episode, Episode]]) -> None:
        pane = self.pane
        now = datetime.fromtimestamp(pane.session.clock.time(), UTC)
        outcomes = await republish(SeasonPublisher(pane.background.publisher), done, now)
        failed = [(o.episode, o.message) for o in outcomes if o.status in ("refused", "failed")]
        text = f"Undone: {outcome_summary(outcomes, 0)}."
        if failed:
            text += " " + _failures("publish", failed)
        pane.banner.show_message(text, kind="error" if failed else "info")
        pane.refresh()

    def delete_selection(self) -> None:
        episodes = [e for e in self.pane.selected_items() if isinstance(e, Episode)]
        self.pane.run(self._delete_many(episodes), "Could not delete")

    async def _delete_many(self, episodes: list[Episode]) -> None:
        pane = self.pane
        if not episodes:
            return
        names = ", ".join(f"“{e.title or 'untitled'}”" for e in episodes[:3])
        more = f" and {len(episodes) - 3} more" if len(episodes) > 3 else ""
        confirmed = await ask(
            pane,
            "Delete episodes",
            f"Delete these {len(episodes)} episodes for good?\n\n{names}{more}: their audio and video are "
            "removed. The service keeps no copy, so this cannot be undone.",
            f"Delete {len(episodes)}",
        )
        if not confirmed:
            return
        deleted, failed = await delete_all(pane.session, episodes)
        for episode in deleted:
            self.stop_waiting(str(episode.id))
            pane.item_removed(str(episode.id))
        self._selection_again()
        text = f"Deleted {len(deleted)} episodes."
        if failed:
            text += " " + _failures("delete", failed)
        pane.banner.show_message(text, kind="error" if failed else "info")

    def _selection_again(self) -> None:
        """The details of what is selected now (the rows changed or went)."""
        pane = self.pane
        selected = pane.selected_items()
        if len(selected) > 1:
            pane.show_many(selected)
        elif not selected:
            pane.details.clear()

    def stop_waiting(self, episode_id: str) -> None:
        stopped = self.pane.background.publisher.stop(str(episode_id))
        if stopped is not None:
            self.pane.banner.show_message(stopped.error or "Stopped waiting to publish.")

    def publish_changed(self, job: Job) -> None:
        """A publish job changed: its strip above the list, and the episode when it ended."""
        pane = self.pane
        key = job.resource_id
        wait = self.waits.get(key)
        if job.active:
            if wait is None:
                wait = PublishWait(str(job.extra.get("episode_title") or "the episode"), pane)
                pane.extra_top.addWidget(wait)
                self.waits[key] = wait
                wait.stop_button.clicked.connect(lambda: self.stop_waiting(key))
            attempts = int(job.extra.get("attempts") or 1)
            wait.set_text(
                f"Waiting for rendering of “{wait.title}” to finish, then publishing "
                f"(attempt {attempts} of {pane.background.publisher.max_attempts}); its card is in Jobs."
            )
            pane.refresh_if_current(key)
            return
        if wait is not None:
            del self.waits[key]
            wait.hide()
            wait.deleteLater()
        if job.state == "completed":
            title = job.extra.get("episode_title") or "the episode"
            if job.extra.get("publish_status") == "scheduled":
                when = format_time(str(job.extra.get("scheduled_time") or ""))
                pane.banner.show_message(f"Scheduled “{title}” for {when}.")
            else:
                pane.banner.show_message(f"Published “{title}”.")
        elif (
            job.state == "failed" and wait is not None and not (job.error or "").startswith("Stopped waiting")
        ):
            pane.banner.show_message(
                f"Could not publish: {job.error}", kind="error", request_id=job.request_id
            )
        pane.run(pane.show_episode(key, select=False), "Could not read the episode")

    # --- unpublish and delete ------------------------------------------------------------------------------

    def unpublish_current(self) -> None:
        episode = self.pane.current
        if isinstance(episode, Episode):
            self.pane.run(self._unpublish(episode), f"Could not unpublish “{episode.title or 'the episode'}”")

    async def _unpublish(self, episode: Episode) -> None:
        pane = self.pane
        title = episode.title or "this episode"
        confirmed = await ask(
            pane,
            "Unpublish episode",
            f"Take this episode back to draft?\n\n“{title}” leaves the feed and the website until it is "
            "published again.",
            "Unpublish",
            destructive=False,
        )
        if not confirmed:
            return
        fresh = await catalog.unpublish_episode(pane.session, episode.id)
        pane.item_changed(fresh)
        pane.banner.show_message(f"“{title}” is a draft again.")

    def delete_current(self) -> None:
        episode = self.pane.current
        if isinstance(episode, Episode):
            self.pane.run(self._delete(episode), f"Could not delete “{episode.title or 'the episode'}”")

    async def _delete(self, episode: Episode) -> None:
        pane = self.pane
        title = episode.title or "this untitled episode"
        confirmed = await ask(
            pane,
            "Delete episode",
            f"Delete this episode for good?\n\n“{title}”, its audio and its video are removed. This cannot be undone.",
            "Delete",
        )
        if not confirmed:
            return
        await catalog.delete_episode(pane.session, episode.id)
        self.stop_waiting(str(episode.id))
        pane.item_removed(str(episode.id))
        pane.banner.show_message(f"Deleted “{title}”.")


def _failures(verb: str, failed: list[tuple[Episode, str]]) -> str:
    """``Could not unpublish “A” (why) and 2 more.``"""
    first, why = failed[0]
    more = f" and {len(failed) - 1} more" if len(failed) > 1 else ""
    return f"Could not {verb} “{first.title or 'untitled'}” ({why}){more}."
