"""The analytics CSV files and the chart's ticks, without the service: spreadsheets must read the
files (UTF-8 with a byte-order mark, quoting names with commas, quotes and line breaks, whole
numbers), a failed write leaves the old file whole, and ticks never fall on a fraction."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

from castdeck.api.models import PodcastAnalytics
from castdeck.services.analytics import EpisodeLine, PodcastFigures
from castdeck.services.analytics_export import (
    APP_HEADER,
    EPISODE_HEADER,
    app_rows,
    episode_rows,
    write_csv,
)
from castdeck.ui.analytics.bars import nice_ticks


def figures() -> PodcastFigures:
    analytics = PodcastAnalytics.model_validate({
        "podcast_id": "p1",
        "complete": True,
        "plays_by_app": {"Spotify": 30.0, 'The "Best", App': 70, "Web": 0},
        "episodes": [
            {"episode_id": "e1", "downloads": {"first_7_days": 5, "first_30_days": 9, "total": 12.0},
             "video_views": {"last_7_days": 1, "last_30_days": 2, "total": 3}},
            {"episode_id": "e2", "downloads": {"first_7_days": 50, "first_30_days": 90, "total": 120},
             "video_views": {"last_7_days": 0, "last_30_days": 0, "total": 0}},
            {"episode_id": "e3"},
        ],
    })  # fmt: skip
    lines = {
        "e1": EpisodeLine('Tides, "the basics"\nPart 1', "published", "2026-10-01T09:00:00Z"),
        "e2": EpisodeLine("Kelp — naïve café", "published", "2026-11-01T09:00:00Z"),
    }
    return PodcastFigures(analytics, lines, read_at=0.0)


def read(path: Path) -> list[list[str]]:
    with path.open(encoding="utf-8-sig", newline="") as handle:
        return list(csv.reader(handle))


def test_the_episode_table_reads_back_whole(tmp_path: Path) -> None:
    target = write_csv(tmp_path / "episodes.csv", EPISODE_HEADER, episode_rows(figures()))
    rows = read(target)
    assert rows[0] == EPISODE_HEADER
    assert rows[1] == [
        "Kelp — naïve café",
        "e2",
        "published",
        "2026-11-01T09:00:00Z",
        "50",
        "90",
        "120",
        "0",
        "0",
        "0",
    ]
    assert rows[2] == [
        'Tides, "the basics"\nPart 1',
        "e1",
        "published",
        "2026-10-01T09:00:00Z",
        "5",
        "9",
        "12",
        "1",
        "2",
        "3",
    ]
    assert rows[3] == ["", "e3", "", "", "0", "0", "0", "0", "0", "0"]  # an episode the list did not name
    raw = target.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in raw
    assert b"12.0" not in raw  # counts are whole numbers


def test_the_app_breakdown_reads_back_with_shares(tmp_path: Path) -> None:
    rows = read(write_csv(tmp_path / "apps.csv", APP_HEADER, app_rows(figures())))
    assert rows == [
        APP_HEADER,
        ['The "Best", App', "70", "70.0%"],
        ["Spotify", "30", "30.0%"],
        ["Web", "0", "0.0%"],
    ]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "episodes.csv"
    target.write_text("the old export\n", encoding="utf-8")

    def full_disk(_fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)  # a fault the test cannot cause on this disk otherwise
    with pytest.raises(OSError):
        write_csv(target, EPISODE_HEADER, episode_rows(figures()))
    assert target.read_text(encoding="utf-8") == "the old export\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["episodes.csv"]


@pytest.mark.parametrize(
    ("largest", "expected"),
    [
        (0, [0, 1]),
        (1, [0, 1]),
        (3, [0, 1, 2, 3]),
        (7, [0, 2, 4, 6, 8]),
        (2551, [0, 1000, 2000, 3000]),
        (740, [0, 200, 400, 600, 800]),
        (99_999, [0, 50_000, 100_000]),
    ],
)
def test_ticks_are_whole_and_cover_the_largest(largest: float, expected: list[int]) -> None:
    assert nice_ticks(largest) == expected


def test_the_episode_rows_follow_the_order_on_the_screen() -> None:
    """Sorted as the table was (by a column the creator clicked), the file keeps that order; an
    episode the order leaves out comes after it, as by default."""
    assert [row[1] for row in episode_rows(figures())] == ["e2", "e1", "e3"]  # most downloaded first
    assert [row[1] for row in episode_rows(figures(), ["e3", "e1", "e2"])] == ["e3", "e1", "e2"]
    assert [row[1] for row in episode_rows(figures(), ["e1"])] == ["e1", "e2", "e3"]
