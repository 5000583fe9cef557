"""Heavy socket traffic on the qasync loop must not corrupt the interpreter.

PySide6 6.12.0 on Python 3.11 mis-counts references to True/False under qasync's socket
notifiers; after some tens of MiB the interpreter aborts at exit ("bool_dealloc"), which would
crash the app on quit and fail the test run. This runs the same traffic in a child process and
requires a clean exit.
"""

from __future__ import annotations

import http.server
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

SCRIPT = textwrap.dedent(
    """
    import asyncio, sys
    import httpx, qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication([])

    async def main(url: str) -> int:
        total = 0
        async with httpx.AsyncClient() as client:
            for _ in range(3):
                async with client.stream("GET", url) as response:
                    async for chunk in response.aiter_raw():
                        total += len(chunk)
        return total

    with asyncio.Runner(loop_factory=lambda: qasync.QEventLoop(app)) as runner:
        print(runner.run(main(sys.argv[1])))
    """
)


def test_interpreter_exits_cleanly_after_heavy_traffic_on_qasync(tmp_path: Path) -> None:
    blob = tmp_path / "blob.bin"
    with blob.open("wb") as handle:
        for _ in range(48):
            handle.write(bytes(range(256)) * 4096)  # 1 MiB

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: Quiet(*a, directory=str(tmp_path)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/blob.bin"
        result = subprocess.run(
            [sys.executable, "-c", SCRIPT, url],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    finally:
        server.shutdown()
        server.server_close()
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == str(3 * 48 * 1024 * 1024)
    assert "Fatal Python error" not in result.stderr
