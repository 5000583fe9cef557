"""Analytics as CSV files any spreadsheet opens: UTF-8 with a byte-order mark (so spreadsheet
programs do not guess another encoding), quoted where a name holds commas, quotes or line breaks,
written atomically (a temporary file, flushed to disk, then renamed over the target).

Names come from the service (episode titles, app names): one that starts like a formula (``=``,
``+``, ``-``, ``@``, a tab or a carriage return) is written after an apostrophe, so a spreadsheet
shows it as text instead of running it (CSV injection; OWASP's advice)."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from castdeck.store.atomic import write_atomic

from .analytics import PodcastFigures

__all__ = ["APP_HEADER", "EPISODE_HEADER", "app_rows", "as_text", "episode_rows", "whole", "write_csv"]

EPISODE_HEADER = [
    "Episode",
    "Episode ID",
    "Status",
    "Published",
    "Downloads, first 7 days",
    "Downloads, first 30 days",
    "Downloads, all time",
    "Video views, last 7 days",
    "Video views, last 30 days",
    "Video views, last 90 days",
]
APP_HEADER = ["App", "Plays", "Share of plays"]


def whole(value: float) -> int:
    """A count as a whole number (the service may send 12.0)."""
    return round(value)


def episode_rows(figures: PodcastFigures, order: list[str] | None = None) -> list[list[str | int]]:
    """One row per episode of the podcast's analytics, most downloaded first; with ``order`` (episode
    ids, as the table on screen is sorted), in that order (episodes it leaves out after it)."""
    rows: list[list[str | int]] = []
    for entry in figures.analytics.episodes:
        line = figures.episodes.get(entry.episode_id)
        downloads, views = entry.downloads, entry.video_views
        rows.append([
            (line.title if line else None) or "",
            entry.episode_id,
            (line.status if line else None) or "",
            (line.published_at if line else None) or "",
            whole(downloads.first_7_days),
            whole(downloads.first_30_days),
            whole(downloads.total),
            whole(views.last_7_days),
            whole(views.last_30_days),
            whole(views.total),
        ])  # fmt: skip
    rows.sort(key=lambda row: (-int(row[6]), str(row[0])))
    if order is not None:
        place = {episode_id: number for number, episode_id in enumerate(order)}
        rows.sort(key=lambda row: place.get(str(row[1]), len(place)))  # stable: the rest as above
    return rows


def app_rows(figures: PodcastFigures) -> list[list[str | int]]:
    """One row per listening app, most plays first, with its share of all of them."""
    apps = figures.analytics.plays_by_app
    total = sum(apps.values())
    rows: list[list[str | int]] = []
    for name, plays in sorted(apps.items(), key=lambda item: (-item[1], item[0])):
        share = f"{plays / total:.1%}" if total else ""
        rows.append([name, whole(plays), share])
    return rows


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def as_text(cell: str | int) -> str | int:
    """A cell a spreadsheet shows as written: text that starts like a formula gets an apostrophe."""
    return f"'{cell}" if isinstance(cell, str) and cell.startswith(FORMULA_STARTS) else cell


def write_csv(path: Path, header: list[str], rows: list[list[str | int]]) -> Path:
    """Write the table to ``path`` atomically (the old file stays whole until the new one is)."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows([as_text(cell) for cell in row] for row in rows)
    data = buffer.getvalue().encode("utf-8-sig")
    path = Path(path)
    write_atomic(path, data)
    return path
