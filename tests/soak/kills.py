"""SIGKILL at the worst moments, then a restart on the same data: the scenarios of
tests/soak/test_kill.py and benchmarks/soak.py.

The app runs as its own process (tests/soak/kill_child.py) with its own data folder, against a
sandbox that survives, behind the recording proxies (tests/soak/service.py). Each scenario waits on
events only (lines the child prints, what the proxies saw, the sandbox's database) with generous
timeouts, kills the child with SIGKILL, starts it again, and returns what came of it.

* :func:`kill_during_generate`: Generate was pressed; the service took the request (``answer``: it
  created the episode and its answer is held on the way back; ``acceptance``: the sandbox holds the
  acceptance unresolved, ``--accept-hold``). After the restart the episode exists once.
* :func:`kill_during_upload`: three files one at a time; one finished, the second half-sent (its
  body held by the proxy). After the restart all complete, with one successful PUT each and the
  finished one never sent again.
* :func:`kill_during_batch`: twelve scripts dropped on Scripts and sent as one batch; after four
  were accepted the connection is cut, and the app is killed while it waits to resend the fifth.
  After the restart the podcast holds exactly twelve episodes, titled and ordered as the drafts.
* :func:`kill_while_typing`: the existing typist (tests/gui/scripts_typist.py, as
  tests/gui/test_scripts_recovery.py runs it): at most the last 2 seconds of typing are lost.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from tests.conftest import DEMO_KEY, wait_for
from tests.soak.service import Service, start_service

__all__ = [
    "KillOutcome",
    "kill_during_batch",
    "kill_during_generate",
    "kill_during_upload",
    "kill_while_typing",
]

ROOT = Path(__file__).resolve().parents[2]
WAIT = 180.0


@dataclass
class KillOutcome:
    name: str
    ok: bool = False
    facts: dict[str, Any] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)

    def text(self) -> str:
        head = f"{'ok ' if self.ok else 'NOT OK'} {self.name}"
        return "\n".join([head, *(f"    {line}" for line in self.lines)])


class Child:
    """``python -m tests.soak.kill_child …`` with its output read line by line on a thread."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.soak.kill_child", *args], cwd=ROOT, env=env,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line.rstrip("\n"))

    def wait_line(self, match: Any, timeout: float = WAIT) -> str:
        """The next line ``match(line)`` takes (earlier lines are kept in :attr:`seen`)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                self.kill()
                raise AssertionError(f"the app did not say it within {timeout:.0f} s; it said {self.seen[-8:]}\n"
                                     f"{self.stderr()[-3000:]}") from None  # fmt: skip
            self.seen.append(line)
            if line.startswith("error "):
                raise AssertionError(f"the app's driver failed: {line}\n{self.stderr()[-3000:]}")
            if match(line):
                return line

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=60)

    def stderr(self) -> str:
        if self.process.poll() is None or self.process.stderr is None:
            return ""
        return self.process.stderr.read()

    def finish(self) -> int:
        try:
            return self.process.wait(timeout=120)
        finally:
            if self.process.poll() is None:
                self.process.kill()


def _resume(data: Path, service: Service) -> dict[str, Any]:
    child = Child("resume", str(data), service.base_url)
    report: dict[str, Any] = json.loads(child.wait_line(lambda line: line.startswith("{"), timeout=300))
    code = child.finish()
    if code != 0:
        raise AssertionError(f"the restarted app exited with {code}:\n{child.stderr()[-3000:]}")
    return report


def kill_during_generate(root: Path, held: str = "answer") -> KillOutcome:
    """Generate pressed, the service has the request, the app killed; restart. ``held``: ``answer``
    (the episode exists, its answer is held by the proxy) or ``acceptance`` (the sandbox keeps the
    acceptance unresolved: ``--accept-hold 60``)."""
    outcome = KillOutcome(f"kill -9 during a generate ({held} held)")
    extra = ("--accept-hold", "60") if held == "acceptance" else ()
    service = start_service(root / "service", "--speed", "50", *extra, keep_api=True)
    try:
        baseline = service.records().last_seq()
        if held == "answer":
            service.api.hold_answers("POST", "/v1/episodes/generate")
        token = f"kill{uuid.uuid4().hex[:8]}"
        data = root / "app"
        child = Child("generate", str(data), service.base_url, f"How harbour tides are charted ({token}).")
        child.wait_line(lambda line: line == "asked")
        posts = lambda: service.api.matching("POST", "/v1/episodes/generate")  # noqa: E731
        if held == "answer":
            wait_for(lambda: any(s.held and s.status == 202 for s in posts()), timeout=WAIT)
        else:  # the acceptance is under way: the episode exists, the answer has not been given
            wait_for(lambda: posts() and service.records().generations(baseline), timeout=WAIT)
            assert all(s.status is None for s in posts()), "the acceptance was answered before the kill"
        child.kill()
        service.api.release()
        first = posts()
        outcome.lines.append(f"killed with the request at the service, its answer not given: {_posts(first)}")
        report = _resume(data, service)
        made = service.records().generations(baseline)
        all_posts = posts()
        entries = report["entries"]
        outcome.facts = {
            "episodes": [g.id for g in made],
            "keys": sorted({s.idempotency_key or "" for s in all_posts}),
            "posts": [(s.status, s.replayed) for s in all_posts],
            "entries": [(e["state"], e["attempts"], e["resource_id"]) for e in entries],
        }
        outcome.lines += [
            f"after the restart: {_posts(all_posts[len(first) :])}",
            f"the outbox entry: {entries[0]['state']} after {entries[0]['attempts']} attempts, "
            f"episode {entries[0]['resource_id']}"
            if entries
            else "the outbox entry: none",
            f"episodes the service made: {len(made)} ({', '.join(g.id for g in made)}); idempotency keys "
            f"sent: {len(outcome.facts['keys'])}",
        ]
        outcome.ok = (
            len(made) == 1 and len(outcome.facts["keys"]) == 1 and len(entries) == 1
            and entries[0]["state"] == "sent" and entries[0]["resource_id"] == made[0].id
        )  # fmt: skip
        return outcome
    finally:
        service.stop()


def kill_during_batch(root: Path, scripts: int = 12, accepted_first: int = 4) -> KillOutcome:
    """A season of ``scripts`` sent as one batch; the line cut after ``accepted_first`` were accepted,
    the app killed while it waits to resend the next; restart. Counted on the sandbox."""
    outcome = KillOutcome(f"kill -9 during a batch of {scripts} scripts (the line cut first)")
    service = start_service(root / "service", "--speed", "50", keep_api=True)
    try:
        token = uuid.uuid4().hex[:6]
        headers = {"Authorization": f"Bearer {DEMO_KEY}"}
        with httpx.Client(base_url=service.sandbox.base_url, headers=headers, timeout=30) as api:
            host = api.get("/v1/hosts").json()["data"][0]
            podcast = api.post(
                "/v1/podcasts", json={"title": f"Batch {token}", "host_ids": [host["id"]]}
            ).json()
        folder = root / f"Season {token}"
        folder.mkdir(parents=True)
        titles = [f"{token} part {n:02d}" for n in range(1, scripts + 1)]
        for title in titles:
            (folder / f"{title}.txt").write_text(f"[{host['name']}]\nThis is {title} of the tides.\n")
        posts = lambda: service.api.matching("POST", "/v1/episodes/import")  # noqa: E731
        data = root / "app"
        child = Child("batch", str(data), service.base_url, str(folder), podcast["data"]["id"])
        child.wait_line(lambda line: line == "asked")
        wait_for(lambda: sum(1 for s in posts() if s.status == 202) >= accepted_first, timeout=WAIT)
        service.offline()
        child.wait_line(lambda line: line == "state offline")
        before = len([s for s in posts() if s.status == 202])
        child.kill()
        service.online()
        outcome.lines.append(f"killed offline after {before} of {scripts} imports were accepted")
        report = _resume(data, service)
        with httpx.Client(base_url=service.sandbox.base_url, headers=headers, timeout=30) as api:
            listed = api.get(
                "/v1/episodes", params={"podcast_id": podcast["data"]["id"], "limit": 100}
            ).json()
        made = [(e["id"], e["title"]) for e in reversed(listed["data"])]  # the service lists newest first
        answered = [s for s in posts() if s.status == 202]
        batches = report["batches"]
        outcome.facts = {
            "titles": [title for _id, title in made],
            "expected": titles,
            "keys": len({s.idempotency_key for s in answered}),
            "accepted_before_kill": before,
            "batches": [(b["summary"], [item[2] for item in b["items"]]) for b in batches],
            "episodes": [episode_id for episode_id, _t in made],
        }
        outcome.lines += [
            f"episodes the podcast holds: {len(made)}, in order: {[t for _i, t in made] == titles}",
            f"idempotency keys answered: {outcome.facts['keys']}; the batch: "
            f"{batches[0]['summary'] if batches else 'none'}",
        ]
        outcome.ok = (
            [t for _i, t in made] == titles and outcome.facts["keys"] == scripts and len(batches) == 1
        )
        return outcome
    finally:
        service.stop()


def _posts(seen: list[Any]) -> str:
    return (
        ", ".join(
            f"POST {'(key ' + (s.idempotency_key or '-')[-8:] + ')'} → "
            f"{s.status if s.status is not None else 'no answer'}{' replayed' if s.replayed else ''}"
            f"{' [answer held]' if s.held else ''}"
            for s in seen
        )
        or "none"
    )


def _pdf(path: Path, mib: float) -> None:
    block = uuid.uuid4().bytes * (1024 * 64)
    with path.open("wb") as handle:
        handle.write(b"%PDF-1.4\n")
        for _ in range(int(mib)):
            handle.write(block)
        handle.write(b"\n%%EOF\n")


def kill_during_upload(root: Path) -> KillOutcome:
    """Three files, one at a time; killed with the first finished and the second half-sent."""
    outcome = KillOutcome("kill -9 during an upload of 3 files")
    service = start_service(root / "service", "--speed", "50", keep_api=True)
    try:
        baseline = service.records().last_seq()
        folder = root / "Handouts"
        folder.mkdir(parents=True)
        tag = uuid.uuid4().hex[:6]
        names = [f"{tag}-handout-{n}.pdf" for n in range(3)]
        for name in names:
            _pdf(folder / name, 2)
        # the first file's bytes go through; the next PUT stops after 256 KiB (held by the proxy)
        service.signed.hold_bodies(free=1, after_bytes=256 * 1024)
        data = root / "app"
        child = Child("upload", str(data), service.base_url, str(folder))
        finished = child.wait_line(lambda line: line.startswith("upload ") and line.split()[2] == "done")
        wait_for(lambda: service.signed.holding(), timeout=WAIT)
        child.kill()
        service.signed.cut_held()  # the link breaks with the app: what its kernel still buffered never arrives
        service.signed.release()
        puts_before = service.signed.matching("PUT")
        outcome.lines.append(
            f"killed with {finished.split()[1]} finished and a PUT held after "
            f"{max(s.forwarded for s in puts_before if s.held) // 1024} KiB; PUTs so far: "
            + ", ".join(f"{'whole' if s.whole else 'part'} {s.status or '-'}" for s in puts_before)
        )
        report = _resume(data, service)
        by_source: dict[str, list[Any]] = {}
        for put in service.signed.matching("PUT"):
            by_source.setdefault(put.path.rsplit("/", 1)[-1], []).append(put)
        completed = service.records().completed_uploads(baseline)
        items = {u["name"]: u for u in report["uploads"]}
        sends = {name: [(p.whole, p.status) for p in by_source.get(items[name]["source_id"] or "", [])]
                 for name in names}  # fmt: skip
        done_first = finished.split()[1]
        outcome.facts = {
            "states": {name: items[name]["state"] for name in names},
            "completed": {name: len(completed.get(name, [])) for name in names},
            "sends": sends,
            "finished_first": done_first,
        }
        for name in names:
            puts = ", ".join(
                f"{'whole' if whole else 'part'} {status or '-'}" for whole, status in sends[name]
            )
            outcome.lines.append(
                f"{name}: {items[name]['state']}; completed on the service {len(completed.get(name, []))}x; "
                f"PUTs to its slot: {puts or 'none'}"
                + (" (finished before the kill)" if name == done_first else "")
            )
        whole_ok = all(sum(1 for w, st in sends[name] if w and st == 200) == 1 for name in names)
        outcome.ok = (
            all(items[name]["state"] == "done" for name in names)
            and all(len(completed.get(name, [])) == 1 for name in names)
            and whole_ok
            and len(sends[done_first]) == 1
        )
        return outcome
    finally:
        service.stop()


def kill_while_typing(root: Path) -> KillOutcome:
    """The typist of tests/gui/test_scripts_recovery.py, killed after a few autosaves; restarted."""
    from tests.gui.test_scripts_recovery import PROMISE, TEXT, next_line, start

    outcome = KillOutcome("kill -9 while typing a script")
    data = root / "data"
    data.mkdir(parents=True)
    source = root / "text.txt"
    source.write_text(TEXT, encoding="utf-8")
    process, lines = start("type", data, str(source))
    typed: list[tuple[int, float]] = []
    saves = 0
    try:
        next_line(lines, process)  # ready
        while True:
            kind, *values = next_line(lines, process).split()
            if kind == "typed":
                typed.append((int(values[0]), float(values[1])))
            elif kind == "saved":
                saves += 1
            if saves >= 3 and typed and typed[-1][1] - typed[0][1] >= 3.0 and kind == "typed":
                break
    finally:
        killed_at = time.monotonic()
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    again, output = start("recover", data)
    try:
        report = json.loads(next_line(output, again))
        again.wait(timeout=60)
    finally:
        if again.poll() is None:
            again.kill()
    recovered = len(report["text"])
    must_have = max((count for count, at in typed if at <= killed_at - PROMISE), default=0)
    last = typed[-1][0]
    lost_at = next((at for count, at in typed if count > recovered), killed_at)
    outcome.facts = {"typed": last, "recovered": recovered, "must_have": must_have}
    outcome.lines = [
        f"typed {last} characters ({saves} autosaves), killed; the restart offered "
        f"“{report['window_offered'][:60]}…”",
        f"recovered {recovered} characters: {last - recovered} lost, the oldest of them typed "
        f"{max(killed_at - lost_at, 0):.1f} s before the kill (at most the last {PROMISE:.0f} s may be lost)",
    ]
    outcome.ok = TEXT.startswith(report["text"]) and recovered >= must_have
    return outcome
