"""The client with a network thread (the app's session uses one): the service's requests are sent
from that thread's loop, their answers come back to the caller's loop, cancelling the caller cancels
the request there, and closing the client ends the thread."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest

from castdeck.api import APIConnectionError, Client
from tests.conftest import DEMO_KEY, RunningSandbox


class ThreadRecorder(httpx.AsyncBaseTransport):
    """A real transport that notes which thread sent each request; requests to ``hold`` wait
    until cancelled (a server that never answers)."""

    def __init__(self, hold: str | None = None) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.hold = hold
        self.threads: list[str] = []
        self.held = threading.Event()
        self.cancelled = threading.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.threads.append(threading.current_thread().name)
        if request.url.path == self.hold:
            self.held.set()
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                self.cancelled.set()
                raise
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.mark.asyncio
async def test_requests_go_out_from_the_network_thread_and_answer_on_the_callers_loop(
    sandbox: RunningSandbox,
) -> None:
    recorder = ThreadRecorder()
    client = Client(sandbox.base_url, DEMO_KEY, http_transport=recorder, network_thread=True)
    try:
        account = await client.account.get()
        voices = await client.voices.list(limit=5).to_list()
        together = await asyncio.gather(*(client.account.get() for _ in range(8)))
    finally:
        await client.aclose()
    assert account.plan == "creator"
    assert len(voices) == 24
    assert [a.plan for a in together] == ["creator"] * 8
    assert len(recorder.threads) >= 1 + 5 + 8
    assert set(recorder.threads) == {"castdeck-network"}
    assert threading.current_thread() is threading.main_thread()


@pytest.mark.asyncio
async def test_without_a_network_thread_requests_go_out_from_the_callers_thread(
    sandbox: RunningSandbox,
) -> None:
    recorder = ThreadRecorder()
    async with Client(sandbox.base_url, DEMO_KEY, http_transport=recorder) as client:
        await client.account.get()
    assert recorder.threads == [threading.main_thread().name]


@pytest.mark.asyncio
async def test_cancelling_the_caller_cancels_the_request_on_the_network_thread(
    sandbox: RunningSandbox,
) -> None:
    recorder = ThreadRecorder(hold="/v1/account")
    client = Client(sandbox.base_url, DEMO_KEY, http_transport=recorder, network_thread=True)
    try:
        waiting = asyncio.ensure_future(client.account.get())
        assert await asyncio.to_thread(recorder.held.wait, 30)
        waiting.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiting
        assert await asyncio.to_thread(recorder.cancelled.wait, 30)
        voices = await client.voices.list(limit=5).to_list()  # the client goes on working
        assert len(voices) == 24
    finally:
        await client.aclose()


@pytest.mark.asyncio
async def test_closing_the_client_ends_the_thread_and_later_requests_fail_as_a_lost_connection(
    sandbox: RunningSandbox,
) -> None:
    recorder = ThreadRecorder(hold="/v1/account")
    client = Client(sandbox.base_url, DEMO_KEY, http_transport=recorder, network_thread=True)
    in_flight = asyncio.ensure_future(client.account.get())
    assert await asyncio.to_thread(recorder.held.wait, 30)
    network = client.transport.network
    assert network is not None and network.thread is not None
    thread = network.thread
    await client.aclose()  # with a request still in flight: it is cancelled, the thread ends
    assert not thread.is_alive()
    assert recorder.cancelled.is_set()
    with pytest.raises(APIConnectionError, match="closed during the request") as lost:
        await in_flight
    assert lost.value.sent  # it may have reached the service: an unkeyed write is not repeated
    with pytest.raises(APIConnectionError, match="closed before the request was sent"):
        await client.account.get()
