"""``castdeck --sandbox`` starts the embedded sandbox as a child process and stops it again."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx


def test_castdeck_without_sandbox_says_what_to_run() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "castdeck"], capture_output=True, text=True, timeout=30, check=False
    )
    assert result.returncode == 1
    assert "castdeck --sandbox" in result.stdout


def test_castdeck_sandbox_runs_the_sandbox_until_interrupted(tmp_path: Path) -> None:
    data = tmp_path / "data"
    process = subprocess.Popen(
        [sys.executable, "-m", "castdeck", "--sandbox", "--data", str(data), "--speed", "50"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(process.stdout.readline()), daemon=True)  # type: ignore[union-attr]
        reader.start()
        reader.join(30)
        assert lines and lines[0].startswith("Castdeck sandbox running at http://127.0.0.1:"), lines
        base_url = lines[0].split(" at ", 1)[1].strip()
        account = httpx.get(
            f"{base_url}/v1/account", headers={"Authorization": "Bearer sk_sandbox_demo"}, timeout=10
        )
        assert account.status_code == 200
        assert account.json()["data"]["plan"] == "creator"
        assert (data / "sandbox.sqlite3").exists()
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
        try:
            httpx.get(f"{base_url}/health", timeout=2)
        except httpx.TransportError:
            pass
        else:
            raise AssertionError("the sandbox kept running after castdeck stopped")
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=10)
