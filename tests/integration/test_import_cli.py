"""``castdeck import`` run as a separate process against the real sandbox: a folder of scripts
imported in order and titled after their files, the check that stops a batch before anything is
sent, one ``--map`` for a label several scripts share, a batch over the balance refused here, and
runs cut short (the connection lost with an answer the service had already given, a kill -9, a
refusal) followed by a second run that sends nothing twice. Then the exits for bad input."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from castdeck.scripts.batch import check_script
from castdeck.services.profiles import ENV_PROFILE
from castdeck.store.background import BackgroundStore
from tests.conftest import DEMO_KEY, OTHER_KEY, RunningSandbox, wait_for
from tests.soak.proxy import Proxy, Seen

IMPORT = ("POST", "/v1/episodes/import")


@pytest.fixture
def env(tmp_path: Path, sandbox: RunningSandbox) -> Iterator[dict[str, str]]:
    """The environment of the command: the sandbox's address and key, and a data folder of the
    test's own (``XDG_DATA_HOME``: where the app keeps its outbox)."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CASTDECK_")}
    clean.update(XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_DATA_HOME=str(tmp_path / "data"),
                 PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring", CASTDECK_BASE_URL=sandbox.base_url,
                 CASTDECK_API_KEY=DEMO_KEY, TZ="UTC")  # fmt: skip
    yield clean


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "castdeck", "import", *args]


def run(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(command(*args), env=env, capture_output=True, text=True, timeout=180, check=False)
    assert "Traceback" not in result.stderr, result.stderr
    return result


def lines(result: subprocess.CompletedProcess[str] | str) -> list[list[str]]:
    out = result if isinstance(result, str) else result.stdout
    return [line.split("\t") for line in out.splitlines()]


def hosts(sandbox: RunningSandbox, key: str = DEMO_KEY) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = sandbox.client(key).get("/v1/hosts", params={"limit": 100}).json()["data"]
    return [host for host in found if not host.get("archived_at")]


def new_podcast(sandbox: RunningSandbox) -> str:
    client = sandbox.client()
    host = hosts(sandbox)[0]
    title = f"CLI import {uuid.uuid4().hex[:6]}"
    answer = client.post("/v1/podcasts", json={"title": title, "host_ids": [host["id"]]})
    assert answer.status_code == 201, answer.text
    podcast_id: str = answer.json()["data"]["id"]
    return podcast_id


def episodes(sandbox: RunningSandbox, podcast_id: str, key: str = DEMO_KEY) -> list[dict[str, Any]]:
    """The podcast's episodes, oldest first (the service lists the newest first)."""
    answer = sandbox.client(key).get("/v1/episodes", params={"podcast_id": podcast_id, "limit": 100})
    assert answer.status_code == 200, answer.text
    return list(reversed(answer.json()["data"]))


def write_scripts(folder: Path, names: list[str], speaker: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in names:
        path = folder / name
        path.write_text(f"[{speaker}]\nA few words for {path.stem}, spoken once.\n", encoding="utf-8")
        paths.append(path)
    return paths


def jobs(env: dict[str, str]) -> dict[str, str | None]:
    """Episode id -> title of the jobs the app follows when it opens (its background database)."""
    store = BackgroundStore(Path(env["XDG_DATA_HOME"]) / "castdeck" / "background" / "background.sqlite3")
    try:
        return {job.resource_id: job.title for job in store.jobs.list(ENV_PROFILE) if job.kind == "episode"}
    finally:
        store.close()


def test_a_folder_imported_in_order_with_titles_then_a_second_run_sends_nothing(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    podcast = new_podcast(sandbox)
    alex, maya = hosts(sandbox)[:2]
    season = tmp_path / "season"
    write_scripts(season, ["Episode 10.txt", "Episode 2.md", "Episode 1.txt"], alex["name"])
    structured = {"chapters": [{"title": "Letters", "segments": [
        {"host_id": alex["id"], "text": "Your letters, read aloud."},
        {"host_id": maya["id"], "text": "And answered, one by one."},
    ]}]}  # fmt: skip
    (season / "Episode 3.json").write_text(json.dumps(structured), encoding="utf-8")
    (season / ".hidden.txt").write_text("[Nobody]\nNever read.\n", encoding="utf-8")
    order = ["Episode 1", "Episode 2", "Episode 3", "Episode 10"]

    dry = run(env, str(season), "--podcast", podcast, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert [(Path(f).stem, e, s) for f, e, s, _t in lines(dry)] == [(n, "-", "would import") for n in order]
    assert episodes(sandbox, podcast) == []

    first = run(env, str(season), "--podcast", podcast)
    assert first.returncode == 0, first.stderr
    said = lines(first)
    assert [(Path(f).stem, s, t) for f, _e, s, t in said] == [(n, "accepted", n) for n in order]
    made = episodes(sandbox, podcast)
    assert [e["id"] for e in made] == [line[1] for line in said]  # accepted in the files' order
    assert [e["title"] for e in made] == order
    assert "4 scripts:" in first.stderr and "enough for the batch" in first.stderr
    assert jobs(env) == {e["id"]: n for e, n in zip(made, order, strict=True)}  # the app follows them

    again = run(env, str(season), "--podcast", podcast)  # the same command again: nothing is sent
    assert again.returncode == 0, again.stderr
    assert [(e, s) for _f, e, s, _t in lines(again)] == [(e["id"], "already") for e in made]
    assert [(e["id"], e["title"]) for e in episodes(sandbox, podcast)] == [
        (e["id"], e["title"]) for e in made
    ]


def test_the_check_comes_first_and_a_problem_sends_nothing(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    podcast = new_podcast(sandbox)
    alex = hosts(sandbox)[0]
    folder = tmp_path / "checked"
    good, bad = write_scripts(folder, ["1 Good.txt", "2 Bad.txt"], alex["name"])
    bad.write_text(f"[{alex['name']}]\nFine words.\n\n[Nobody Known]\nWho speaks?\n", encoding="utf-8")
    empty = folder / "3 Empty.md"
    empty.write_text("Just a note to self.\n", encoding="utf-8")

    result = run(env, str(folder), "--podcast", podcast)
    assert result.returncode == 1, result.stderr
    # as `castdeck script check` prints them: the problems on standard output, nothing else there
    errors = result.stdout.splitlines()
    assert all(": error: " in line or ": warning: " in line for line in errors), result.stdout
    assert errors[0].startswith(
        f"{bad}:4:1: error: No host is called “Nobody Known”: add --map 'Nobody Known=HOST_ID'"
    )
    assert any(line.startswith(f"{empty}:1:1: error: ") for line in errors)
    assert not any(line.startswith(str(good)) for line in errors)
    assert (
        "castdeck import: error: the scripts have problems to correct first; nothing was sent"
        in result.stderr
    )
    assert episodes(sandbox, podcast) == []

    generate = run(
        env, str(good), "--podcast", podcast, "--generate", "--dry-run"
    )  # the same check, for generate
    assert generate.returncode == 0, generate.stderr
    assert lines(generate) == [[str(good), "-", "would generate", "1 Good"]]


def test_one_map_resolves_a_label_several_scripts_share(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    podcast = new_podcast(sandbox)
    skipper = hosts(sandbox)[2]
    folder = tmp_path / "mapped"
    write_scripts(folder, ["a.txt", "b.txt", "c.txt"], "The Skipper")

    unmapped = run(env, str(folder), "--podcast", podcast)
    assert unmapped.returncode == 1
    assert unmapped.stdout.count("add --map 'The Skipper=HOST_ID'") == 3
    assert "the label “The Skipper” has no host in 3 scripts" in unmapped.stderr
    assert episodes(sandbox, podcast) == []

    mapped = run(env, str(folder), "--podcast", podcast, "--map", f"The Skipper={skipper['id']}")
    assert mapped.returncode == 0, mapped.stderr
    assert [s for _f, _e, s, _t in lines(mapped)] == ["accepted"] * 3
    made = episodes(sandbox, podcast)
    assert [e["title"] for e in made] == ["a", "b", "c"]
    assert all(e["host_ids"] == [skipper["id"]] for e in made)


def test_a_batch_over_the_balance_is_refused_here(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    other = sandbox.client(OTHER_KEY)
    podcast = other.get("/v1/podcasts").json()["data"][0]["id"]
    speaker = hosts(sandbox, OTHER_KEY)[0]["name"]
    before = [e["id"] for e in episodes(sandbox, podcast, OTHER_KEY)]
    balance = other.get("/v1/account").json()["data"]["credits"]["balance"]
    paragraph = "We talk about the river, the town, and the long summer that changed both of them. " * 10
    text = f"[{speaker}]\n" + f"\n\n[{speaker}]\n".join([paragraph] * 60) + "\n"
    assert len(text) < 75_000  # each script alone can be imported
    each = check_script("one", text).credits
    count = int(balance // each) + 2
    folder = tmp_path / "long"
    folder.mkdir()
    for number in range(1, count + 1):
        (folder / f"Part {number}.txt").write_text(text, encoding="utf-8")

    result = run({**env, "CASTDECK_API_KEY": OTHER_KEY}, str(folder), "--podcast", podcast)
    assert result.returncode == 1, result.stderr
    assert result.stdout == ""
    found = re.search(r"balance ([\d,]+) credits: the batch needs ([\d,]+), ([\d,]+) more than the balance; "
                      r"the first (\d+) fit \(through (.+)\)", result.stderr)  # fmt: skip
    assert found is not None, result.stderr
    shown, needs, short, fits = (int(found.group(i).replace(",", "")) for i in range(1, 5))
    assert needs == each * count and short == needs - shown and fits == shown // each
    assert found.group(5) == str(folder / f"Part {fits}.txt")
    assert f"the batch needs {short:,} credits more than the balance; nothing was sent" in result.stderr
    assert [e["id"] for e in episodes(sandbox, podcast, OTHER_KEY)] == before


@pytest.fixture
def proxy(sandbox: RunningSandbox) -> Iterator[Proxy]:
    """A loopback proxy in front of the sandbox: the test holds answers and cuts the connection."""
    running = Proxy("api", secret=DEMO_KEY)
    running.forward_to(sandbox.base_url)
    running.start()
    yield running
    running.stop()


def held(proxy: Proxy) -> list[Seen]:
    return [seen for seen in proxy.matching(*IMPORT) if seen.held]


def test_a_run_that_loses_its_connection_then_a_second_run_sends_nothing_twice(
    env: dict[str, str], sandbox: RunningSandbox, proxy: Proxy, tmp_path: Path
) -> None:
    podcast = new_podcast(sandbox)
    folder = tmp_path / "cut"
    names = [f"Night {n}" for n in range(1, 6)]
    write_scripts(folder, [f"{name}.txt" for name in names], hosts(sandbox)[0]["name"])
    through_proxy = {**env, "CASTDECK_BASE_URL": proxy.url}

    # the first two are answered; the service takes the third, and its answer is lost with the line
    proxy.hold_answers(*IMPORT)
    process = subprocess.Popen(command(str(folder), "--podcast", podcast), env=through_proxy,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        for answered in range(2):
            wait_for(lambda n=answered: len(held(proxy)) == n + 1)
            proxy.release()  # this answer goes through; the next one is held again
            proxy.hold_answers(*IMPORT)
        wait_for(lambda: len(held(proxy)) == 3)
        proxy.down()
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert "Traceback" not in err, err
    assert process.returncode == 2, err
    first = lines(out)
    assert [(Path(f).stem, s) for f, _e, s, _t in first] == [
        (names[0], "accepted"), (names[1], "accepted"), (names[2], "not sent"), (names[3], "not sent"),
        (names[4], "not sent"),
    ]  # fmt: skip
    assert "3 of 5 scripts not accepted yet; run the same command again" in err
    assert "under the same key" in err
    assert [e["title"] for e in episodes(sandbox, podcast)][:2] == names[:2]
    wait_for(lambda: len(episodes(sandbox, podcast)) == 3)  # the service had made the third
    lost_key = held(proxy)[2].idempotency_key

    proxy.release()
    proxy.up()
    again = run(through_proxy, str(folder), "--podcast", podcast)
    assert again.returncode == 0, again.stderr
    second = lines(again)
    assert [(Path(f).stem, s) for f, _e, s, _t in second] == [
        (names[0], "already"), (names[1], "already"), (names[2], "accepted"), (names[3], "accepted"),
        (names[4], "accepted"),
    ]  # fmt: skip
    assert [line[1] for line in second[:2]] == [line[1] for line in first[:2]]
    made = episodes(sandbox, podcast)
    assert [e["id"] for e in made] == [line[1] for line in second]  # one each, in order
    assert [e["title"] for e in made] == names
    resent = proxy.matching(*IMPORT)[3]  # the second run's first import: the third, under its key
    assert resent.idempotency_key == lost_key and resent.replayed


def test_a_run_killed_midway_then_a_second_run_sends_nothing_twice(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    podcast = new_podcast(sandbox)
    folder = tmp_path / "killed"
    names = ["Tide 1", "Tide 2", "Tide 3", "Tide 4"]
    write_scripts(folder, [f"{name}.txt" for name in names], hosts(sandbox)[0]["name"])
    process = subprocess.Popen(command(str(folder), "--podcast", podcast), env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)  # fmt: skip
    said: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in process.stdout or ():
            said.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        first = said.get(timeout=120)  # the first script accepted: kill it there, without a goodbye
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=30)
        reader.join(timeout=30)
        err = process.stderr.read() if process.stderr else ""
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                stream.close()
    assert "Traceback" not in err, err
    assert first.split("\t")[2] == "accepted", first

    again = run(env, str(folder), "--podcast", podcast)
    assert again.returncode == 0, again.stderr
    second = lines(again)
    path, episode_id = first.split("\t")[:2]
    assert second[0][:3] == [path, episode_id, "already"]
    assert {s for _f, _e, s, _t in second[1:]} <= {"already", "accepted"}
    made = episodes(sandbox, podcast)
    assert [e["id"] for e in made] == [line[1] for line in second]  # one each, in order
    assert [e["title"] for e in made] == names


def test_a_refusal_does_not_stop_the_others_and_a_title_owed_is_given_next_time(
    env: dict[str, str], sandbox: RunningSandbox, proxy: Proxy, tmp_path: Path
) -> None:
    podcast = new_podcast(sandbox)
    folder = tmp_path / "refused"
    write_scripts(folder, ["One.txt", "Two.txt", "Three.txt"], hosts(sandbox)[0]["name"])
    in_order = ["One", "Three", "Two"]
    through_proxy = {**env, "CASTDECK_BASE_URL": proxy.url}
    proxy.fail_next(*IMPORT, 422)  # the service refuses the first (as content it cannot speak)
    proxy.fail_next("PATCH", "/v1/episodes/", 503)  # and the title of the next does not arrive

    first = run(through_proxy, str(folder), "--podcast", podcast)
    assert first.returncode == 1, first.stderr
    said = lines(first)
    assert [(Path(f).stem, s) for f, _e, s, _t in said] == list(
        zip(in_order, ["refused", "accepted", "accepted"], strict=True)
    )
    assert said[1][3] == "Three (title not given yet)"
    assert f"castdeck import: error: {folder / 'One.txt'}: refused: " in first.stderr
    assert f"{folder / 'Three.txt'}: episode {said[1][1]} keeps its title for now" in first.stderr
    made = episodes(sandbox, podcast)
    assert [e["id"] for e in made] == [said[1][1], said[2][1]]
    assert made[0]["title"] != "Three" and made[1]["title"] == "Two"

    again = run(through_proxy, str(folder), "--podcast", podcast)
    assert again.returncode == 0, again.stderr
    assert [(Path(f).stem, s, t) for f, _e, s, t in lines(again)] == list(
        zip(in_order, ["accepted", "already", "already"], in_order, strict=True)
    )
    refused, resent = proxy.matching(*IMPORT)[0], proxy.matching(*IMPORT)[3]
    assert resent.idempotency_key != refused.idempotency_key  # no "reuse" said: a new key
    assert [e["title"] for e in episodes(sandbox, podcast)] == ["Three", "Two", "One"]
    assert len(proxy.matching("PATCH", "/v1/episodes/")) == 4  # Two's title was not sent again


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([], "the following arguments are required: DIR_OR_FILE"),
        (["{folder}"], "the following arguments are required: --podcast"),
        (["{folder}", "--podcast", "nope"], "--podcast: 'nope' is not a podcast id"),
        (["{folder}", "--podcast", "{podcast}", "--map", "Alex"], "--map takes LABEL=HOST_ID, not 'Alex'"),
        (["{folder}", "--podcast", "{podcast}", "--map", "Alex=ffffffff"],
         "--map 'Alex=ffffffff': no active host has the id ffffffff"),
        (["{folder}/missing.txt", "--podcast", "{podcast}"], "missing.txt: no such file or folder"),
        (["{folder}/notes.pdf", "--podcast", "{podcast}"], "notes.pdf: not a script file"),
        (["{folder}", "--podcast", str(uuid.UUID(int=1))], f"podcast {uuid.UUID(int=1)} not found"),
        (["{folder}", "--podcast", "{podcast}", "--bogus"], "unrecognized arguments: --bogus"),
    ],
)  # fmt: skip
def test_bad_arguments_say_what_is_wrong_in_one_line_and_exit_2(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path, args: list[str], said: str
) -> None:
    podcast = new_podcast(sandbox)
    folder = tmp_path / "args"
    write_scripts(folder, ["x.txt"], hosts(sandbox)[0]["name"])
    (folder / "notes.pdf").write_bytes(b"%PDF-1.4")
    result = run(env, *(a.format(folder=folder, podcast=podcast) for a in args))
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert result.stderr.startswith("castdeck import: error: ") and said in result.stderr
    assert len(result.stderr.splitlines()) == 1 and result.stdout == ""
    assert episodes(sandbox, podcast) == []


def test_without_a_connection_or_with_a_refused_key(
    env: dict[str, str], sandbox: RunningSandbox, tmp_path: Path
) -> None:
    podcast = new_podcast(sandbox)
    folder = tmp_path / "nowhere"
    write_scripts(folder, ["x.txt"], hosts(sandbox)[0]["name"])
    nowhere = {k: v for k, v in env.items() if not k.startswith("CASTDECK_")}
    result = run(nowhere, str(folder), "--podcast", podcast)
    assert result.returncode == 2 and "no connection" in result.stderr
    refused = run({**env, "CASTDECK_API_KEY": "sk_wrong"}, str(folder), "--podcast", podcast)
    assert refused.returncode == 2 and "refused the API key" in refused.stderr
    closed = run({**env, "CASTDECK_BASE_URL": "http://127.0.0.1:9"}, str(folder), "--podcast", podcast)
    assert closed.returncode == 2 and "cannot reach the service at http://127.0.0.1:9" in closed.stderr
    assert episodes(sandbox, podcast) == []
