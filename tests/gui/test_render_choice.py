"""Generate and Import render unless the creator turned it off; the choice is kept across starts."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from castdeck.services import settings_later
from castdeck.services.render_choice import RENDER_KEY, remember_render, render_chosen


def test_rendering_is_on_until_turned_off_and_the_choice_survives_a_restart() -> None:
    assert render_chosen() is True  # never chosen
    remember_render(False)
    assert render_chosen() is False
    assert settings_later.flush()
    assert QSettings().value(RENDER_KEY) in (False, "false")  # on disk, read back as an INI file reads it
    remember_render(True)
    assert settings_later.flush()
    assert render_chosen() is True


def test_a_choice_read_back_as_text_from_the_settings_file() -> None:
    QSettings().setValue(RENDER_KEY, "false")
    assert render_chosen() is False
    QSettings().setValue(RENDER_KEY, "true")
    assert render_chosen() is True
