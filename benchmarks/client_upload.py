"""Upload benchmark: a 100 MiB file to the sandbox's signed URL through ``Client.sources.upload``
against ``curl -T`` of the same file to a fresh slot, alternately, three runs each.

Run with ``uv run python benchmarks/client_upload.py``. Prints MiB/s for both, the ratio (target
>= 0.9) and the client process's memory growth during an upload (target < 32 MiB): the
``ru_maxrss`` high-water mark across the first upload, and the tracemalloc peak of one more.

The client's time is the whole ``upload()`` call (local checks, reservation, transfer, completion);
curl's is the transfer alone (its reservation is made before the clock starts), so the ratio is
conservative for the client. curl is run with ``Expect:`` emptied so it does not wait for a
``100 Continue`` before sending.
"""

from __future__ import annotations

import asyncio
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import httpx

from castdeck.api import Client
from castdeck.api.models.limits import MAX_UPLOAD_BYTES

KEY = "sk_sandbox_demo"
MiB = 1024 * 1024
RUNS = 3


def start_sandbox(data: Path) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "castdeck.sandbox", "--host", "127.0.0.1", "--port", "0",
               "--data", str(data), "--speed", "50", "--no-seed-media"]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert process.stdout is not None
    line = process.stdout.readline()
    if not line.startswith("listening on "):
        process.kill()
        raise SystemExit(f"the sandbox did not start: {line!r}")
    return process, line.removeprefix("listening on ").strip()


def write_file(path: Path, size: int) -> None:
    line = b"Keepers logged the tide, the wind and every ship that passed the light.\n"
    block = line * (MiB // len(line) + 1)
    with path.open("wb") as handle:
        left = size
        while left:
            piece = block[: min(MiB, left)]
            handle.write(piece)
            left -= len(piece)


def maxrss_mib() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return usage / (MiB if sys.platform == "darwin" else 1024)


async def client_upload(client: Client, path: Path) -> float:
    started = time.perf_counter()
    source = await client.sources.upload(path, title="benchmark")
    elapsed = time.perf_counter() - started
    assert source.status in ("processing", "completed"), source
    return elapsed


def curl_upload(curl: str, base_url: str, path: Path) -> float:
    size = path.stat().st_size
    with httpx.Client(base_url=base_url, headers={"Authorization": f"Bearer {KEY}"}) as api:
        body = {"file_name": path.name, "mime_type": "text/plain", "size_bytes": size, "title": "curl"}
        response = api.post("/v1/sources/uploads", json=body)
        response.raise_for_status()
        slot = response.json()["data"]["upload"]
        source_id = response.json()["data"]["source"]["id"]
        headers = [arg for k, v in slot["headers"].items() for arg in ("-H", f"{k}: {v}")]
        command = [curl, "-sS", "-f", "-o", "/dev/null", "-X", slot["method"], "-T", str(path),
                   *headers, "-H", "Expect:", slot["url"]]  # fmt: skip
        started = time.perf_counter()
        subprocess.run(command, check=True)
        elapsed = time.perf_counter() - started
        api.post(f"/v1/sources/{source_id}/complete-upload").raise_for_status()
    return elapsed


async def main() -> None:
    curl = shutil.which("curl")
    if curl is None:
        raise SystemExit("curl is missing: apt-get install -y curl")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        path = folder / "archive.txt"
        write_file(path, MAX_UPLOAD_BYTES)
        size_mib = MAX_UPLOAD_BYTES / MiB
        process, base_url = start_sandbox(folder / "sandbox")
        try:
            async with Client(base_url, KEY) as client:
                await client.account.get()  # connection and imports warm
                rss_before = maxrss_mib()
                client_times: list[float] = [await client_upload(client, path)]
                rss_growth = maxrss_mib() - rss_before
                curl_times: list[float] = [curl_upload(curl, base_url, path)]
                for _ in range(RUNS - 1):
                    client_times.append(await client_upload(client, path))
                    curl_times.append(curl_upload(curl, base_url, path))
                tracemalloc.start()
                await client_upload(client, path)
                _, traced_peak = tracemalloc.get_traced_memory()
                tracemalloc.stop()
        finally:
            process.terminate()
            process.wait(timeout=15)

    def rate(seconds: float) -> float:
        return size_mib / seconds

    print(f"file: {MAX_UPLOAD_BYTES:,} bytes ({size_mib:.0f} MiB), {RUNS} alternating runs each")
    print("client runs (MiB/s): " + ", ".join(f"{rate(t):.0f}" for t in client_times))
    print("curl runs   (MiB/s): " + ", ".join(f"{rate(t):.0f}" for t in curl_times))
    client_rate = rate(statistics.median(client_times))
    curl_rate = rate(statistics.median(curl_times))
    ratio = client_rate / curl_rate
    print(f"median: client {client_rate:.0f} MiB/s, curl {curl_rate:.0f} MiB/s")
    print(f"throughput ratio client/curl: {ratio:.2f} (target >= 0.90) {'OK' if ratio >= 0.9 else 'MISSED'}")
    print(f"memory growth during an upload: ru_maxrss +{rss_growth:.1f} MiB, tracemalloc peak "
          f"{traced_peak / MiB:.1f} MiB (target < 32 MiB) "
          f"{'OK' if max(rss_growth, traced_peak / MiB) < 32 else 'MISSED'}")  # fmt: skip


if __name__ == "__main__":
    asyncio.run(main())
