"""Fixtures of the soak and the kill tests: the sandbox behind its recording proxies, and the GUI
tests' isolation (an in-memory keychain, QSettings of the test's own)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.gui.conftest import (  # noqa: F401  (fixtures)
    background,
    cache,
    connected,
    isolated_settings,
    memory_keyring,
    session,
)
from tests.soak.service import Service, start_service


@pytest.fixture
def service_factory(tmp_path: Path) -> Iterator[Callable[..., Service]]:
    """Start sandboxes behind their proxies (``start(*sandbox_args, keep_api=...)``); all stop after the test."""
    started: list[Service] = []

    def start(*args: str, keep_api: bool = True) -> Service:
        service = start_service(tmp_path / f"service-{len(started)}", *args, keep_api=keep_api)
        started.append(service)
        return service

    yield start
    for service in started:
        service.stop()
