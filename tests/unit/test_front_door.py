"""README.md is the front door: its quick start is two commands, and CI runs exactly its test
command (``.ci/run`` reads it from the README), so CI walks the path a newcomer walks."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def quick_start() -> list[str]:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```sh\n(.*?)```", section, flags=re.DOTALL)
    assert block is not None, section
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_the_quick_start_is_two_commands() -> None:
    assert quick_start() == ["uv run castdeck --sandbox", "uv run pytest"]


def test_ci_runs_exactly_the_readmes_test_command() -> None:
    done = subprocess.run(
        ["bash", str(ROOT / ".ci" / "run"), "--print-command"], cwd=ROOT, capture_output=True, text=True,
        timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [quick_start()[1]]
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "apt-get" not in script and "dnf" not in script  # the machine's set-up is the test command's own
    assert script.rstrip().endswith("exec $command")
