"""What the early window reads and says, without a window: the read-only peek at a cached list, and
the cell texts, which must be those of the Episodes pane's columns for any episode (the same
functions, :mod:`castdeck.ui.cells`, and the same constants)."""

from __future__ import annotations

import sqlite3
from datetime import datetime
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from castdeck.api.models import Episode, Podcast
from castdeck.services.listing import list_key
from castdeck.store.cache import Cache
from castdeck.store.cache_peek import CACHE_SCHEMA_VERSION, peek_list
from castdeck.ui import cells
from castdeck.ui.early import EARLY_PANES, PANE_TITLES
from castdeck.ui.early.episodes import episodes_pane
from castdeck.ui.pane import ResourcePane
from castdeck.ui.panes import episodes, pane_specs
from castdeck.ui.panes.podcasts import NameBook


def cached(path: Path, pages: list[tuple[int, list[dict[str, Any]], bool]], profile: str = "P") -> None:
    cache = Cache(path)
    for offset, records, last in pages:
        cache.put_page(profile, "episodes", "episode", records, offset=offset, last=last)
    cache.close()


RECORDS = [{"id": f"e{i}", "title": f"Episode {i}"} for i in range(5)]


def test_the_peek_reads_the_first_rows_in_order_and_whether_more_follow(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    cached(path, [(0, RECORDS[:3], False), (3, RECORDS[3:], True)])
    whole = peek_list(path, "P", "episodes", 100)
    assert whole is not None and whole.items == RECORDS and not whole.more
    first = peek_list(path, "P", "episodes", 2)
    assert first is not None and first.items == RECORDS[:2] and first.more  # more rows are cached
    cached(path, [(0, RECORDS[:3], False)])  # a first page read again: the list was not read to its end
    again = peek_list(path, "P", "episodes", 100)
    assert again is not None and again.items == RECORDS[:3] and again.more
    assert peek_list(path, "Q", "episodes", 100) is None  # another profile
    assert peek_list(path, "P", "hosts", 100) is None  # a list never read


def test_the_peek_reads_while_the_cache_is_open_and_written(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite3"
    cache = Cache(path)
    cache.put_page("P", "episodes", "episode", RECORDS, offset=0, last=True)
    peeked = peek_list(path, "P", "episodes", 100)
    cache.put_page("P", "episodes", "episode", RECORDS[:1], offset=0, last=True)
    later = peek_list(path, "P", "episodes", 100)
    cache.close()
    assert peeked is not None and peeked.items == RECORDS
    assert later is not None and later.items == RECORDS[:1]


def test_the_peek_never_makes_or_changes_a_file_and_says_none_when_unsure(tmp_path: Path) -> None:
    missing = tmp_path / "missing" / "cache.sqlite3"
    assert peek_list(missing, "P", "episodes", 100) is None
    assert not missing.parent.exists()
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"not a database at all" * 100)
    assert peek_list(garbage, "P", "episodes", 100) is None
    assert garbage.read_bytes() == b"not a database at all" * 100
    newer = tmp_path / "newer.sqlite3"
    cached(newer, [(0, RECORDS, True)])
    with sqlite3.connect(newer) as db:  # a Castdeck with another cache layout wrote it
        db.execute(f"PRAGMA user_version = {CACHE_SCHEMA_VERSION + 1}")
    assert peek_list(newer, "P", "episodes", 100) is None


def test_the_peek_knows_the_caches_schema() -> None:
    cache = Cache(":memory:")
    assert max(m.version for m in cache.migrations) == CACHE_SCHEMA_VERSION
    cache.close()


def test_the_early_window_reads_the_lists_the_episodes_pane_reads() -> None:
    source = EARLY_PANES["Episodes"]
    assert source.list_key == list_key("episodes")  # the pane's list with no filter chosen
    assert dict(source.related) == {"podcast": list_key("podcasts")}  # the podcast names it shows
    assert source.page == ResourcePane.page_size
    assert tuple(spec.title for spec in pane_specs()) == PANE_TITLES


def test_the_episodes_header_and_columns_are_the_panes() -> None:
    assert cells.EPISODE_STATUSES == episodes.STATUSES
    assert cells.EPISODE_COLUMN_WIDTHS == episodes.EpisodesPane.COLUMN_WIDTHS
    names = NameBook({}, {})
    assert tuple(column.title for column in episodes.episode_columns(names)) == cells.EPISODE_COLUMNS


# --- the cells: any episode reads the same in both windows -------------------------------------------------

moments = st.datetimes(datetime(1971, 1, 1), datetime(2200, 1, 1))
"""(The pane's own ``format_time`` overflows for the years 1 and 9999 with an offset.)"""
timestamps = st.one_of(
    st.none(),
    st.just(""),
    moments.map(lambda moment: moment.isoformat() + "Z"),
    moments.map(lambda moment: moment.isoformat(timespec="seconds") + "+02:00"),
    st.text(max_size=12),  # whatever a service sends
)
words = st.one_of(st.none(), st.text(max_size=20), st.sampled_from(["draft", "published", "in_review", ""]))
generations = st.one_of(
    st.none(),
    st.fixed_dictionaries(
        {
            "state": st.one_of(
                st.none(), st.sampled_from(["generating", "completed", "failed", "queued_up", ""])
            ),
            "phase": words,
            "progress_pct": st.one_of(st.none(), st.integers(0, 100), st.floats(0, 100)),
        }
    ),
)
episodes_records = st.fixed_dictionaries(
    {
        "id": st.uuids().map(str),
        "title": st.one_of(st.none(), st.text(max_size=30)),
        "podcast_id": st.one_of(st.none(), st.sampled_from(["p1", "p2", "gone"])),
        "status": words,
        "generation": generations,
        "created_at": timestamps,
        "published_at": timestamps,
        "scheduled_at": timestamps,
    }
)
PODCASTS = [{"id": "p1", "title": "Harbour Lights"}, {"id": "p2", "title": None}]


@settings(max_examples=300, deadline=None)
@given(st.lists(episodes_records, min_size=1, max_size=5))
def test_the_early_rows_say_what_the_panes_columns_say(records: list[dict[str, Any]]) -> None:
    # the pane: models as the service's JSON makes them, and the names its name book has read
    names = NameBook({}, {"podcast": lambda podcast: podcast.title or podcast.id})
    names.items["podcast"] = {p["id"]: Podcast.model_validate(p) for p in PODCASTS}
    columns = episodes.episode_columns(names)
    models = [Episode.model_validate(record) for record in records]
    pane_rows = [["" if (v := c.value(m)) is None else str(v) for c in columns] for m in models]
    # the early window: the records as cached (the models' JSON), and the cached podcasts
    cached_records = [model.model_dump(mode="json") for model in models]
    early = episodes_pane(cached_records, False, {"podcast": PODCASTS})
    assert early.rows == pane_rows
    assert early.filters[0][1] == ("All podcasts", "Harbour Lights", "p2")
