"""The one atomic writer (castdeck.store.atomic): whole files, kept permissions, nothing left behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from castdeck.store.atomic import write_atomic


def test_a_file_is_replaced_whole_and_keeps_its_permissions(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "er" / "out.csv"
    with pytest.raises(FileNotFoundError):
        write_atomic(path, b"first\r\n")  # where the user said, or not at all
    write_atomic(path, b"first\r\n", make_folder=True)
    assert path.read_bytes() == b"first\r\n"
    os.chmod(path, 0o640)
    write_atomic(path, b"second\n")
    assert path.read_bytes() == b"second\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert sorted(p.name for p in path.parent.iterdir()) == ["out.csv"]


def test_a_write_that_fails_leaves_the_old_state_and_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.mkdir()  # a folder where the file should go: the rename fails
    (target / "inside").write_text("kept")
    with pytest.raises(OSError):
        write_atomic(target, b"new")
    assert (target / "inside").read_text() == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]
