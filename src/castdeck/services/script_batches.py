"""Many scripts at once in the Scripts workspace: the script files of what was dropped (folders
opened to the scripts inside them, in name order), and what the whole batch needs once they are
drafts (checked together with :mod:`castdeck.scripts.batch`)."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from castdeck.scripts import HostRef
from castdeck.scripts.batch import Batch, check_script, duration_text
from castdeck.store.drafts import Draft

from .drafts import SCRIPT_SUFFIXES

__all__ = ["MAX_SCRIPT_FILES", "batch_of", "natural_key", "opened_summary", "script_files"]

MAX_SCRIPT_FILES = 200
"""Scripts opened from one drop: a season or several, not a whole disk dropped by mistake."""


def natural_key(name: str | Path) -> list[object]:
    """Sort key that puts "Episode 2" before "Episode 10" (a file's path, a draft's title)."""
    return [int(part) if part.isdigit() else part.casefold() for part in re.split(r"(\d+)", str(name))]


def script_files(paths: Iterable[Path], limit: int = MAX_SCRIPT_FILES) -> tuple[list[Path], int]:
    """The script files among ``paths``, files in the order given and each folder's scripts (at
    any depth, hidden ones left out) in natural name order; at most ``limit``, with how many more
    there were. Runs off the UI thread (it lists folders)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            inside: list[Path] = []
            for root, folders, files in os.walk(path):
                folders[:] = [name for name in folders if not name.startswith(".")]
                inside += [Path(root, name) for name in files
                           if not name.startswith(".") and name.lower().endswith(SCRIPT_SUFFIXES)]  # fmt: skip
            found += sorted(inside, key=lambda one: natural_key(one.relative_to(path)))
        elif path.name.lower().endswith(SCRIPT_SUFFIXES):
            found.append(path)
    unique = list(dict.fromkeys(found))
    return unique[:limit], max(0, len(unique) - limit)


def batch_of(drafts: Iterable[Draft], hosts: list[HostRef] | None) -> Batch:
    """The drafts checked together, each with its own label mapping."""
    return Batch(
        [check_script(draft.title, draft.text, hosts=hosts, mapping=draft.mapping) for draft in drafts]
    )


def opened_summary(drafts: list[Draft], hosts: list[HostRef] | None, more: int = 0) -> tuple[str, str]:
    """What opening several scripts at once made, and the message's kind ("info", "warning")."""
    batch = batch_of(drafts, hosts)
    parts = [f"Opened {len(drafts)} scripts as drafts: {duration_text(batch.seconds)} of narration, "
             f"about {batch.credits:,} credits in all."]  # fmt: skip
    kind = "info"
    held = batch.with_problems()
    if held:
        kind = "warning"
        named = ", ".join(f"{script.name} ({len(script.blocking())})" for script in held[:4])
        others = f" and {len(held) - 4} more" if len(held) > 4 else ""
        parts.append(f"{len(held)} {'has' if len(held) == 1 else 'have'} errors to correct: {named}{others}.")
    for label, names in list(batch.unresolved().items())[:3]:
        kind = "warning"
        parts.append(f"No host is called “{label}” (in {len(names)} of them).")
    if more:
        kind = "warning"
        parts.append(f"{more} more scripts were not opened: at most {MAX_SCRIPT_FILES} at a time.")
    return " ".join(parts), kind
