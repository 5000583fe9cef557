"""``castdeck``: the desktop studio's entry point.

    castdeck --sandbox [--data DIR] [--speed F]   start on the embedded sandbox service

The desktop window arrives with the app issue; until then ``--sandbox`` runs the embedded
sandbox as a child process (exactly as the app will) and keeps it running until Ctrl+C.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
from pathlib import Path

DEMO_KEY = "sk_sandbox_demo"


def user_data_dir() -> Path:
    """Where Castdeck keeps its data on this platform."""
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        return base / "Castdeck"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "Castdeck"
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "castdeck"


def start_sandbox(data_dir: Path, speed: float) -> tuple[subprocess.Popen[str], str]:
    """Start ``castdeck-sandbox`` on a free loopback port; returns the process and its base URL."""
    data_dir.mkdir(parents=True, exist_ok=True)
    log = (data_dir / "sandbox.log").open("a", encoding="utf-8")
    command = [sys.executable, "-m", "castdeck.sandbox", "--host", "127.0.0.1", "--port", "0",
               "--data", str(data_dir), "--speed", str(speed), "--exit-with-parent"]  # fmt: skip
    # The sandbox watches its standard input: if this process dies, the sandbox stops too.
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)  # noqa: S603 - our own module
    log.close()
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    if not line.startswith("listening on "):
        process.kill()
        raise RuntimeError(f"the sandbox did not start; see {data_dir / 'sandbox.log'}")
    return process, line.removeprefix("listening on ")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="castdeck", description="Castdeck desktop studio")
    parser.add_argument("--sandbox", action="store_true", help="run on the embedded sandbox service")
    parser.add_argument("--data", type=Path, default=None, help="sandbox data folder")
    parser.add_argument("--speed", type=float, default=1.0, help="sandbox work-time scale (default 1)")
    args = parser.parse_args(argv)
    if not args.sandbox:
        print(
            "The Castdeck desktop window is not built yet. Start the embedded sandbox with: castdeck --sandbox"
        )
        return 1
    data_dir = args.data or user_data_dir() / "sandbox"
    try:
        process, base_url = start_sandbox(data_dir, args.speed)
    except RuntimeError as error:
        print(f"castdeck: {error}", file=sys.stderr)
        return 1
    print(f"Castdeck sandbox running at {base_url}")
    print(f"  API key: {DEMO_KEY}   data: {data_dir}")
    print(f"  try: curl -H 'Authorization: Bearer {DEMO_KEY}' {base_url}/v1/account")
    print("The desktop window is not built yet; press Ctrl+C to stop the sandbox.", flush=True)
    try:
        return process.wait()
    except KeyboardInterrupt:
        if sys.platform == "win32":
            process.terminate()
        else:
            process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
        return 0
    finally:
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                stream.close()


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    run()
