"""The embedded sandbox as a child process of the app (``castdeck --sandbox``).

It runs ``castdeck sandbox-service`` on a free loopback port with its data in the user's data
folder and ``--exit-with-parent``, so it stops when the app stops, even if the app is killed. A
child that ends on its own is reported through ``crashed`` and can be started again.

From source that is ``python -m castdeck sandbox-service``; in the installed app (a PyInstaller
bundle, ``sys.frozen``) there is no ``python -m``, and the app's own executable is started again
with ``sandbox-service`` as its first argument.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, Signal

__all__ = ["SANDBOX_KEY", "SandboxError", "SandboxProcess", "sandbox_command"]

SANDBOX_KEY = "sk_sandbox_demo"
START_TIMEOUT = 30.0


class SandboxError(RuntimeError):
    pass


def sandbox_command() -> tuple[str, list[str]]:
    """The program and the first arguments that start the sandbox service from this app."""
    if getattr(sys, "frozen", False):
        return sys.executable, ["sandbox-service"]
    return sys.executable, ["-m", "castdeck", "sandbox-service"]


class SandboxProcess(QObject):
    started = Signal(str)  # base URL
    crashed = Signal(str)  # what happened, in words

    def __init__(self, data_dir: Path, *, speed: float = 1.0, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.data_dir = data_dir
        self.speed = speed
        self.base_url: str | None = None
        self._process: QProcess | None = None
        self._stopping = False
        self._buffer = b""
        self._ready: asyncio.Future[str] | None = None

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.state() != QProcess.ProcessState.NotRunning

    @property
    def pid(self) -> int | None:
        """The child's process id while it runs (diagnostics and tests)."""
        return self._process.processId() if self._process is not None and self.running else None

    @property
    def log_path(self) -> Path:
        return self.data_dir / "sandbox.log"

    async def start(self) -> str:
        """Start the child and return its base URL once it listens."""
        if self.running:
            assert self.base_url is not None
            return self.base_url
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._stopping = False
        self._buffer = b""
        self._ready = asyncio.get_running_loop().create_future()
        process = QProcess(self)
        program, command = sandbox_command()
        process.setProgram(program)
        process.setArguments(
            [
                *command,
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--data",
                str(self.data_dir),
                "--speed",
                str(self.speed),
                "--exit-with-parent",
            ]
        )
        process.setStandardErrorFile(str(self.log_path), QProcess.OpenModeFlag.Append)
        process.readyReadStandardOutput.connect(self._read_output)
        process.finished.connect(self._finished)
        process.errorOccurred.connect(self._error)
        self._process = process
        process.start()  # stdin stays open: when this process dies, the sandbox stops itself
        try:
            url = await asyncio.wait_for(asyncio.shield(self._ready), START_TIMEOUT)
        except TimeoutError:
            await self.stop()
            raise SandboxError(
                f"the sandbox did not start within {START_TIMEOUT:.0f} s; see {self.log_path}"
            ) from None
        self.base_url = url
        self.started.emit(url)
        return url

    def _read_output(self) -> None:
        if self._process is None:
            return
        self._buffer += bytes(self._process.readAllStandardOutput().data())
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            text = line.decode("utf-8", "replace").strip()
            if text.startswith("listening on ") and self._ready is not None and not self._ready.done():
                self._ready.set_result(text.removeprefix("listening on ").strip())

    def _error(self, error: QProcess.ProcessError) -> None:
        if (
            error == QProcess.ProcessError.FailedToStart
            and self._ready is not None
            and not self._ready.done()
        ):
            self._ready.set_exception(SandboxError(f"the sandbox could not be started ({sys.executable})"))

    def _finished(self, code: int, status: QProcess.ExitStatus) -> None:
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(
                SandboxError(f"the sandbox stopped while starting; see {self.log_path}")
            )
        if self._stopping:
            return
        how = "crashed" if status == QProcess.ExitStatus.CrashExit else f"stopped with exit code {code}"
        self.crashed.emit(f"The sandbox service {how}. Its log is {self.log_path}.")

    async def stop(self, timeout: float = 10.0) -> None:
        process = self._process
        if process is None:
            return
        self._stopping = True
        if process.state() != QProcess.ProcessState.NotRunning:
            done: asyncio.Future[None] = asyncio.get_running_loop().create_future()

            def finished(*_: object) -> None:
                if not done.done():
                    done.set_result(None)

            process.finished.connect(finished)
            process.terminate()
            try:
                await asyncio.wait_for(done, timeout)
            except TimeoutError:
                process.kill()
                process.waitForFinished(2000)
        self._process = None
        process.deleteLater()

    def kill_now(self) -> None:
        """Synchronous last resort at exit: the child must not outlive the app."""
        process = self._process
        if process is not None and process.state() != QProcess.ProcessState.NotRunning:
            self._stopping = True
            process.terminate()
            if not process.waitForFinished(3000):
                process.kill()
                process.waitForFinished(1000)
