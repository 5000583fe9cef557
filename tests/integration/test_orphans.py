"""A sandbox whose launcher dies stops by itself, and takes its speech workers with it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx
import pytest

from tests.tls import SHARED_TLS

LAUNCHER = textwrap.dedent(
    """
    import subprocess, sys, time
    child = subprocess.Popen(
        [sys.executable, "-m", "castdeck.sandbox", "--port", "0", "--data", sys.argv[1], "--speed", "50",
         "--exit-with-parent"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )
    print(child.pid, child.stdout.readline().strip(), flush=True)
    time.sleep(600)
    """
)


def _children(pid: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").glob("*"):
        text = (task / "children").read_text() if (task / "children").exists() else ""
        found.update(int(p) for p in text.split())
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process tree from /proc")
def test_sandbox_and_workers_exit_when_the_launcher_is_killed(tmp_path: Path) -> None:
    launcher = subprocess.Popen(
        [sys.executable, "-c", LAUNCHER, str(tmp_path / "data")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert launcher.stdout is not None
        pid_text, _, url = launcher.stdout.readline().strip().partition(" listening on ")
        sandbox_pid = int(pid_text)
        assert httpx.get(f"{url}/health", timeout=10, verify=SHARED_TLS).status_code == 200
        # Seeding starts the speech worker process; wait until it exists.
        deadline = time.monotonic() + 30
        workers: set[int] = set()
        while time.monotonic() < deadline and not workers:
            workers = _children(sandbox_pid)
            time.sleep(0.05)
        assert workers, "the sandbox started no worker process"
        os.kill(launcher.pid, signal.SIGKILL)
        launcher.wait(timeout=10)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and (_alive(sandbox_pid) or any(_alive(w) for w in workers)):
            time.sleep(0.05)
        assert not _alive(sandbox_pid), "the sandbox outlived its launcher"
        assert not any(_alive(w) for w in workers), "a speech worker outlived the sandbox"
    finally:
        if launcher.poll() is None:
            launcher.kill()
        launcher.communicate(timeout=10)
