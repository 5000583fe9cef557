"""Whether a new episode is rendered: yes, unless the creator turned it off (the choice is kept).

The service's own default is ``render: false`` (spec 2.4), which leaves a draft that cannot be
published through the interface: a never-rendered draft must be rendered in the studio first, and
there is no render call. Rendering is free, so the app's Generate and Import ask for it unless the
creator chose otherwise, and say what "off" means before the click.
"""

from __future__ import annotations

from . import settings_later

__all__ = ["RENDER_KEY", "RENDER_OFF_MEANS", "remember_render", "render_chosen"]

RENDER_KEY = "episodes/render"

RENDER_OFF_MEANS = (
    "Rendering is free. Off leaves a draft whose script you can read and edit, but which cannot be "
    "published from Castdeck until it is rendered in the studio."
)


def render_chosen() -> bool:
    """The creator's last choice; on when they never made one."""
    value = settings_later.recall(RENDER_KEY, True)
    if isinstance(value, str):  # QSettings' INI files read booleans back as text
        return value.strip().lower() not in ("false", "0", "no", "off")
    return bool(value)


def remember_render(on: bool) -> None:
    settings_later.remember(RENDER_KEY, bool(on))
