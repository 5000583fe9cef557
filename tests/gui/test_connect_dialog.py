"""The connect dialog: the key is checked before it is saved, lands in the keychain (never in
QSettings), 401 and 403 say what is wrong, and without a keychain the key is kept for the run only."""

from __future__ import annotations

from pathlib import Path

import keyring
import pytest
from PySide6.QtCore import QSettings
from pytestqt.qtbot import QtBot

from castdeck.services.profiles import KeyStore, Profile, ProfileStore
from castdeck.ui.connect_dialog import ConnectDialog
from tests.conftest import DEMO_KEY, FREE_KEY, RunningSandbox
from tests.gui.conftest import MemoryKeyring, until


def fill(qtbot: QtBot, dialog: ConnectDialog, name: str, url: str, key: str) -> None:
    dialog.name.clear()
    qtbot.keyClicks(dialog.name, name)
    dialog.base_url.clear()
    qtbot.keyClicks(dialog.base_url, url)
    dialog.api_key.clear()
    qtbot.keyClicks(dialog.api_key, key)


def settings_text(tmp_path: Path) -> str:
    QSettings().sync()
    return "".join(p.read_text(errors="replace") for p in (tmp_path / "settings").rglob("*") if p.is_file())


@pytest.mark.asyncio
async def test_a_good_key_is_checked_then_saved_in_the_keychain(
    qtbot: QtBot, sandbox: RunningSandbox, memory_keyring: MemoryKeyring, tmp_path: Path, shot
) -> None:
    profiles, keys = ProfileStore(), KeyStore()
    dialog = ConnectDialog(profiles, keys)
    qtbot.addWidget(dialog)
    dialog.open()
    fill(qtbot, dialog, "Studio", sandbox.base_url, DEMO_KEY)
    assert dialog.submit_button.isEnabled()
    shot(dialog, "dialog-connect")
    dialog.submit_button.click()
    await dialog.wait_sent()
    assert dialog.result() == ConnectDialog.DialogCode.Accepted
    connection = dialog.result_value
    assert connection.account.plan == "creator" and connection.stored_in_keychain
    assert memory_keyring.passwords == {("castdeck", "Studio"): DEMO_KEY}
    assert profiles.get("Studio") == Profile("Studio", sandbox.base_url)
    assert profiles.last_used() == "Studio"
    assert DEMO_KEY not in settings_text(tmp_path)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("key", "words"), [("sk_wrong_key", "does not accept this key (401)"), (FREE_KEY, "no API access (403)")]
)
async def test_refused_keys_say_what_is_wrong_under_the_key(
    qtbot: QtBot, sandbox: RunningSandbox, memory_keyring: MemoryKeyring, key: str, words: str, shot
) -> None:
    dialog = ConnectDialog(ProfileStore(), KeyStore())
    qtbot.addWidget(dialog)
    dialog.open()
    fill(qtbot, dialog, "Studio", sandbox.base_url, key)
    dialog.submit_button.click()
    await dialog.wait_sent()
    assert dialog.isVisible()
    assert words in dialog.rows["api_key"].error.text()
    assert memory_keyring.passwords == {}
    assert ProfileStore().profiles() == []
    if key == FREE_KEY:
        shot(dialog, "dialog-connect-403")


@pytest.mark.asyncio
async def test_unreachable_address_and_bad_input(qtbot: QtBot) -> None:
    dialog = ConnectDialog(ProfileStore(), KeyStore())
    qtbot.addWidget(dialog)
    dialog.open()
    fill(qtbot, dialog, "Studio", "http://example.com", DEMO_KEY)
    assert not dialog.submit_button.isEnabled()
    assert "loopback" in dialog.rows["base_url"].error.text()
    fill(qtbot, dialog, "Studio", "http://127.0.0.1:9", DEMO_KEY)  # nothing listens on the discard port
    dialog.submit_button.click()
    await dialog.wait_sent()
    assert "cannot be reached" in dialog.rows["base_url"].error.text()


@pytest.mark.asyncio
async def test_without_a_keychain_the_key_is_kept_for_this_run_only(
    qtbot: QtBot, sandbox: RunningSandbox, tmp_path: Path
) -> None:
    from keyring.backends.fail import Keyring as NoKeyring

    keyring.set_keyring(NoKeyring())
    keys = KeyStore()
    dialog = ConnectDialog(ProfileStore(), keys)
    qtbot.addWidget(dialog)
    dialog.open()
    assert "No system keychain" in dialog.keychain_note.text()
    fill(qtbot, dialog, "Studio", sandbox.base_url, DEMO_KEY)
    assert not dialog.submit_button.isEnabled()
    assert "only be kept for this run" in dialog.problem.text()
    dialog.session_only.setChecked(True)
    await until(dialog.submit_button.isEnabled)
    dialog.submit_button.click()
    await dialog.wait_sent()
    assert dialog.result_value is not None and not dialog.result_value.stored_in_keychain
    assert keys.get("Studio") == DEMO_KEY  # in memory for this run
    assert KeyStore().get("Studio") is None  # a new run does not have it
    assert DEMO_KEY not in settings_text(tmp_path)


@pytest.mark.asyncio
async def test_saved_profiles_can_be_used_and_removed(
    qtbot: QtBot, sandbox: RunningSandbox, memory_keyring: MemoryKeyring
) -> None:
    profiles, keys = ProfileStore(), KeyStore()
    profiles.save(Profile("First", sandbox.base_url))
    profiles.save(Profile("Second", sandbox.base_url))
    keys.save("First", DEMO_KEY)
    dialog = ConnectDialog(profiles, keys)
    qtbot.addWidget(dialog)
    dialog.open()
    assert dialog.saved.count() == 2
    dialog.saved.setCurrentIndex(dialog.saved.findData("Second"))
    dialog.remove_saved.click()
    assert [p.name for p in profiles.profiles()] == ["First"]
    dialog.saved.setCurrentIndex(dialog.saved.findData("First"))
    dialog.use_saved.click()
    await dialog.wait_sent()
    assert dialog.result_value.profile.name == "First"
