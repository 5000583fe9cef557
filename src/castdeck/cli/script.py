"""``castdeck script``: check and convert episode scripts offline, with the app's own script model.

castdeck script check [--hosts NAME,NAME...] [--for both|import|generate] [--balance CREDITS] [--json] FILE...
castdeck script convert FILE --to json|text [--map LABEL=HOST_ID ...] [-o OUT]

``.json`` files are structured scripts (spec 2.4's ``script`` object, or a whole generate body);
anything else is read as text (spec 2.5's import format with ``# Title`` chapter lines). Problems
print as ``FILE:LINE:COL: error: MESSAGE`` (or ``warning``). Exit status: 0 no errors, 1 errors
found, 2 a file cannot be read or written, or the arguments are wrong.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from castdeck.scripts import HostRef, Problem, parse_text, read_structured, to_structured, to_text
from castdeck.scripts.batch import Batch, BatchScript, Budget, check_script, duration_text
from castdeck.scripts.estimate import estimate_turns
from castdeck.scripts.problems import BOTH, GENERATE, IMPORT, check_text
from castdeck.store.script_files import ScriptFileError, read_script_file, write_script_file

__all__ = ["main"]

OK, PROBLEMS, CANNOT_RUN = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line and status 2, as every other failure here
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(CANNOT_RUN)


def _credits(value: str) -> float:
    try:
        credits = float(value.replace(",", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of credits, not {value!r}") from None
    if not math.isfinite(credits) or credits < 0:
        raise argparse.ArgumentTypeError(f"a number of credits, not {value!r}")
    return credits


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="castdeck script", description="Check and convert episode scripts offline.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = commands.add_parser("check", help="check text (.txt, .md) and structured (.json) scripts")
    check.add_argument("files", nargs="+", metavar="FILE", type=Path)
    check.add_argument(
        "--hosts", action="append", default=None, metavar="NAME,NAME...",
        help="resolve speaker labels against these host names (ID=NAME gives a host's id too)",
    )  # fmt: skip
    check.add_argument(
        "--for", dest="target", choices=("both", "import", "generate"), default="both",
        help="check for import, for generate from script, or both (default)",
    )  # fmt: skip
    check.add_argument("--json", action="store_true", help="print the problems as JSON")
    check.add_argument(
        "--balance", type=_credits, default=None, metavar="CREDITS",
        help="the credits the batch may spend: say how many of the scripts, in order, it covers",
    )  # fmt: skip
    convert = commands.add_parser("convert", help="convert between the text and the structured form")
    convert.add_argument("file", metavar="FILE", type=Path)
    convert.add_argument("--to", required=True, choices=("json", "text"))
    convert.add_argument(
        "--map", action="append", default=[], metavar="LABEL=HOST_ID",
        help="the host id a speaker label stands for (repeat for each label)",
    )  # fmt: skip
    convert.add_argument("-o", "--output", type=Path, default=None, metavar="OUT")
    return parser


def main(argv: list[str]) -> int:
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as stop:  # --help (0) or wrong arguments (2)
        return OK if stop.code in (0, None) else CANNOT_RUN
    if args.command == "check":
        return _check(args, sys.stdout)
    return _convert(args, sys.stdout)


# --- check ---------------------------------------------------------------------------------------------------


def parse_hosts(values: Iterable[str] | None) -> list[HostRef] | None:
    if values is None:
        return None
    hosts: list[HostRef] = []
    for value in values:
        for item in value.split(","):
            item = item.strip()
            if not item:
                continue
            host_id, sep, name = item.partition("=")
            hosts.append(HostRef(host_id.strip(), name.strip()) if sep else HostRef(item, item))
    return hosts


def _wanted(problem: Problem, target: str) -> bool:
    return target == BOTH or problem.scope in (BOTH, target)


def check_file(
    path: Path,
    hosts: list[HostRef] | None,
    target: str = BOTH,
    *,
    text: str | None = None,
    mapping: Mapping[str, str] | None = None,
) -> BatchScript:
    """One file checked, with its estimate (raises :class:`ScriptFileError` when it cannot be read).
    ``text``: the file's text when it was read already; ``mapping``: label -> host id, for a text
    script (a structured one names its hosts)."""
    if text is None:
        text, _ = read_script_file(path)
    if path.suffix.lower() == ".json":
        script, problems = read_structured(text, hosts=hosts)  # a plain NAME stands for an id too
        turns = [(s.host_id, s.text) for c in script.chapters for s in c.segments] if script else []
        checked = BatchScript(str(path), problems, estimate_turns(turns))
    else:
        checked = check_script(str(path), text, hosts=hosts, mapping=mapping)
    return replace(checked, problems=[p for p in checked.problems if _wanted(p, target)])


def problem_line(path: Path, problem: Problem) -> str:
    """``FILE:LINE:COL: SEVERITY: MESSAGE``, lines and columns counted from 1."""
    return f"{path}:{problem.line + 1}:{problem.column + 1}: {problem.severity}: {problem.message}"


def _as_json(problem: Problem) -> dict[str, Any]:
    return {
        "line": problem.line + 1,
        "column": problem.column + 1,
        "severity": problem.severity,
        "code": problem.code,
        "message": problem.message,
        "scope": problem.scope,
        "labels": list(problem.labels),
    }


def _check(args: argparse.Namespace, out: TextIO) -> int:
    hosts = parse_hosts(args.hosts)
    status = OK
    report: list[dict[str, Any]] = []
    errors = warnings = 0
    checked: list[BatchScript] = []
    for path in args.files:
        try:
            one = check_file(path, hosts, args.target)
        except ScriptFileError as error:
            status = CANNOT_RUN
            if args.json:
                report.append({"file": str(path), "error": str(error), "problems": []})
            else:
                print(f"{path}: error: {error}", file=sys.stderr)
            continue
        checked.append(one)
        problems = one.problems
        file_errors = sum(p.is_error for p in problems)
        errors += file_errors
        warnings += len(problems) - file_errors
        if file_errors and status == OK:
            status = PROBLEMS
        if args.json:
            report.append({"file": str(path), "problems": [_as_json(p) for p in problems]})
        else:
            for problem in problems:
                print(problem_line(path, problem), file=out)
    batch = Batch(checked)
    budget = batch.budget(args.balance, args.target) if args.balance is not None else None
    if budget is not None and not budget.enough and status == OK:
        status = PROBLEMS
    if args.json:
        whole = {"files": report, "errors": errors, "warnings": warnings, "batch": _batch_json(batch, budget)}
        json.dump(whole, out, indent=2, ensure_ascii=False)
        out.write("\n")
    else:
        files = len(args.files)
        print(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} in "
              f"{files} file{'s' * (files != 1)}", file=sys.stderr)  # fmt: skip
        for line in batch_summary(batch, budget, args.target):
            print(line, file=sys.stderr)
    return status


def batch_summary(batch: Batch, budget: Budget | None, target: str = BOTH) -> list[str]:
    """What a batch of more than one script (or one checked against a balance) adds to the
    problems: its length and credits, the labels to map once for all, and what the balance covers."""
    scripts = batch.scripts
    if len(scripts) < 2 and budget is None:
        return []
    size = _count(len(scripts), "script")
    lines = [f"{size}: {duration_text(batch.seconds)} of narration, {batch.credits:,} credits"]
    for label, names in batch.unresolved().items():
        where = ", ".join(names[:3]) + (f" and {len(names) - 3} more" if len(names) > 3 else "")
        lines.append(f"the label “{label}” has no host in {_count(len(names), 'script')} ({where})")
    if budget is not None:
        held = batch.with_problems(target)
        sendable = f"the {_count(budget.sendable, 'script')} without errors" if held else "the batch"
        if budget.enough:
            left = math.floor(budget.balance) - budget.credits
            lines.append(
                f"balance {math.floor(budget.balance):,} credits: enough for {sendable} ({left:,} left)"
            )
        else:
            fitting = [s.name for s in batch.sendable(target)][: budget.fits]
            fit = (
                f"the first {budget.fits} fit (through {fitting[-1]})"
                if fitting
                else "not even the first fits"
            )
            lines.append(
                f"balance {math.floor(budget.balance):,} credits: {sendable} needs {budget.credits:,}, "
                f"{budget.short_by:,} more than the balance; {fit}"
            )
    return lines


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def _batch_json(batch: Batch, budget: Budget | None) -> dict[str, Any]:
    result: dict[str, Any] = {
        "scripts": len(batch.scripts),
        "seconds": round(batch.seconds, 1),
        "credits": batch.credits,
        "unresolved_labels": batch.unresolved(),
    }
    if budget is not None:
        result.update(balance=budget.balance, short_by=budget.short_by, fits=budget.fits)
    return result


# --- convert -------------------------------------------------------------------------------------------------


def parse_map(values: Iterable[str]) -> dict[str, str]:
    mapping: dict[str, str] = {}
    for value in values:
        label, sep, host_id = value.rpartition("=")
        if not sep or not label.strip() or not host_id.strip():
            raise ValueError(f"--map takes LABEL=HOST_ID, not {value!r}")
        mapping[label.strip()] = host_id.strip()
    return mapping


def _report(path: Path, problems: Iterable[Problem]) -> int:
    errors = 0
    for problem in problems:
        errors += problem.is_error
        print(problem_line(path, problem), file=sys.stderr)
    return errors


def _convert(args: argparse.Namespace, out: TextIO) -> int:
    try:
        mapping = parse_map(args.map)
    except ValueError as error:
        print(f"castdeck script convert: error: {error}", file=sys.stderr)
        return CANNOT_RUN
    path: Path = args.file
    try:
        text, _ = read_script_file(path)
    except ScriptFileError as error:
        print(f"{path}: error: {error}", file=sys.stderr)
        return CANNOT_RUN
    structured_input = path.suffix.lower() == ".json"
    if structured_input:
        script, problems = read_structured(text)
        if _report(path, problems) or script is None:
            return PROBLEMS
        if args.to == "json":
            result = json.dumps(script.to_dict(), indent=2, ensure_ascii=False) + "\n"
        else:
            result, _back, warnings = to_text(script, mapping)
            _report(path, warnings)
    else:
        parsed = parse_text(text)
        if args.to == "text":
            problems = [p for p in check_text(parsed, check_speakers=False) if p.scope in (BOTH, IMPORT)]
            if _report(path, problems):
                return PROBLEMS
            result = text if text.endswith("\n") else text + "\n"
        else:
            problems = [p for p in check_text(parsed, check_speakers=False) if p.scope in (BOTH, GENERATE)]
            converted, _table, unmapped = to_structured(parsed, mapping)
            for problem in unmapped:
                label = problem.labels[0] if problem.labels else "LABEL"
                problems.append(Problem(
                    problem.line, problem.column, problem.length, problem.severity, problem.code,
                    f"The label “{label}” is not mapped to a host id; add --map '{label}=HOST_ID'.",
                    problem.scope, problem.labels,
                ))  # fmt: skip
            problems.sort(key=lambda p: (p.line, p.column))
            if _report(path, problems) or converted is None:
                return PROBLEMS
            result = json.dumps(converted.to_dict(), indent=2, ensure_ascii=False) + "\n"
    if args.output is None:
        out.write(result)
        return OK
    try:
        write_script_file(args.output, result)
    except ScriptFileError as error:
        print(f"{args.output}: error: {error}", file=sys.stderr)
        return CANNOT_RUN
    return OK
