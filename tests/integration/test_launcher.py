"""``castdeck --sandbox`` opens the app on the embedded sandbox (a child process) and stops both."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import httpx

from tests.conftest import wait_for
from tests.tls import SHARED_TLS


def test_castdeck_sandbox_opens_the_app_and_stops_the_sandbox_with_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    process = subprocess.Popen(
        [sys.executable, "-m", "castdeck", "--sandbox", "--data", str(data), "--speed", "50"],
        env={
            **os.environ,
            "QT_QPA_PLATFORM": "offscreen",
            "XDG_DATA_HOME": str(tmp_path / "xdg"),
            "XDG_CONFIG_HOME": str(tmp_path / "config"),
        },
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
            f"{base_url}/v1/account",
            headers={"Authorization": "Bearer sk_sandbox_demo"},
            timeout=10,
            verify=SHARED_TLS,
        )
        assert account.status_code == 200
        assert account.json()["data"]["plan"] == "creator"
        assert (data / "sandbox.sqlite3").exists()
        wait_for(lambda: (tmp_path / "xdg" / "castdeck" / "cache.sqlite3").exists(), timeout=20)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
        try:
            httpx.get(f"{base_url}/health", timeout=2, verify=SHARED_TLS)
        except httpx.TransportError:
            pass
        else:
            raise AssertionError("the sandbox kept running after castdeck stopped")
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=10)
