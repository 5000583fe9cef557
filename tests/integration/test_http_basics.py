"""The sandbox over real loopback HTTP: CLI, discovery, errors, auth, rate limits, chaos,
restarts, organization isolation and pagination."""

from __future__ import annotations

import json
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

from tests.conftest import (
    DEMO_KEY,
    FREE_KEY,
    OTHER_KEY,
    RunningSandbox,
    assert_problem,
    field_names,
    start_sandbox,
    wait_for,
)
from tests.tls import SHARED_TLS

BACKSTORY = "A patient explainer who has spent years talking about the sea."
DROPPED = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError, httpx.ConnectError)


# --- helpers -------------------------------------------------------------------------------------------------


def make_host(client: httpx.Client, name: str | None = None) -> dict[str, Any]:
    response = client.post(
        "/v1/hosts",
        json={"name": name or f"Host {uuid.uuid4().hex[:6]}", "backstory": BACKSTORY, "voice_id": 1001},
    )
    assert response.status_code == 201, response.text
    return dict(response.json()["data"])


def make_podcast(client: httpx.Client, host_ids: list[str], title: str | None = None) -> dict[str, Any]:
    response = client.post(
        "/v1/podcasts", json={"title": title or f"Show {uuid.uuid4().hex[:6]}", "host_ids": host_ids}
    )
    assert response.status_code == 201, response.text
    return dict(response.json()["data"])


def make_source(client: httpx.Client, title: str = "Notes") -> dict[str, Any]:
    response = client.post(
        "/v1/sources", json={"type": "text", "title": title, "content": "Tides rise and fall twice a day."}
    )
    assert response.status_code in (200, 201), response.text
    return dict(response.json()["data"])


def all_pages(client: httpx.Client, path: str, limit: int = 100) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    url: str | None = f"{path}?limit={limit}"
    while url:
        response = client.get(url)
        assert response.status_code == 200, response.text
        items.extend(response.json()["data"])
        url = response.links.get("next", {}).get("url")
    return items


def retrying(call: Any, attempts: int = 40) -> httpx.Response:
    """Repeat a safe request through chaos until it answers 2xx."""
    last: Any = None
    for _ in range(attempts):
        try:
            last = call()
        except DROPPED as exc:
            last = exc
            continue
        if last.status_code < 300:
            return last  # type: ignore[no-any-return]
    raise AssertionError(f"no success through chaos: {last!r}")


def run_cli(*args: str, timeout: float = 20) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "castdeck.sandbox", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


# --- 1. CLI ----------------------------------------------------------------------------------------------------


def test_cli_starts_on_empty_folder_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    """(How fast it starts is benchmarks' business: timing assertions stay out of tests.)"""
    data_dir = tmp_path / "fresh"
    running = start_sandbox(data_dir, "--no-seed-media")
    try:
        assert urlparse(running.base_url).scheme == "http"
        assert urlparse(running.base_url).port
        assert httpx.get(f"{running.base_url}/health", timeout=10, verify=SHARED_TLS).json() == {
            "status": "ok"
        }
        assert (data_dir / "sandbox.sqlite3").exists()
    finally:
        running.process.send_signal(signal.SIGTERM)
        code = running.process.wait(timeout=15)
        running.stop()
    assert code in (0, -signal.SIGTERM, 128 + signal.SIGTERM), code
    assert "Traceback" not in running.log, running.log


@pytest.mark.parametrize(
    ("args", "mention"),
    [
        (["--chaos", "2"], "--chaos"),
        (["--chaos", "-0.1"], "--chaos"),
        (["--speed", "0"], "--speed"),
        (["--speed", "fast"], "--speed"),
        (["--speed", "nan"], "--speed"),
        (["--port", "abc"], "--port"),
        (["--port", "70000"], "--port"),
        (["--rate-limit", "-1"], "--rate-limit"),
        (["--chaos-seed", "x"], "--chaos-seed"),
        (["--accept-hold", "-1"], "--accept-hold"),
        (["--accept-hold", "inf"], "--accept-hold"),
        (["--accept-hold-stage", "dispatched"], "--accept-hold-stage"),
        ([], "--data"),
    ],
)
def test_cli_rejects_bad_arguments(tmp_path: Path, args: list[str], mention: str) -> None:
    data = [] if mention == "--data" else ["--data", str(tmp_path / "d")]
    result = run_cli("--port", "0", *data, *args)
    assert result.returncode != 0
    assert not result.stdout.startswith("listening on")
    assert mention in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_cli_reports_unusable_data_folder_and_busy_port(tmp_path: Path) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    result = run_cli("--port", "0", "--data", str(not_a_folder))
    assert result.returncode != 0
    assert "--data" in result.stderr and "Traceback" not in result.stderr, result.stderr

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        result = run_cli("--host", "127.0.0.1", "--port", str(port), "--data", str(tmp_path / "d"))
    assert result.returncode != 0
    assert not result.stdout.startswith("listening on")
    assert str(port) in result.stderr and "Traceback" not in result.stderr, result.stderr


# --- 2. discovery ----------------------------------------------------------------------------------------------


def test_index_lists_every_field_with_absolute_urls(sandbox: RunningSandbox) -> None:
    client = sandbox.client(None)
    response = client.get("/")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    index = response.json()
    for key in ("name", "description", "version"):
        assert isinstance(index[key], str) and index[key], key
    base = urlparse(sandbox.base_url)

    def absolute(url: str) -> None:
        parsed = urlparse(url)
        assert parsed.scheme in ("http", "https") and parsed.netloc, url

    for key in ("openapi_url", "documentation_url", "developers_url", "llms_txt_url"):
        absolute(index[key])
    assert urlparse(index["openapi_url"]).netloc == base.netloc
    auth = index["authentication"]
    assert auth["type"] == "bearer"
    assert auth["header"] == "Authorization"
    absolute(auth["documentation_url"])
    absolute(auth["keys_url"])
    assert index["errors"]["format"] == "application/problem+json"
    absolute(index["errors"]["specification"])
    mcp = index["mcp"]
    assert mcp["transport"] == "streamable-http"
    for key in ("url", "documentation_url", "server_card_url"):
        absolute(mcp[key])

    document = httpx.get(index["openapi_url"], timeout=10, verify=SHARED_TLS)
    assert document.status_code == 200
    assert document.json()["openapi"].startswith("3.1")
    llms = httpx.get(index["llms_txt_url"], timeout=10, verify=SHARED_TLS)
    assert llms.status_code == 200
    assert "/v1/episodes/generate" in llms.text
    # The documentation links land on sections of the served docs page.
    for url in (index["documentation_url"], index["developers_url"], auth["documentation_url"], auth["keys_url"],
                mcp["documentation_url"]):  # fmt: skip
        page = httpx.get(url, timeout=10, verify=SHARED_TLS)
        assert page.status_code == 200, url
        fragment = urlparse(url).fragment
        assert not fragment or f"id='{fragment}'" in page.text, url
    assert "sk_sandbox_demo" in httpx.get(auth["keys_url"], timeout=10, verify=SHARED_TLS).text
    # There is no MCP server, and the MCP addresses say so as problems rather than pretending.
    for url in (mcp["url"], mcp["server_card_url"]):
        answer = httpx.get(url, timeout=10, verify=SHARED_TLS)
        assert answer.status_code == 404
        assert "no MCP server" in answer.json()["detail"]


def test_health_and_llms_need_no_key(sandbox: RunningSandbox) -> None:
    client = sandbox.client(None)
    health = client.get("/health")
    assert health.status_code == 200
    assert health.json() == {"status": "ok"}
    llms = client.get("/llms.txt")
    assert llms.status_code == 200
    assert llms.headers["content-type"].startswith("text/plain")
    assert f"{sandbox.base_url}/openapi.json" in llms.text
    # A key that is wrong does not matter on these paths either.
    assert sandbox.client("sk_nonsense").get("/health").status_code == 200
    assert sandbox.client("sk_nonsense").get("/").status_code == 200


# --- 3. errors ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/nope", "/v1/nope", "/v1/podcasts/x/y/z", "/v2/account", "/v1/account/"])
def test_unknown_route_is_404_problem(api: httpx.Client, path: str) -> None:
    problem = assert_problem(api.get(path), 404, "not_found")
    assert path in problem["detail"]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/health", {"GET"}),
        ("POST", "/", {"GET"}),
        ("PUT", "/v1/account", {"GET"}),
        ("DELETE", "/v1/voices", {"GET"}),
        ("PUT", "/v1/podcasts", {"GET", "POST"}),
        ("POST", f"/v1/hosts/{'h' * 8}", {"GET", "PATCH", "DELETE"}),
        ("PUT", "/v1/episodes/0b8f3c1e-3d4a-4c55-9a8e-2f61d7c0a9b4", {"GET", "PATCH", "DELETE"}),
        # A fixed path is not a parameter's value: "generate" is no episode id, "uploads" no source id.
        ("GET", "/v1/episodes/generate", {"POST"}),
        ("PUT", "/v1/episodes/generate", {"POST"}),
        ("DELETE", "/v1/episodes/import", {"POST"}),
        ("GET", "/v1/sources/uploads", {"POST"}),
        ("DELETE", "/v1/videos/options", {"GET"}),
    ],
)
def test_wrong_method_is_405_with_allow(api: httpx.Client, method: str, path: str, allowed: set[str]) -> None:
    response = api.request(method, path)
    problem = assert_problem(response, 405, "method_not_allowed")
    allow = {m.strip() for m in response.headers["allow"].split(",")}
    # Exactly the methods of the routes that can take this path (HEAD comes with GET).
    assert allow - {"HEAD"} == allowed, allow
    assert ("HEAD" in allow) == ("GET" in allowed), allow
    assert method in problem["detail"]


def test_a_path_no_route_takes_by_its_ids_names_the_methods_of_its_shape(api: httpx.Client) -> None:
    """ "xyz" is no episode id: the methods listed are those of /v1/episodes/{episode_id}, which say 400."""
    response = api.put("/v1/episodes/xyz")
    assert_problem(response, 405, "method_not_allowed")
    assert {m.strip() for m in response.headers["allow"].split(",")} == {"GET", "HEAD", "PATCH", "DELETE"}
    assert_problem(api.get("/v1/episodes/xyz"), 400)


@pytest.mark.parametrize("method", ["FOO", "BREW", "X-DELETE"])
def test_an_unknown_method_gets_a_problem_with_a_request_id(api: httpx.Client, method: str) -> None:
    response = api.request(method, "/v1/episodes")
    problem = assert_problem(response, 400, "bad_request")
    assert method in problem["detail"]
    assert problem["request_id"].startswith("req_")


@pytest.mark.parametrize(
    ("content_type", "content"),
    [
        ("text/plain", b'{"title": "x", "host_ids": ["a"]}'),
        ("application/x-www-form-urlencoded", b"title=x&host_ids=a"),
        (
            "multipart/form-data; boundary=zz",
            b'--zz\r\nContent-Disposition: form-data; name="t"\r\n\r\nx\r\n--zz--',
        ),
    ],
)
def test_non_json_bodies_are_415(api: httpx.Client, content_type: str, content: bytes) -> None:
    before = len(all_pages(api, "/v1/podcasts"))
    response = api.post("/v1/podcasts", content=content, headers={"Content-Type": content_type})
    problem = assert_problem(response, 415, "unsupported_media_type")
    assert "application/json" in problem["detail"]
    assert len(all_pages(api, "/v1/podcasts")) == before


def test_malformed_json_non_object_and_oversized_bodies_are_400(api: httpx.Client) -> None:
    json_header = {"Content-Type": "application/json"}
    malformed = api.post("/v1/hosts", content=b'{"name": "x",', headers=json_header)
    assert assert_problem(malformed, 400)["type"] in ("bad_request", "validation_error")

    for body in (b"[1, 2]", b'"text"', b"42", b"null"):
        problem = assert_problem(
            api.post("/v1/hosts", content=body, headers=json_header), 400, "validation_error"
        )
        assert problem["errors"], problem
        assert problem["recovery"]["action"] == "correct_input"

    # Pathological but well-formed JSON is refused as such, never a 500.
    for body in (b"[" * 100_000 + b"]" * 100_000, b'{"a":' * 50_000 + b"1" + b"}" * 50_000, b"9" * 5000):
        assert_problem(api.post("/v1/hosts", content=body, headers=json_header), 400, "bad_request")
    assert_problem(
        api.post("/v1/hosts", content=b'{"name": "\xff"}', headers=json_header), 400, "bad_request"
    )

    # Valid JSON just over 2 MiB.
    big = b'{"name": "x", "backstory": "' + b"a" * (2 * 1024 * 1024) + b'", "voice_id": 1001}'
    assert len(big) > 2 * 1024 * 1024
    problem = assert_problem(api.post("/v1/hosts", content=big, headers=json_header), 400)
    assert "larger than" in problem["detail"], problem
    # Also when streamed without a Content-Length.
    chunks = iter([b'{"name": "', b"a" * (3 * 1024 * 1024), b'"}'])
    assert_problem(api.post("/v1/hosts", content=chunks, headers=json_header), 400)
    # The connection still answers afterwards.
    assert api.get("/v1/account").status_code == 200


@pytest.mark.parametrize(
    "authorization",
    [
        None,
        "Bearer sk_sandbox_nope",
        "Bearer",
        "Bearer: sk_sandbox_demo",
        "Token sk_sandbox_demo",
        "Basic c2s6eA==",
        "garbage",
        "sk_sandbox_demo",
    ],
)
def test_missing_or_invalid_key_is_401_with_challenge(
    sandbox: RunningSandbox, authorization: str | None
) -> None:
    headers = {"Authorization": authorization} if authorization is not None else {}
    response = httpx.get(f"{sandbox.base_url}/v1/account", headers=headers, timeout=10, verify=SHARED_TLS)
    problem = assert_problem(response, 401, "unauthorized")
    assert response.headers["www-authenticate"].lower().startswith("bearer")
    assert "organization_id" not in response.text
    assert problem["recovery"]["action"] == "check_account"


def test_free_plan_is_403_on_every_v1_call(sandbox: RunningSandbox) -> None:
    free = sandbox.client(FREE_KEY)
    for method, path in [("GET", "/v1/account"), ("GET", "/v1/voices"), ("POST", "/v1/podcasts")]:
        response = free.request(method, path, json={} if method == "POST" else None)
        problem = assert_problem(response, 403, "forbidden")
        assert problem["recovery"]["action"] == "check_account"
    # Discovery stays open to it.
    assert free.get("/health").status_code == 200


def test_every_response_has_a_unique_request_id(api: httpx.Client, sandbox: RunningSandbox) -> None:
    anonymous = sandbox.client(None)
    responses = [
        api.get("/v1/account"),
        api.get("/v1/voices"),
        anonymous.get("/"),
        anonymous.get("/health"),
        anonymous.get("/openapi.json"),
        anonymous.get("/llms.txt"),
        api.get("/nowhere"),
        api.delete("/health"),
        anonymous.get("/v1/account"),
        api.post("/v1/hosts", json={}),
        api.get(f"/v1/episodes/{uuid.uuid4()}"),
        api.get("/v1/episodes/not-a-uuid"),
    ]
    ids = [r.headers.get("x-request-id") for r in responses]
    assert all(ids), ids
    assert len(set(ids)) == len(ids)
    for response in responses:
        if response.status_code >= 400:
            assert response.json()["request_id"] == response.headers["x-request-id"]
    # The same request twice gets two ids.
    assert api.get("/v1/account").headers["x-request-id"] != api.get("/v1/account").headers["x-request-id"]


# --- 4. rate limiting ------------------------------------------------------------------------------------------


def test_rate_limit_counts_down_and_429s_per_organization(sandbox_factory: Any) -> None:
    limited = sandbox_factory("--rate-limit", "5", "--no-seed-media")
    demo, other = limited.client(DEMO_KEY), limited.client(OTHER_KEY)
    remaining = []
    for _ in range(5):
        response = demo.get("/v1/account")
        assert response.status_code == 200, response.text
        assert response.headers["ratelimit-limit"] == "5"
        assert response.headers["ratelimit-policy"].startswith("5;w=60")
        assert int(response.headers["ratelimit-reset"]) >= 0
        remaining.append(int(response.headers["ratelimit-remaining"]))
    assert remaining == sorted(remaining, reverse=True) and remaining[0] == 4 and remaining[-1] == 0, (
        remaining
    )

    sixth = demo.get("/v1/voices")
    problem = assert_problem(sixth, 429, "rate_limited")
    assert int(sixth.headers["retry-after"]) >= 1
    assert sixth.headers["ratelimit-remaining"] == "0"
    assert int(sixth.headers["ratelimit-reset"]) >= 1
    assert problem["recovery"]["action"] == "retry"

    # The other organization has its own bucket.
    response = other.get("/v1/account")
    assert response.status_code == 200
    assert response.headers["ratelimit-remaining"] == "4"
    # Discovery paths are not counted or limited.
    assert limited.client(None).get("/health").status_code == 200
    assert_problem(demo.get("/v1/account"), 429, "rate_limited")


def test_no_rate_limit_headers_when_off(api: httpx.Client) -> None:
    for _ in range(3):
        response = api.get("/v1/account")
        assert response.status_code == 200
        assert not [h for h in response.headers if h.lower().startswith("ratelimit")], response.headers


# --- 5. chaos ----------------------------------------------------------------------------------------------------

CHAOS_PATHS = ["/v1/account", "/v1/voices?limit=3", "/v1/hosts", "/v1/podcasts", "/v1/episodes?limit=2"]


def chaos_outcomes(running: RunningSandbox) -> list[str]:
    client = running.client(DEMO_KEY)
    outcomes = []
    for i in range(40):
        started = time.monotonic()
        try:
            response = client.get(CHAOS_PATHS[i % len(CHAOS_PATHS)])
        except DROPPED:
            outcomes.append("dropped")
            continue
        elapsed = time.monotonic() - started
        if response.status_code == 200:
            outcomes.append("slow" if elapsed >= 0.95 else "ok")
            continue
        problem = assert_problem(response, response.status_code)
        assert response.status_code in (429, 500, 502, 503), response.text
        if response.status_code == 429:
            assert int(response.headers["retry-after"]) >= 1
            assert problem["type"] == "rate_limited"
        outcomes.append(str(response.status_code))
    return outcomes


def test_chaos_mixes_failures_and_repeats_with_the_same_seed(sandbox_factory: Any, tmp_path: Path) -> None:
    args = ("--chaos", "0.5", "--chaos-seed", "7", "--no-seed-media")
    sandboxes = [sandbox_factory(*args), sandbox_factory(*args, data_dir=tmp_path / "chaos-again")]
    # Both run side by side (each its own sequence) so the slow answers cost the time only once.
    with ThreadPoolExecutor(2) as pool:
        first, second = pool.map(chaos_outcomes, sandboxes)
    kinds = set(first)
    assert {"ok", "500", "502", "503", "429", "dropped", "slow"} <= kinds, first
    assert 8 <= first.count("ok") <= 32, first
    assert second == first


def test_chaos_never_corrupts_state(sandbox_factory: Any) -> None:
    running = sandbox_factory("--chaos", "0.5", "--chaos-seed", "16", "--no-seed-media")
    client = running.client(DEMO_KEY)
    host_id = make_host_through_chaos(client)
    tag = uuid.uuid4().hex[:8]
    created: dict[str, str] = {}
    dropped: list[str] = []
    refused: list[str] = []
    for i in range(30):
        title = f"Chaos {tag} {i:02d}"
        try:
            response = client.post("/v1/podcasts", json={"title": title, "host_ids": [host_id]})
        except DROPPED:
            dropped.append(title)
            continue
        if response.status_code == 201:
            created[title] = response.json()["data"]["id"]
        else:
            assert_problem(response, response.status_code)
            assert response.status_code in (429, 500, 502, 503)
            refused.append(title)
    assert created and dropped and refused

    # Read back without chaos: the same data folder under a calm sandbox.
    running.stop()
    calm = sandbox_factory("--no-seed-media", data_dir=running.data_dir).client(DEMO_KEY)
    listed = [p for p in all_pages(calm, "/v1/podcasts") if p["title"].startswith(f"Chaos {tag} ")]
    titles = [p["title"] for p in listed]
    assert len(titles) == len(set(titles)), "a write was stored twice"
    assert set(created) <= set(titles), "an acknowledged write is missing"
    assert not set(refused) & set(titles), "a refused write was stored"
    stored_dropped = set(titles) - set(created)
    assert stored_dropped <= set(dropped)
    assert stored_dropped, "no dropped-after-processing write in this seed"
    assert len(stored_dropped) < len(dropped), "no dropped-before-processing write in this seed"
    assert len(titles) == len(created) + len(stored_dropped)
    for podcast in listed:
        if podcast["title"] in created:
            assert podcast["id"] == created[podcast["title"]]
        # Whole records: every field there and readable on its own.
        assert podcast["host_ids"] == [host_id]
        assert podcast["visibility"] == "public"
        full = calm.get(f"/v1/podcasts/{podcast['id']}").json()["data"]
        assert full["title"] == podcast["title"]
        assert full["host_ids"] == [host_id]


def make_host_through_chaos(client: httpx.Client) -> str:
    # Hosts listed through chaos; the organization's seeded hosts exist even without seeded media.
    hosts = retrying(lambda: client.get("/v1/hosts")).json()["data"]
    assert hosts
    return str(hosts[0]["id"])


# --- 6. restart persistence --------------------------------------------------------------------------------


def test_state_survives_a_restart_and_seeding_runs_once(sandbox_factory: Any, tmp_path: Path) -> None:
    data_dir = tmp_path / "persist"
    first = sandbox_factory("--no-seed-media", "--speed", "50", data_dir=data_dir)
    client = first.client(DEMO_KEY)
    host = make_host(client, "Restart Host")
    podcast = make_podcast(client, [host["id"]], "Restart Show")
    source = make_source(client, "Restart Notes")
    voices = all_pages(client, "/v1/voices")
    hosts = all_pages(client, "/v1/hosts")
    podcasts = all_pages(client, "/v1/podcasts")
    other_hosts = all_pages(first.client(OTHER_KEY), "/v1/hosts")
    first.stop()

    second = sandbox_factory("--no-seed-media", "--speed", "50", data_dir=data_dir)
    client = second.client(DEMO_KEY)
    assert client.get(f"/v1/hosts/{host['id']}").json()["data"]["name"] == "Restart Host"
    again = client.get(f"/v1/podcasts/{podcast['id']}").json()["data"]
    assert again["title"] == "Restart Show"
    assert again["host_ids"] == [host["id"]]
    assert again["created_at"] == podcast["created_at"]
    assert client.get(f"/v1/sources/{source['id']}").json()["data"]["title"] == "Restart Notes"
    assert [v["id"] for v in all_pages(client, "/v1/voices")] == [v["id"] for v in voices]
    assert [h["id"] for h in all_pages(client, "/v1/hosts")] == [h["id"] for h in hosts]
    assert [p["id"] for p in all_pages(client, "/v1/podcasts")] == [p["id"] for p in podcasts]
    assert len(all_pages(second.client(OTHER_KEY), "/v1/hosts")) == len(other_hosts)
    assert len(voices) == 24


def test_generation_in_progress_resumes_after_restart(sandbox_factory: Any, tmp_path: Path) -> None:
    data_dir = tmp_path / "resume"
    first = sandbox_factory("--no-seed-media", "--speed", "5", data_dir=data_dir)
    client = first.client(DEMO_KEY)
    host = make_host(client)
    podcast = make_podcast(client, [host["id"]])
    response = client.post(
        "/v1/episodes/generate",
        json={
            "podcast_id": podcast["id"],
            "prompt": "A short talk about why tides happen twice a day.",
            "options": {"episode_length_minutes": 1},
        },
    )
    assert response.status_code == 202, response.text
    episode_id = response.json()["data"]["id"]
    first.advance(6 / 5)  # the script is written (6 s of simulated work at --speed 5): speech begins

    def speaking() -> dict[str, Any] | None:
        data: dict[str, Any] = client.get(f"/v1/episodes/{episode_id}").json()["data"]
        return data if data["generation"].get("phase") == "synthesizing_audio" else None

    running = wait_for(speaking, timeout=60)
    assert running["generation"]["state"] == "generating", running
    assert not running.get("audio_url")
    first.stop()
    # Stopped mid-generation: the stored episode is unfinished and its job is still queued.
    with closing(sqlite3.connect(data_dir / "sandbox.sqlite3")) as db:
        (stored,) = db.execute(
            "SELECT data FROM records WHERE kind = 'episode' AND id = ?", (episode_id,)
        ).fetchone()
        queued = db.execute("SELECT spec FROM jobs WHERE kind = 'episode'").fetchall()
    assert json.loads(stored)["generation"]["state"] == "generating"
    assert any(episode_id in spec for (spec,) in queued), queued

    second = sandbox_factory("--no-seed-media", "--speed", "50", data_dir=data_dir)
    client = second.client(DEMO_KEY)

    def finished() -> dict[str, Any] | None:
        data: dict[str, Any] = client.get(f"/v1/episodes/{episode_id}").json()["data"]
        return data if data["generation"]["state"] != "generating" else None

    episode = wait_for(finished, timeout=60)
    assert episode["generation"]["state"] == "completed", episode
    assert episode["status"] == "draft"
    assert episode["audio_url"]
    audio = httpx.get(episode["audio_url"], timeout=30, verify=SHARED_TLS)
    assert audio.status_code == 200 and len(audio.content) > 1000
    assert "Traceback" not in first.log


# --- 7. organization isolation -------------------------------------------------------------------------------


def test_organizations_are_isolated(api: httpx.Client, other_api: httpx.Client) -> None:
    # Resources of the other organization (Northwind), made for this test.
    host = make_host(other_api, "Northwind Isolated")
    podcast = make_podcast(other_api, [host["id"]], "Northwind Isolated Show")
    episode = other_api.post("/v1/episodes", json={"podcast_id": podcast["id"], "title": "Isolated draft"})
    assert episode.status_code == 201, episode.text
    episode_id = episode.json()["data"]["id"]
    source = make_source(other_api, "Northwind isolated notes")
    short = other_api.post(
        "/v1/shorts",
        json={"prompt": "Why tides happen", "host_id": host["id"], "target_duration_seconds": 30},
        headers={"Idempotency-Key": f"iso-{uuid.uuid4()}"},
    )
    assert short.status_code == 202, short.text
    short_id = short.json()["data"]["id"]
    # And one of Demo Studio's.
    demo_host = make_host(api, "Demo Isolated")
    demo_podcast = make_podcast(api, [demo_host["id"]], "Demo Isolated Show")

    # Lists show only the caller's own records.
    for path, ident in [
        ("/v1/podcasts", podcast["id"]),
        ("/v1/hosts", host["id"]),
        ("/v1/episodes", episode_id),
        ("/v1/sources", source["id"]),
        ("/v1/shorts", short_id),
    ]:
        assert ident not in {item["id"] for item in all_pages(api, path)}, path
        assert ident in {item["id"] for item in all_pages(other_api, path)}, path
    assert demo_podcast["id"] not in {p["id"] for p in all_pages(other_api, "/v1/podcasts")}
    demo_videos = all_pages(api, "/v1/videos")
    assert demo_videos, "the demo organization's seeded videos"
    other_video_ids = {v["id"] for v in all_pages(other_api, "/v1/videos")}
    assert not {v["id"] for v in demo_videos} & other_video_ids

    key = {"Idempotency-Key": f"iso-retry-{uuid.uuid4()}"}
    foreign = [
        ("GET", f"/v1/podcasts/{podcast['id']}", None),
        ("PATCH", f"/v1/podcasts/{podcast['id']}", {"title": "Taken"}),
        ("GET", f"/v1/podcasts/{podcast['id']}/analytics", None),
        ("GET", f"/v1/episodes/{episode_id}", None),
        ("PATCH", f"/v1/episodes/{episode_id}", {"title": "Taken"}),
        ("POST", f"/v1/episodes/{episode_id}/publish", None),
        ("POST", f"/v1/episodes/{episode_id}/unpublish", None),
        ("GET", f"/v1/episodes/{episode_id}/timestamps", None),
        ("GET", f"/v1/episodes/{episode_id}/analytics", None),
        ("DELETE", f"/v1/episodes/{episode_id}", None),
        ("GET", f"/v1/hosts/{host['id']}", None),
        ("PATCH", f"/v1/hosts/{host['id']}", {"name": "Taken"}),
        ("DELETE", f"/v1/hosts/{host['id']}", None),
        ("GET", f"/v1/sources/{source['id']}", None),
        ("POST", f"/v1/sources/{source['id']}/complete-upload", None),
        ("DELETE", f"/v1/sources/{source['id']}", None),
        ("GET", f"/v1/shorts/{short_id}", None),
        ("GET", f"/v1/shorts/{short_id}/status", None),
        ("POST", f"/v1/shorts/{short_id}/retry", None),
        ("GET", f"/v1/shorts/{short_id}/download", None),
    ]
    for video in demo_videos[:1]:
        foreign += [
            ("GET", f"/v1/videos/{video['id']}/status", None),
            ("POST", f"/v1/videos/{video['id']}/retry", None),
            ("GET", f"/v1/videos/{video['id']}/download", None),
        ]
    for method, path, body in foreign:
        caller = other_api if "/videos/" in path else api
        response = caller.request(method, path, json=body, headers=key)
        problem = assert_problem(response, 404, "not_found")
        assert "Northwind" not in response.text and "Taken" not in response.text, (path, problem)

    # Nothing changed for the owner.
    assert other_api.get(f"/v1/podcasts/{podcast['id']}").json()["data"]["title"] == "Northwind Isolated Show"
    assert other_api.get(f"/v1/episodes/{episode_id}").json()["data"]["title"] == "Isolated draft"
    owned_host = other_api.get(f"/v1/hosts/{host['id']}").json()["data"]
    assert owned_host["name"] == "Northwind Isolated" and not owned_host.get("archived")
    assert other_api.get(f"/v1/sources/{source['id']}").status_code == 200

    # Generating into the other organization's podcast is 404; borrowing its hosts is 400.
    generate = api.post(
        "/v1/episodes/generate",
        json={"podcast_id": podcast["id"], "prompt": "A short talk about the tides of the harbour."},
    )
    assert_problem(generate, 404, "not_found")
    create = api.post("/v1/episodes", json={"podcast_id": podcast["id"], "title": "Taken"})
    assert_problem(create, 404, "not_found")
    borrowed = api.post("/v1/podcasts", json={"title": "Borrowed", "host_ids": [host["id"]]})
    assert "host_ids.0" in field_names(assert_problem(borrowed, 400, "validation_error"))
    patched = api.patch(
        f"/v1/podcasts/{demo_podcast['id']}", json={"host_ids": [demo_host["id"], host["id"]]}
    )
    assert "host_ids.1" in field_names(assert_problem(patched, 400, "validation_error"))
    generate_with_host = api.post(
        "/v1/episodes/generate",
        json={
            "podcast_id": demo_podcast["id"],
            "prompt": "A short talk about the tides of the harbour.",
            "host_ids": [host["id"]],
        },
    )
    assert "host_ids.0" in field_names(assert_problem(generate_with_host, 400, "validation_error"))
    assert "Borrowed" not in {p["title"] for p in all_pages(api, "/v1/podcasts")}


# --- 8. pagination -----------------------------------------------------------------------------------------------


def test_voice_pagination_with_link_headers(api: httpx.Client, sandbox: RunningSandbox) -> None:
    seen: list[int] = []
    pages = 0
    url: str | None = "/v1/voices?limit=5"
    while url is not None:
        response = api.get(url)
        assert response.status_code == 200, response.text
        data = response.json()["data"]
        pages += 1
        seen.extend(v["id"] for v in data)
        link = response.links.get("next")
        if link is None:
            assert "link" not in response.headers
            url = None
            assert len(data) <= 5
        else:
            assert len(data) == 5
            assert response.headers["link"].endswith('rel="next"')
            next_url = link["url"]
            parsed = urlparse(next_url)
            assert next_url.startswith(sandbox.base_url)
            query = parse_qs(parsed.query)
            assert query["limit"] == ["5"] and query["cursor"][0]
            url = next_url
        assert pages <= 10
    assert len(seen) == 24 == len(set(seen))
    assert pages == 5
    everything = api.get("/v1/voices?limit=100")
    assert [v["id"] for v in everything.json()["data"]] == seen
    assert "link" not in everything.headers
    default = api.get("/v1/voices")
    assert len(default.json()["data"]) == 20 and "next" in default.links


@pytest.mark.parametrize("limit", ["0", "101", "abc", "-1", "2.5", ""])
def test_bad_limit_is_400_on_limit(api: httpx.Client, limit: str) -> None:
    problem = assert_problem(api.get(f"/v1/voices?limit={limit}"), 400, "validation_error")
    assert field_names(problem) == ["limit"]


def test_bad_cursor_is_400_on_cursor(api: httpx.Client) -> None:
    for index in range(2):
        make_host(api, f"Cursor Host {index}")
    hosts_page = api.get("/v1/hosts?limit=1")
    host_cursor = parse_qs(urlparse(hosts_page.links["next"]["url"]).query)["cursor"][0]
    for cursor in ["garbage!!", "Zm9vOmJhcg", "dm9pY2U6YWJj", host_cursor]:
        problem = assert_problem(api.get("/v1/voices", params={"cursor": cursor}), 400, "validation_error")
        assert field_names(problem) == ["cursor"], cursor
