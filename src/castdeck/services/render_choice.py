"""Whether a new episode is rendered: yes, unless the creator turned it off (the choice is kept,
``Settings.render_on_send``).

The service's own default is ``render: false`` (spec 2.4), which leaves a draft that cannot be
published through the interface: a never-rendered draft must be rendered in the studio first, and
there is no render call. Rendering is free, so the app's Generate and Import ask for it unless the
creator chose otherwise, and say what "off" means before the click.
"""

from __future__ import annotations

__all__ = ["RENDER_OFF_MEANS"]

RENDER_OFF_MEANS = (
    "Rendering is free. Off leaves a draft whose script you can read and edit, but which cannot be "
    "published from Castdeck until it is rendered in the studio."
)
