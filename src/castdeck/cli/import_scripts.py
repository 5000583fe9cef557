"""``castdeck import DIR_OR_FILE... --podcast ID [--generate] [--render] [--map LABEL=HOST_ID ...]
[--profile NAME] [--dry-run]``

Imports a season of scripts into one podcast (or, with ``--generate``, generates an episode from
each as a structured script), in order: a folder opens to the script files inside it in natural
name order ("Episode 2" before "Episode 10"), files go in the order given. ``.txt``/``.md`` are
text scripts (spec 2.5), ``.json`` structured ones (spec 2.4); each episode is named after its
file (without the suffix).

Everything is checked first, before anything is sent: every script against the account's hosts,
with one ``--map`` for all of them (a label no host answers to is reported with the ``--map`` that
resolves it), the way ``castdeck script check`` prints it (``FILE:LINE:COL: error: MESSAGE``), then
the whole batch's credits against the balance: a batch larger than the balance is refused here,
saying by how much and how many of the scripts, in order, fit. Any problem: nothing is sent.

The scripts then go out one at a time, in order, through the app's own outbox (the same file, the
same profile): each request is stored with its idempotency key before it is sent, and an accepted
one is stored with the job the app follows in its Jobs dock. A second run after an interruption
(Ctrl+C, a kill, a lost connection) finds what was accepted and says ``already``, resends what had
no answer under the same key (the service starts it once), and sends the rest.

One line per script on standard output: ``FILE<TAB>EPISODE_ID<TAB>STATUS<TAB>TITLE`` with STATUS
``accepted``, ``already``, ``refused`` or ``not sent``. The check's problems come first, on
standard output as ``castdeck script check`` prints them (a run with any sends nothing); the
batch's summary and what went wrong go to standard error (``castdeck import: error: ...``). Exit status: 0 every script accepted (now or before); 1 problems found or
scripts refused; 2 cannot run (bad arguments, no connection, a refused key, no answer).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, NoReturn

from pydantic import ValidationError

from castdeck.api import (
    Accepted,
    APIConnectionError,
    ApiError,
    CastdeckError,
    Client,
    ForbiddenError,
    InputValidationError,
    NotFoundError,
    UnauthorizedError,
    is_transient,
    new_idempotency_key,
)
from castdeck.api.models import EpisodeGenerateInput, EpisodeImportInput, field_errors
from castdeck.data_dir import user_data_dir
from castdeck.scripts import (
    BOTH,
    GENERATE,
    IMPORT,
    HostRef,
    analyze,
    parse_text,
    read_structured,
    to_structured,
    to_text,
)
from castdeck.scripts import Problem as ScriptProblem
from castdeck.scripts.batch import Batch, BatchScript
from castdeck.scripts.requests import generate_body, import_body
from castdeck.scripts.speakers import suggest_hosts
from castdeck.scripts.structured import StructuredScript
from castdeck.services.drafts import SCRIPT_SUFFIXES
from castdeck.services.job_kinds import hint
from castdeck.services.jobs import DEFAULT_DEADLINE, DEFAULT_POLL_INTERVAL
from castdeck.services.messages import error_text
from castdeck.services.outbox_names import job_kind_of, title_of
from castdeck.services.outbox_refusals import problem_of, unresolved_acceptance
from castdeck.services.script_batches import MAX_SCRIPT_FILES, script_files
from castdeck.services.script_sending import episode_title
from castdeck.store.background import BackgroundStore
from castdeck.store.drafts import Draft
from castdeck.store.jobs import Job
from castdeck.store.outbox import REJECTED, SENT, OutboxEntry, OutboxStore
from castdeck.store.script_files import ScriptFileError, read_script_file
from castdeck.store.sqlite import StoreError

from .connection import Problem, profile_connection
from .script import batch_summary, check_file, parse_map, problem_line

__all__ = ["main", "outbox_path"]

PROG = "castdeck import"
OK, PROBLEMS, CANNOT_RUN = 0, 1, 2
KINDS = {IMPORT: "episode_import", GENERATE: "episode_generate"}


def outbox_path() -> Path:
    """The app's background database (its outbox and tracked jobs), as :mod:`castdeck.app` opens it."""
    return user_data_dir() / "background" / "background.sqlite3"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line and status 2, as every other failure here
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(CANNOT_RUN)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog=PROG, description="Import a folder of scripts into a podcast, in order, exactly once."
    )
    parser.add_argument("paths", metavar="DIR_OR_FILE", nargs="+", type=Path,
                        help="script files (.txt, .md, .json), or folders of them")  # fmt: skip
    parser.add_argument("--podcast", metavar="ID", required=True, help="the podcast the episodes belong to")
    parser.add_argument(
        "--generate", action="store_true",
        help="generate from each script as a structured script instead of importing it",
    )  # fmt: skip
    parser.add_argument("--render", action="store_true", help="render audio and video after generation")
    parser.add_argument(
        "--map", action="append", default=[], metavar="LABEL=HOST_ID",
        help="the host a speaker label stands for, in every script (repeat for each label)",
    )  # fmt: skip
    parser.add_argument("--profile", metavar="NAME", help="a saved profile (default: the one used last)")
    parser.add_argument("--dry-run", action="store_true", help="check and print the plan; send nothing")
    return parser


@dataclass
class _Script:
    """One script file as checked, and what the outbox already holds of it."""

    path: Path
    checked: BatchScript
    body: dict[str, Any] | None
    title: str | None
    entry: OutboxEntry | None = None

    @property
    def accepted_before(self) -> bool:
        return self.entry is not None and self.entry.state == SENT

    @property
    def sent_unanswered(self) -> bool:
        """Sent before without an answer: the service may hold it (and its credits) already."""
        return self.entry is not None and self.entry.unsent and self.entry.attempts > 0


class _NoAnswer(Exception):
    """The service did not answer a script's request (or refused the key): stop sending."""

    def __init__(self, error: CastdeckError) -> None:
        super().__init__(str(error))
        self.error = error


# --- checking --------------------------------------------------------------------------------------------


def _hinted(problem: ScriptProblem, hosts: list[HostRef]) -> ScriptProblem:
    """A label (or a structured script's host) that no host answers to, with the ``--map`` that fixes it."""
    if problem.code not in ("unresolved_speaker", "unknown_host") or not problem.labels:
        return problem
    label = problem.labels[0]
    closest = ", ".join(f"{host.name}={host.id}" for host in suggest_hosts(label, hosts))
    near = f" (closest: {closest})" if closest else ""
    what = f"No host is called “{label}”" if problem.code == "unresolved_speaker" else (
        f"Host “{label}” is not an active host of the organization")  # fmt: skip
    return replace(problem, message=f"{what}: add --map '{label}=HOST_ID'{near}.")


def _validated(path: Path, body: dict[str, Any], action: str) -> list[str]:
    model: Any = EpisodeImportInput if action == IMPORT else EpisodeGenerateInput
    try:
        model.model_validate(body)
    except ValidationError as error:
        details = "; ".join(f"{e.field or 'request'}: {e.message}" for e in field_errors(error))
        return [f"{path}: error: the request would be refused: {details}"]
    return []


def _structured_body(
    path: Path, text: str, action: str, hosts: list[HostRef], mapping: dict[str, str], podcast_id: str,
    render: bool,
) -> tuple[dict[str, Any] | None, list[str], int]:  # fmt: skip
    """A checked ``.json`` script's body, its host ids mapped (import sends its text form), with the
    lines that say what its text form lacks and how many of them are errors."""
    script, _ = read_structured(text)
    if script is None:
        return None, [], 0
    known = {host.id for host in hosts}
    script = StructuredScript(tuple(
        replace(chapter, segments=tuple(
            replace(s, host_id=mapping.get(s.host_id, s.host_id) if s.host_id not in known else s.host_id)
            for s in chapter.segments
        ))
        for chapter in script.chapters
    ))  # fmt: skip
    if action == GENERATE:
        return generate_body(script, podcast_id=podcast_id, render=render), [], 0
    converted, back, warnings = to_text(script, None, hosts)
    lines = [problem_line(path, w) + " (in its text form)" for w in warnings]
    analysis = analyze(converted, hosts=hosts, mapping=back)
    blocking = analysis.blocking(IMPORT)
    if blocking:
        lines += [f"{path}:1:1: error: {p.message} (in its text form)" for p in blocking]
        return None, lines, len(blocking)
    return import_body(analysis.script, back, podcast_id=podcast_id, render=render), lines, 0


def _check_one(
    path: Path, text: str, action: str, hosts: list[HostRef], mapping: dict[str, str], podcast_id: str,
    render: bool,
) -> tuple[_Script, list[str], int]:  # fmt: skip
    """One script checked for ``action``: the script, the lines that say what is wrong, its errors."""
    title = episode_title(Draft(id="", title=path.name, text=""))
    if path.suffix.lower() == ".json":
        # a mapped label stands for its host (a structured script may name hosts by a label)
        known = hosts + [HostRef(label, label) for label in mapping]
        checked = check_file(path, known, text=text)
        problems = [p for p in checked.problems if p.scope in (BOTH, action) or p.code == "unknown_host"]
    else:
        checked = check_file(path, hosts, action, text=text, mapping=mapping)
        problems = checked.problems
    problems = [_hinted(p, hosts) for p in problems]
    checked = replace(checked, problems=problems)
    lines = [problem_line(path, p) for p in problems]
    errors = sum(p.is_error for p in problems)
    body: dict[str, Any] | None = None
    if not errors:
        if path.suffix.lower() == ".json":
            body, more, more_errors = _structured_body(path, text, action, hosts, mapping, podcast_id, render)
            lines += more
            errors += more_errors
        elif action == IMPORT:
            body = import_body(parse_text(text), mapping, podcast_id=podcast_id, render=render)
        else:
            structured, _table, unmapped = to_structured(parse_text(text), mapping, hosts)
            lines += [problem_line(path, _hinted(p, hosts)) for p in unmapped]
            errors += len(unmapped)
            if structured is not None:
                body = generate_body(structured, podcast_id=podcast_id, render=render)
        if body is not None:
            refused = _validated(path, body, action)
            lines += refused
            errors += len(refused)
            body = None if refused else body
    return _Script(path, checked, body, title), lines, errors


# --- the outbox --------------------------------------------------------------------------------------------


def _canonical(body: dict[str, Any]) -> str:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _match(scripts: list[_Script], entries: list[OutboxEntry], kind: str) -> None:
    """Each script's earlier write of the same kind and body, if any: accepted first, else one still
    unanswered, else the last refusal. Each entry answers for one script (two identical files are
    two episodes)."""
    by_body: dict[str, list[OutboxEntry]] = {}
    for entry in entries:
        if entry.kind == kind:
            by_body.setdefault(_canonical(entry.body), []).append(entry)
    claimed: set[str] = set()
    for script in scripts:
        if script.body is None:
            continue
        found = [e for e in by_body.get(_canonical(script.body), []) if e.id not in claimed]
        sent = [e for e in found if e.state == SENT]
        unsent = [e for e in found if e.unsent]
        refused = [e for e in found if e.state == REJECTED]
        chosen = sent or unsent or refused[-1:]
        if chosen:
            script.entry = chosen[0]
            claimed.add(chosen[0].id)


def _reuse_key(entry: OutboxEntry) -> bool:
    recovery = (entry.problem or {}).get("recovery")
    return isinstance(recovery, dict) and recovery.get("idempotency_key") == "reuse"


def _job(entry: OutboxEntry, resource_id: str, accepted: Accepted[Any] | None, title: str | None,
         *, accepting: bool = False) -> Job:  # fmt: skip
    """The tracked job the app's outbox stores with an accepted write (``Outbox._sent`` with
    ``JobTracker.new_job``), so the app follows the generation when it opens."""
    extra: dict[str, Any] = {"outbox_entry": entry.id, "attempts": entry.attempts,
                             "idempotency_key": entry.idempotency_key, "retry": False}  # fmt: skip
    if accepting:
        extra["accepting"] = True
    first = accepted.retry_after if accepted is not None else None
    now = time.time()
    return Job(
        entry.profile, job_kind_of(entry), resource_id,
        title=title or getattr(getattr(accepted, "data", None), "title", None) or title_of(entry),
        state="running", request_id=accepted.request_id if accepted is not None else entry.request_id,
        started_at=now, next_poll_at=now + (DEFAULT_POLL_INTERVAL if first is None else hint(first)),
        deadline_at=now + DEFAULT_DEADLINE, extra=extra, updated_at=now,
    )  # fmt: skip


async def _send(
    client: Client, outbox: OutboxStore, entry: OutboxEntry, title: str | None
) -> tuple[str, str]:
    """Send one stored write: ("accepted", episode id) or ("refused", what the service said);
    raises :class:`_NoAnswer` (the entry stays unanswered, to be sent again with its key)."""
    entry = outbox.mark_sending(entry.id)
    body = dict(entry.body)
    key = entry.idempotency_key
    try:
        if entry.kind == "episode_generate":
            accepted = await client.episodes.generate(**body, idempotency_key=key)
        else:
            accepted = await client.episodes.import_script(**body, idempotency_key=key)
    except (UnauthorizedError, ForbiddenError) as error:  # the key was refused, not the write
        outbox.mark_failed_attempt(entry.id, error_text(error), error.request_id)
        raise _NoAnswer(error) from None
    except InputValidationError as error:
        outbox.mark_rejected(entry.id, str(error), None, {"status": None, "type": "input_validation",
                             "errors": [e.model_dump(mode="json") for e in error.errors]})  # fmt: skip
        return "refused", str(error)
    except CastdeckError as error:
        if isinstance(error, ApiError) and unresolved_acceptance(error) and error.resource_id:
            # an earlier send of this very write is still being accepted: it is this one's episode
            job = _job(entry, error.resource_id, None, title, accepting=True)
            outbox.mark_sent(entry.id, error.resource_id, error.request_id, job=job)
            return "accepted", error.resource_id
        if isinstance(error, ApiError) and not is_transient(error) and not unresolved_acceptance(error):
            outbox.mark_rejected(entry.id, error_text(error), error.request_id, problem_of(error))
            return "refused", error_text(error)
        outbox.mark_failed_attempt(entry.id, error_text(error), getattr(error, "request_id", None))
        raise _NoAnswer(error) from None
    episode_id = str(accepted.data.id)
    outbox.mark_sent(entry.id, episode_id, accepted.request_id, job=_job(entry, episode_id, accepted, title))
    return "accepted", episode_id


async def _give_title(client: Client, episode_id: str, title: str, *, compare: bool) -> None:
    """Name the episode after its file (the service names an import after its first words).
    ``compare``: read it first and leave a title that already matches."""
    if compare:
        episode = await client.episodes.get(episode_id)
        if (episode.title or "") == title:
            return
    await client.episodes.update(episode_id, title=title)


# --- running -----------------------------------------------------------------------------------------------


def _line(path: Path, episode_id: str | None, status: str, title: str | None, note: str = "") -> str:
    text = (title or "").replace("\t", " ") + (f" ({note})" if note else "")
    return "\t".join([str(path), episode_id or "-", status, text.strip()])


def _files(paths: list[Path]) -> list[Path]:
    for path in paths:
        if not path.exists():
            raise Problem(f"{path}: no such file or folder", CANNOT_RUN)
        if path.is_file() and not path.name.lower().endswith(SCRIPT_SUFFIXES):
            raise Problem(f"{path}: not a script file ({', '.join(SCRIPT_SUFFIXES)})", CANNOT_RUN)
    files, more = script_files(paths)
    if more:
        raise Problem(f"{len(files) + more} scripts: at most {MAX_SCRIPT_FILES} at a time; import them in "
                      "several runs", CANNOT_RUN)  # fmt: skip
    if not files:
        raise Problem(f"no script files ({', '.join(SCRIPT_SUFFIXES)}) in {', '.join(map(str, paths))}",
                      CANNOT_RUN)  # fmt: skip
    return files


async def _hosts(client: Client, mapping: dict[str, str]) -> list[HostRef]:
    hosts = [HostRef(str(h.id), h.name or str(h.id)) async for h in client.hosts.list(limit=100)
             if not h.archived_at]  # fmt: skip
    known = {host.id for host in hosts}
    for label, host_id in mapping.items():
        if host_id not in known:
            names = ", ".join(f"{h.name}={h.id}" for h in hosts[:8]) or "none"
            raise Problem(f"--map '{label}={host_id}': no active host has the id {host_id} (hosts: {names})",
                          CANNOT_RUN)  # fmt: skip
    return hosts


async def _run(
    profile: str, base_url: str, key: str, args: argparse.Namespace, mapping: dict[str, str]
) -> int:
    action = GENERATE if args.generate else IMPORT
    try:
        podcast_id = str(uuid.UUID(args.podcast))
    except ValueError:
        raise Problem(f"--podcast: {args.podcast!r} is not a podcast id", CANNOT_RUN) from None
    files = _files(args.paths)
    texts: dict[Path, str] = {}
    unreadable = 0
    for path in files:
        try:
            texts[path], _ = read_script_file(path)
        except ScriptFileError as error:
            unreadable += 1
            print(f"{path}: error: {error}", file=sys.stderr)
    status = OK

    def problem(text: str) -> None:
        nonlocal status
        status = max(status, PROBLEMS)
        print(f"{PROG}: error: {text}", file=sys.stderr, flush=True)

    async with Client(base_url, key, timeout=30.0, max_retries=2) as client:
        hosts = await _hosts(client, mapping)
        try:
            await client.podcasts.get(podcast_id)
        except NotFoundError:
            raise Problem(f"podcast {podcast_id} not found", CANNOT_RUN) from None
        scripts: list[_Script] = []
        errors = warnings = 0
        for path, text in texts.items():
            script, lines, found = _check_one(path, text, action, hosts, mapping, podcast_id, args.render)
            scripts.append(script)
            errors += found
            warnings += sum(not p.is_error for p in script.checked.problems)
            for line in lines:  # as `castdeck script check` prints them: on standard output
                print(line)
        balance = float((await client.account.get()).credits.balance)
        if errors or unreadable:
            batch = Batch([s.checked for s in scripts])
            print(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} in "
                  f"{len(files)} file{'s' * (len(files) != 1)}", file=sys.stderr)  # fmt: skip
            for line in batch_summary(batch, batch.budget(balance, action), action):
                print(line, file=sys.stderr)
            if unreadable:
                raise Problem("some scripts cannot be read; nothing was sent", CANNOT_RUN)
            problem("the scripts have problems to correct first; nothing was sent")
            return status

        try:
            store = BackgroundStore(outbox_path(), legacy_dir=outbox_path().parent)
        except (StoreError, OSError) as error:
            raise Problem(f"cannot open the outbox at {outbox_path()}: {error}", CANNOT_RUN) from None
        try:
            kind = KINDS[action]
            _match(scripts, store.outbox.list(profile), kind)
            # what the balance must still hold: not what was accepted, nor what may be held already
            counted = Batch([s.checked for s in scripts if not (s.accepted_before or s.sent_unanswered)])
            budget = counted.budget(balance, action)
            if counted.scripts:
                for line in batch_summary(counted, budget, action):
                    print(line, file=sys.stderr)
            if not budget.enough:
                problem(
                    f"the batch needs {budget.short_by:,} credits more than the balance; nothing was sent"
                )
                return status
            if args.dry_run:
                for s in scripts:
                    if s.entry is not None and s.accepted_before:
                        print(_line(s.path, s.entry.resource_id, "already", s.title), flush=True)
                    elif s.entry is not None and s.entry.unsent:
                        print(_line(s.path, None, "would send again", s.title, "under its key"), flush=True)
                    else:
                        print(_line(s.path, None, f"would {action}", s.title), flush=True)
                return status
            sent = await _send_all(client, store.outbox, profile, kind, scripts, problem)
            return max(status, sent)  # (status as the refusals on the way left it)
        finally:
            store.close()


async def _send_all(client: Client, outbox: OutboxStore, profile: str, kind: str, scripts: list[_Script],
                    problem: Callable[[str], None]) -> int:  # fmt: skip
    """Each script in order, once the one before has its answer (the service lists them in order)."""
    for index, script in enumerate(scripts):
        assert script.body is not None
        title = script.title
        entry = script.entry
        if entry is not None and entry.state == SENT and entry.resource_id:
            note = await _title_of(client, entry.resource_id, title, problem, script.path, compare=True)
            print(_line(script.path, entry.resource_id, "already", title, note), flush=True)
            continue
        if entry is None or not entry.unsent:  # new, or refused before (its key again only on "reuse")
            reuse = entry is not None and _reuse_key(entry)
            key = entry.idempotency_key if entry is not None and reuse else new_idempotency_key()
            # stored BEFORE it is sent: whatever happens next, a second run finds it and its key
            entry = outbox.insert(outbox.new_entry(profile, kind, script.body, key))
        try:
            outcome, said = await _send(client, outbox, entry, title)
        except _NoAnswer as stop:
            note = "no answer; sent again under its key next time"
            print(_line(script.path, None, "not sent", title, note), flush=True)
            for rest in scripts[index + 1 :]:
                print(_line(rest.path, None, "not sent", rest.title), flush=True)
            left = len(scripts) - index
            if isinstance(stop.error, UnauthorizedError | ForbiddenError):
                why = f"the service refused the API key ({error_text(stop.error)})"
            else:
                why = f"no answer from the service ({error_text(stop.error)})"
            print(f"{PROG}: error: {why}: {left} of {len(scripts)} script{'s' * (len(scripts) != 1)} not "
                  "accepted yet; run the same command again to send them: the one without an answer goes "
                  "again under the same key, so nothing is started twice",
                  file=sys.stderr, flush=True)  # fmt: skip
            return CANNOT_RUN
        if outcome == "refused":
            print(_line(script.path, None, "refused", title, said), flush=True)
            problem(f"{script.path}: refused: {said}")
            continue
        note = await _title_of(client, said, title, problem, script.path, compare=False)
        print(_line(script.path, said, "accepted", title, note), flush=True)
    return OK


async def _title_of(client: Client, episode_id: str, title: str | None, problem: Callable[[str], None],
                    path: Path, *, compare: bool) -> str:  # fmt: skip
    """Give the episode its file's title; a note for its line ("" when all is well)."""
    if title is None:
        return ""
    try:
        await _give_title(client, episode_id, title, compare=compare)
    except NotFoundError:
        return "its episode was deleted since" if compare else ""
    except CastdeckError as error:
        problem(f"{path}: episode {episode_id} keeps its title for now ({error_text(error)}); "
                "run the same command again to give it")  # fmt: skip
        return "title not given yet"
    return ""


def main(argv: Sequence[str]) -> int:
    try:
        args = _parser().parse_args(list(argv))
    except SystemExit as stop:  # --help (0) or a usage error (2), already printed
        return OK if stop.code in (0, None) else CANNOT_RUN
    try:
        try:
            mapping = parse_map(args.map)
        except ValueError as error:
            raise Problem(str(error), CANNOT_RUN) from None
        profile, base_url, key = profile_connection(args.profile)
        try:
            return asyncio.run(_run(profile, base_url, key, args, mapping))
        except (UnauthorizedError, ForbiddenError) as error:
            raise Problem(f"the service refused the API key: {error_text(error)}", CANNOT_RUN) from None
        except APIConnectionError as error:
            raise Problem(f"cannot reach the service at {base_url}: {error}", CANNOT_RUN) from None
        except CastdeckError as error:
            raise Problem(error_text(error), CANNOT_RUN) from None
        except KeyboardInterrupt:
            raise Problem("interrupted: run the same command again to send what was not accepted, under "
                          "the same keys (nothing is started twice)", CANNOT_RUN) from None  # fmt: skip
    except Problem as problem:
        print(f"{PROG}: error: {problem}", file=sys.stderr)
        return problem.code
