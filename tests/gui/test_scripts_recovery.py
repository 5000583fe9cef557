"""Nothing is lost but the last 2 seconds: the real app (offline, no service at all) is killed with
SIGKILL while a script is being typed, then started again, and offers what was being written."""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROMISE = 2.0  # seconds of typing a kill may lose at most
TEXT = (
    "# Night shift\n[Alex]\nThe harbour is quiet at three in the morning, and the only sound is the water "
    "slapping against the hulls of the boats that wait for the tide.\n[Priya]\nWhich is when the numbers "
    "get interesting, because the fuel logs say the opposite of what the skippers remember. " * 3
)


def start(mode: str, data: Path, *extra: str) -> tuple[subprocess.Popen[str], queue.Queue[str]]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONUNBUFFERED": "1"}
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.gui.scripts_typist", mode, str(data), *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    lines: queue.Queue[str] = queue.Queue()

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.put(line.rstrip("\n"))

    threading.Thread(target=read, daemon=True).start()
    return process, lines


def next_line(lines: queue.Queue[str], process: subprocess.Popen[str], timeout: float = 90.0) -> str:
    try:
        return lines.get(timeout=timeout)
    except queue.Empty:
        process.kill()
        _, err = process.communicate(timeout=10)
        raise AssertionError(f"the app said nothing for {timeout} s; stderr:\n{err}") from None


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX; Windows has TerminateProcess")
def test_a_killed_app_loses_at_most_the_last_two_seconds_of_typing(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    source = tmp_path / "text.txt"
    source.write_text(TEXT, encoding="utf-8")
    process, lines = start("type", data, str(source))
    typed: list[tuple[int, float]] = []
    saves = 0
    try:
        assert next_line(lines, process).startswith("ready ")
        # type until several autosaves have happened and at least 3 s of typing are on record
        while True:
            line = next_line(lines, process)
            kind, *values = line.split()
            if kind == "typed":
                typed.append((int(values[0]), float(values[1])))
            elif kind == "saved":
                saves += 1
            elif kind == "done":
                raise AssertionError("the whole text was typed before the kill; make it longer")
            if saves >= 3 and typed and typed[-1][1] - typed[0][1] >= 3.0 and kind == "typed":
                break
    finally:
        killed_at = time.monotonic()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert process.returncode == -signal.SIGKILL
    must_have = max((count for count, at in typed if at <= killed_at - PROMISE), default=0)
    assert must_have > 0

    again, output = start("recover", data)
    try:
        report = json.loads(next_line(output, again))
        assert again.wait(timeout=60) == 0
    finally:
        if again.poll() is None:
            again.kill()
    recovered: str = report["text"]
    assert TEXT.startswith(recovered)  # what was typed, in order, nothing else
    assert len(recovered) >= must_have, (len(recovered), must_have, typed[-1][0])
    assert "ended without closing" in report["window_offered"]
    assert "ended without closing" in report["pane_banner"] and "Night shift" in report["pane_banner"]
    assert report["window_banner_after"] == ""  # the workspace took over the offer
