"""Service fixtures: the GUI fixtures (session, cache, until, settle, keyring, settings)."""

from tests.gui.conftest import *  # noqa: F403
