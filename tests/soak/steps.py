"""The soak's steps: what a creator does, one awaitable each, through the real window.

Every step returns a few words on how it went (for the step log). A step that finds nothing to
work on (no episode with audio yet, the service offline) says so and does nothing. A failure the
app shows where the creator acts (a refusal under a field, an error banner in a dialog) is handled
as a creator would: try again a couple of times, then cancel. A step fails (:class:`StepFailed`)
only when the app does not do what it should within the wait.

Driven as a user drives them, with three exceptions said where they happen: ticking a checkbox in
a picker's list goes through the picker's ``check`` (the click target is a style-dependent
indicator), the transcript export's format is chosen with its menu action's ``trigger()`` (a popup
menu runs a nested event loop), and the file dialog that follows is answered with ``selectFile``
and ``accept()`` (what its Save button does).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from PySide6.QtWidgets import QFileDialog, QMessageBox

from castdeck.api import Accepted
from castdeck.api.models import Episode
from castdeck.store.jobs import Job
from castdeck.store.outbox import OutboxEntry
from castdeck.ui.dialogs.episode_dialogs import EpisodeCreateDialog, EpisodeEditDialog, PublishDialog
from castdeck.ui.dialogs.generate_dialog import GenerateDialog
from castdeck.ui.dialogs.host_dialog import HostDialog
from castdeck.ui.dialogs.media_dialog import MediaCreateDialog, is_visual_source
from castdeck.ui.dialogs.podcast_dialog import PodcastDialog
from castdeck.ui.dialogs.script_source import FILE
from castdeck.ui.scripts.dialogs import SendDialog
from castdeck.ui.widgets import alive
from tests.gui.helpers import drop_on
from tests.helpers import pdf_bytes
from tests.soak.creator import Creator, StepFailed, taken_up_again, until

__all__ = ["STEPS", "Step"]

Step = Callable[[Creator], Awaitable[str]]


def _how(result: Any) -> str:
    if isinstance(result, Accepted):
        return "accepted"
    if isinstance(result, Job):
        return "following"
    if isinstance(result, OutboxEntry):
        return "kept"
    return type(result).__name__


def _script(c: Creator, token: str, names: list[str]) -> list[str]:
    first, second = names[0], names[-1]
    return [
        f"# The {token} tide tables",
        f"[{first}]",
        f"Welcome back. Today the harbour log {token} tells us when the water turns.",
        f"[{second}]",
        "And why the fishing boats wait for it, every single night of the season.",
        f"[{first}]",
        "Let us start with the moon, which does most of the pulling.",
    ]


async def _host_names(c: Creator, picker: Any) -> list[str]:
    """Two hosts' names from a picker's list (none when the list could not be read: it says so)."""
    await picker.wait_loaded()
    names = [h.name for h in picker.items.values() if h.name and "[" not in h.name and "]" not in h.name]
    if not names and "Could not load" not in picker.status.text():
        raise StepFailed("the hosts list is empty and says nothing")
    c.rng.shuffle(names)
    return names[:2]


# --- podcasts, hosts, episodes ------------------------------------------------------------------------------


async def create_podcast(c: Creator) -> str:
    pane = await c.show_pane("Podcasts")
    if not c.online:
        return "offline: New is disabled"
    dialog = await c.open_dialog(pane, pane.new_button, PodcastDialog, "the New podcast dialog")
    await c.type(dialog.title_edit, f"Soak show {c.token('show')}")
    await dialog.hosts_picker.wait_loaded()
    hosts = list(dialog.hosts_picker.items)
    if not hosts:
        await c.cancel(dialog)
        return "no hosts to pick"
    dialog.hosts_picker.check(c.rng.choice(hosts))  # the picker's own tick (see the module docstring)
    return "created" if await c.submit(dialog) else "cancelled after failures"


async def edit_podcast(c: Creator) -> str:
    pane = await c.show_pane("Podcasts")
    await c.loaded(pane)
    if not c.online or await c.select_row(pane, lambda p: True) is None:
        return "nothing to edit" if c.online else "offline"
    dialog = await c.open_dialog(pane, pane.edit_button, PodcastDialog, "the Edit podcast dialog")
    dialog.description_edit.selectAll()
    await c.type(dialog.description_edit, f"Notes edited by the soak ({c.token('notes')}).")
    return "saved" if await c.submit(dialog) else "cancelled after failures"


async def create_host(c: Creator) -> str:
    pane = await c.show_pane("Hosts")
    if not c.online:
        return "offline: New is disabled"
    dialog = await c.open_dialog(pane, pane.new_button, HostDialog, "the New host dialog")
    await c.type(dialog.name_edit, f"Host {c.token('h')[-8:]}")
    await c.type(dialog.backstory_edit, "A harbour pilot who explains tides to anyone who asks.")
    browser = dialog.voice_browser
    await browser.wait_idle()
    await until(lambda: browser.model.rowCount() > 0, "voices listed")
    index = browser.proxy.index(c.rng.randrange(min(browser.proxy.rowCount(), 10)), 0)
    c.click(browser.table.viewport(), browser.table.visualRect(index).center())
    await until(lambda: browser.selected_voice_id() is not None, "a voice chosen")
    return "created" if await c.submit(dialog) else "cancelled after failures"


async def edit_host(c: Creator) -> str:
    pane = await c.show_pane("Hosts")
    await c.loaded(pane)
    if not c.online or await c.select_row(pane, lambda h: True) is None:
        return "nothing to edit" if c.online else "offline"
    dialog = await c.open_dialog(pane, pane.edit_button, HostDialog, "the Edit host dialog")
    dialog.title_edit.selectAll()
    await c.type(dialog.title_edit, f"Guest {c.token('t')[-6:]}")
    return "saved" if await c.submit(dialog) else "cancelled after failures"


async def create_episode(c: Creator) -> str:
    pane = await c.show_pane("Episodes")
    if not c.online:
        return "offline: New is disabled"
    dialog = await c.open_dialog(pane, pane.new_button, EpisodeCreateDialog, "the New episode dialog")
    await dialog.podcast_picker.wait_loaded()
    await c.type(dialog.title_edit, f"Draft {c.token('draft')}")
    await until(lambda: dialog.podcast_picker.selected_id(), "a podcast proposed")
    return "created" if await c.submit(dialog) else "cancelled after failures"


async def edit_episode(c: Creator) -> str:
    pane = await c.show_pane("Episodes")
    await c.loaded(pane)
    if not c.online or await c.select_row(pane, lambda e: True) is None:
        return "nothing to edit" if c.online else "offline"
    dialog = await c.open_dialog(pane, pane.edit_button, EpisodeEditDialog, "the Edit episode dialog")
    dialog.title_edit.selectAll()
    await c.type(dialog.title_edit, f"Retitled {c.token('title')}")
    return "saved" if await c.submit(dialog) else "cancelled after failures"


# --- generations ------------------------------------------------------------------------------------------


async def _generate(c: Creator, dialog: GenerateDialog, token: str) -> str:
    if not await c.submit(dialog, attempts=1):
        c.refusals.append(f"{token}: {dialog.banner.text}")
        return f"refused: {dialog.banner.text[:80]}"
    how = _how(dialog.result_value)
    c.asked("episode_generate", token, how)
    return how


async def generate_from_prompt(c: Creator) -> str:
    pane = await c.show_pane("Episodes")
    if not c.online:
        return "offline: Generate is disabled"
    dialog = await c.open_dialog(pane, pane.generate_button, GenerateDialog, "the Generate dialog")
    for picker in (dialog.podcast_picker, dialog.hosts_picker, dialog.sources_picker):
        await picker.wait_loaded()
    token = c.token("prompt")
    await c.type(dialog.prompt_edit, f"How the tide tables are made, told by two harbour pilots ({token}).")
    dialog.length_spin.selectAll()
    await c.type(dialog.length_spin, "1")
    rendered = c.rng.random() < 0.25  # rendered too, now and then: something to publish later
    if dialog.render_check.isChecked() != rendered:  # (on by default, then as last chosen)
        c.click(dialog.render_check)
    await _generate_enabled(dialog)
    return await _generate(c, dialog, token)


async def _generate_enabled(dialog: GenerateDialog) -> None:
    """Until Generate can be pressed; if it never can, what the creator would read there says why."""
    try:
        await until(
            lambda: dialog.podcast_picker.selected_id() and dialog.submit_button.isEnabled(),
            "Generate enabled",
        )
    except StepFailed as failed:
        raise StepFailed(
            f"{failed}; the dialog says {dialog.problem.text()[:160]!r}, banner {dialog.banner.text[:120]!r}, "
            f"podcast {dialog.podcast_picker.selected_id()!r}, hosts {dialog.hosts_picker.status.text()[:80]!r}, "
            f"submit tip {dialog.submit_button.toolTip()[:120]!r}"
        ) from None


async def generate_from_script_file(c: Creator) -> str:
    pane = await c.show_pane("Episodes")
    if not c.online:
        return "offline: Generate is disabled"
    dialog = await c.open_dialog(pane, pane.generate_button, GenerateDialog, "the Generate dialog")
    await dialog.podcast_picker.wait_loaded()
    token = c.token("file")
    names = await _host_names(c, dialog.hosts_picker)
    if not names:
        await c.cancel(dialog)
        return f"no hosts to choose: {dialog.hosts_picker.status.text()[:70]}"
    path = c.files / f"{token}.md"
    path.write_text("\n".join(_script(c, token, names)) + "\n", encoding="utf-8")
    dialog.mode_combo.setFocus()
    dialog.mode_combo.setCurrentIndex(dialog.mode_combo.findData(FILE))
    await c.type(dialog.script_source.path_edit, f"{path}\n")
    await until(lambda: dialog.script_source.text is not None, "the script file read")
    await _generate_enabled(dialog)
    return await _generate(c, dialog, token)


async def _from_scripts_pane(c: Creator, action: str) -> str:
    pane = await c.show_pane("Scripts")
    c.click(pane.new_button)
    before = pane.draft.id if pane.draft is not None else None
    await until(
        lambda: pane.draft is not None and pane.draft.id != before and pane.editor.isEnabled(), "a new draft"
    )
    await until(lambda: pane.hosts is not None, "the hosts read (or cached)")
    names = [h.name for h in pane.hosts or [] if "[" not in h.name and "]" not in h.name]
    if not names:
        return "no hosts known yet"
    c.rng.shuffle(names)
    token = c.token("import" if action == "import" else "script")
    await c.type(pane.editor, "\n".join(_script(c, token, names[:2])) + "\n")
    await until(
        lambda: pane.analysis is not None and token in pane.analysis.script.text, "the script analysed"
    )
    dialog = await c.open_dialog(
        pane,
        pane.import_button if action == "import" else pane.generate_button,
        SendDialog,
        "the Import/Generate dialog",
    )
    await dialog.podcast_picker.wait_loaded()
    picker = dialog.podcast_picker
    if not picker.selected_id():
        picker.setCurrentIndex(c.rng.randrange(picker.count()))
    await until(lambda: dialog.ok_button.isEnabled(), "a podcast chosen")
    draft_id = pane.draft.id
    c.click(dialog.ok_button)
    queued = await until(
        lambda: pane.draft is not None and pane.draft.id == draft_id and pane.draft.state != "draft"
        and pane.draft.outbox_entry, "the draft queued",
    )  # fmt: skip
    c.asked("episode_import" if action == "import" else "episode_generate", token, "queued")
    return f"queued ({'online' if c.online else 'offline'}, {queued})"


async def generate_from_draft(c: Creator) -> str:
    return await _from_scripts_pane(c, "generate")


async def import_draft(c: Creator) -> str:
    return await _from_scripts_pane(c, "import")


async def _create_media(c: Creator, title: str, voiceover: bool = False) -> str:
    pane = await c.show_pane(title)
    if not c.online:
        return "offline: New is disabled"
    dialog = await c.open_dialog(pane, pane.new_button, MediaCreateDialog, f"the New dialog of {title}")
    token = c.token(title[:5].lower())
    if voiceover:
        await dialog.visuals.wait_loaded()
        usable = [i for i, s in dialog.visuals.items.items() if is_visual_source(s)]
        if not usable:
            await c.cancel(dialog)
            return "no visuals ready yet"
        dialog.visuals.check(c.rng.choice(usable))  # the picker's own tick (see the module docstring)
        await c.type(dialog.direction, f"Point at each page in turn ({token}).")
    else:
        for picker in (dialog.hosts, dialog.sources):
            await picker.wait_loaded()
        await c.type(dialog.prompt, f"A short explainer on harbour tides ({token}).")
    durations = [dialog.duration.itemData(i) for i in range(dialog.duration.count())]
    shortest = min((d for d in durations if d is not None), default=None)
    if shortest is not None:
        dialog.duration.setCurrentIndex(dialog.duration.findData(shortest))
    await until(lambda: dialog.submit_button.isEnabled(), "Create enabled")
    if not await c.submit(dialog, attempts=1):
        c.refusals.append(f"{token}: {dialog.banner.text}")
        return f"refused: {dialog.banner.text[:80]}"
    how = _how(dialog.result_value)
    c.asked("media_create", token, how)
    return how


async def create_video(c: Creator) -> str:
    return await _create_media(c, "Videos")


async def create_short(c: Creator) -> str:
    return await _create_media(c, "Shorts")


async def create_voiceover(c: Creator) -> str:
    return await _create_media(c, "Voiceovers", voiceover=True)


# --- files ------------------------------------------------------------------------------------------------


async def drop_folder(c: Creator) -> str:
    pane = await c.show_pane("Sources")
    token = c.token("drop")
    folder = c.files / token
    folder.mkdir()
    names = [f"{token}-handout-{n}.pdf" for n in range(c.rng.randint(1, 3))]
    for number, name in enumerate(names, start=1):
        (folder / name).write_bytes(pdf_bytes(number))
    visuals = c.rng.random() < 0.4
    if pane.prepare_visuals.isChecked() != visuals:
        c.click(pane.prepare_visuals)
    queue = c.background.uploads
    drop_on(pane.drop_area, [folder], direct=pane.drop_area.dropEvent)
    items = await until(
        lambda: [i for i in queue.items() if i.name in names] if sum(i.name in names for i in queue.items())
        == len(names) else None, "the dropped files queued",
    )  # fmt: skip
    c.uploads += [i.name for i in items if i.state != "refused"]
    c.refused_locally += [i.name for i in items if i.state == "refused"]
    if pane.prepare_visuals.isChecked():
        c.click(pane.prepare_visuals)
    return f"{len(names)} files{' as visuals' if visuals else ''}"


async def retry_failed_uploads(c: Creator) -> str:
    pane = await c.show_pane("Sources")
    failed = [i for i in c.background.uploads.items() if i.state == "failed"]
    if not failed or pane.queue_view is None:
        return "none failed"
    button = pane.queue_view.buttons["retry_failed"]
    await until(lambda: button.isVisible() and button.isEnabled(), "Retry failed enabled")
    c.click(button)
    c.upload_retries += 1
    await taken_up_again(c.background.uploads, failed)
    return f"retried {len(failed)}"


# --- publishing, listening --------------------------------------------------------------------------------


def _finished(e: Episode) -> bool:
    return e.generation is not None and e.generation.state == "completed"


def _rendered(e: Episode) -> bool:
    return bool(getattr(e, "rendered", None) or (e.model_extra or {}).get("rendered"))


async def publish(c: Creator) -> str:
    pane = await c.show_pane("Episodes")
    await c.loaded(pane)
    if not c.online:
        return "offline"
    episode = await c.select_row(pane, lambda e: e.status == "draft" and _finished(e) and _rendered(e))
    if episode is None:
        return "no rendered draft"
    if str(episode.id) in pane.publish_waits or not pane.publish_button.isVisible():
        return "already waiting to publish"
    dialog = await c.open_dialog(pane, pane.publish_button, PublishDialog, "the Publish dialog")
    if await c.submit(dialog, attempts=1):
        return "published" if not pane.publish_waits else "waiting for rendering, then publishing"
    return f"refused: {dialog.banner.text[:80]}"


async def unpublish(c: Creator) -> str:
    pane = await c.show_pane("Episodes")
    await c.loaded(pane)
    if not c.online:
        return "offline"
    if await c.select_row(pane, lambda e: e.status == "published") is None:
        return "none published"
    c.click(pane.unpublish_button)
    box = await until(lambda: pane.findChild(QMessageBox, "confirm"), "the confirmation")
    await until(box.isVisible, "the confirmation shown")
    c.click(next(b for b in box.buttons() if b.text() == "Unpublish"))
    await until(
        lambda: pane.work.pending() == [] or "draft again" in pane.banner.text, "the unpublish answered"
    )
    return "unpublished" if "draft again" in pane.banner.text else f"not unpublished: {pane.banner.text[:60]}"


async def listen_and_export(c: Creator) -> str:
    pane = await c.show_pane("Episodes")
    await c.loaded(pane)
    if await c.select_row(pane, lambda e: bool(e.audio_url)) is None:
        return "no episode with audio"
    await until(lambda: pane.listen_button is not None and pane.listen_button.isVisible(), "Listen shown")
    c.click(pane.listen_button)
    window = await until(lambda: pane.listen_window, "the Listen window")
    try:
        await until(lambda: window.loaded is not None or window.banner.isVisible(), "the audio opened")
        if window.loaded is None:
            return f"could not open: {window.banner.text[:60]}"
        play = window.player_bar.play_button
        await until(lambda: play.isEnabled() and play.isVisible(), "Play enabled (the audio's length known)")
        c.click(play)
        await until(lambda: window.playback.position() > 0.3, "playback advancing")
        c.click(window.player_bar.play_button)
        await until(lambda: not window.playback.playing, "paused")
        fmt = c.rng.choice(["srt", "vtt", "txt", "json"])
        action = next(a for a in window.export_button.menu().actions() if a.text().startswith(_label(fmt)))
        before = window.file_dialog
        action.trigger()  # the menu's own action (see the module docstring)
        dialog = await until(lambda: window.file_dialog if window.file_dialog is not before
                             and isinstance(window.file_dialog, QFileDialog) and alive(window.file_dialog)
                             and window.file_dialog.isVisible() else None, "the Save dialog")  # fmt: skip
        target = c.files / f"{c.token('export')}.{fmt}"
        dialog.selectFile(str(target))
        dialog.accept()
        await until(lambda: target.exists(), "the transcript written")
        return f"played and exported {fmt}"
    finally:
        window.close()


def _label(fmt: str) -> str:
    from castdeck.ui.listen.listen_window import EXPORTS

    return EXPORTS[fmt][0]


# --- moving around, the network -----------------------------------------------------------------------------


async def switch_panes(c: Creator) -> str:
    titles = [c.window.sidebar.item(r).text() for r in range(c.window.sidebar.count())]
    chosen = c.rng.sample(titles, 3)
    for title in chosen:
        await c.loaded(await c.show_pane(title))
    return ", ".join(chosen)


async def offline_and_back(c: Creator) -> str:
    """The network goes away for a while: the app notices, queues a script import, and catches up."""
    c.service.offline()
    try:
        pane = await c.show_pane(c.rng.choice(["Episodes", "Hosts", "Podcasts", "Sources"]))
        c.click(pane.refresh_button)
        await until(lambda: not c.online, "the app noticed it is offline")
        done = await import_draft(c) if c.rng.random() < 0.5 else "looked around offline"
    finally:
        c.service.online()
    await until(lambda: c.online, "back online", timeout=120)
    return done


STEPS: list[tuple[Step, int]] = [
    (create_podcast, 2), (edit_podcast, 2), (create_host, 1), (edit_host, 2), (create_episode, 2),
    (edit_episode, 2), (generate_from_prompt, 4), (generate_from_script_file, 2), (generate_from_draft, 2),
    (import_draft, 2), (create_video, 1), (create_short, 1), (create_voiceover, 1), (drop_folder, 3),
    (retry_failed_uploads, 1), (publish, 1), (unpublish, 1), (listen_and_export, 2), (switch_panes, 3),
    (offline_and_back, 2),
]  # fmt: skip
"""Each step with its weight in the seeded random schedule."""


def step_names() -> list[str]:
    return [step.__name__ for step, _ in STEPS]
