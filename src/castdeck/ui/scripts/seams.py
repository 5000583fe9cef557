"""The typed seams between the Scripts pane and its actions.

:class:`~castdeck.ui.scripts.actions.ScriptActions` does the workspace's file, history, edit and
send actions; it asks the pane (:class:`~castdeck.ui.scripts.pane.ScriptsPane`) for the open draft,
its widgets and its banner only through :class:`ScriptsView`. mypy checks that the pane plays it
where the pane hands itself in, so a pane that misses one is a type error, not an ``AttributeError``
on a click.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from castdeck.scripts import Analysis, HostRef
    from castdeck.scripts.edits import Edit
    from castdeck.store.drafts import Draft

__all__ = ["ScriptsView"]


class ScriptsView(Protocol):
    """What :class:`~castdeck.ui.scripts.actions.ScriptActions` asks of the Scripts pane (which
    plays it; mypy checks it where the pane hands itself in)."""

    draft: Draft | None
    """The open draft, as the pane holds it (the actions keep it current: a file saved, a state sent)."""

    @property
    def analysis(self) -> Analysis | None:
        """The open draft's text, read (None while no draft is open)."""

    @property
    def hosts(self) -> list[HostRef] | None:
        """The hosts a label can stand for (None: never read, the service cannot be asked)."""

    def run(self, coro: Coroutine[Any, Any, Any], context: str = "") -> asyncio.Task[Any]:
        """Start ``coro`` as the pane's work; a failure is said in its banner after ``context``."""

    def message(self, text: str, kind: str = "info", *, button: str | None = None,
                action: Callable[[], object] | None = None) -> None:  # fmt: skip
        """Say ``text`` in the pane's banner (with a button doing ``action``, when named)."""

    def dismiss_message(self) -> None:
        """Take the banner's message away."""

    async def open_draft(self, draft_id: str) -> None:
        """Open the stored draft in the editor."""

    def selected_ids(self) -> list[str]:
        """The drafts selected in the list, in the list's order (the open one alone, when one is)."""

    def select_drafts(self, draft_ids: list[str]) -> None:
        """Select these drafts in the list (a batch just opened)."""

    async def read_list(self) -> None:
        """Read the drafts' list again."""

    async def read_hosts(self) -> None:
        """Read the hosts again (one may have been archived meanwhile)."""

    def show_no_draft(self) -> None:
        """No draft open any more: an empty, disabled editor."""

    def show_row(self, draft: Draft) -> None:
        """The draft's row in the list, as stored."""

    def show_info(self) -> None:
        """The line above the editor, for the open draft (its file, its state)."""

    def apply_edits(self, edits: Sequence[Edit]) -> None:
        """Line edits in the editor, as one undo step."""

    def replace_all_text(self, text: str) -> None:
        """The editor's whole text replaced, as one undo step."""

    def reanalyze(self) -> None:
        """Read the script again (after its mapping changed)."""

    def refresh_panels(self) -> None:
        """Fill the outline, speakers and structure again."""

    def show_speakers(self) -> None:
        """Bring the Speakers panel forward."""

    def select_speaker(self, label: str) -> None:
        """Select ``label`` in the Speakers panel."""

    def jump(self, line: int, column: int) -> None:
        """Show the text at ``line``, ``column``."""

    def balance(self) -> tuple[float | None, bool]:
        """The credit balance and whether it is the cached one."""
