"""``castdeck script``: check and convert episode scripts offline, with the app's own script model.

castdeck script check [--hosts NAME,NAME...] [--for both|import|generate] [--json] FILE...
castdeck script convert FILE --to json|text [--map LABEL=HOST_ID ...] [-o OUT]

``.json`` files are structured scripts (spec 2.4's ``script`` object, or a whole generate body);
anything else is read as text (spec 2.5's import format with ``# Title`` chapter lines). Problems
print as ``FILE:LINE:COL: error: MESSAGE`` (or ``warning``). Exit status: 0 no errors, 1 errors
found, 2 a file cannot be read or written, or the arguments are wrong.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TextIO

from castdeck.scripts import HostRef, Problem, parse_text, read_structured, to_structured, to_text
from castdeck.scripts.problems import BOTH, GENERATE, IMPORT, check_text
from castdeck.store.script_files import ScriptFileError, read_script_file, write_script_file

__all__ = ["main"]

OK, PROBLEMS, CANNOT_RUN = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line and status 2, as every other failure here
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(CANNOT_RUN)


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


def check_file(path: Path, hosts: list[HostRef] | None, target: str = BOTH) -> list[Problem]:
    """The problems of one file (raises :class:`ScriptFileError` when it cannot be read)."""
    text, _ = read_script_file(path)
    if path.suffix.lower() == ".json":
        _, problems = read_structured(text, hosts=hosts)  # a plain NAME stands for an id too
    else:
        problems = check_text(parse_text(text), hosts=hosts, check_speakers=hosts is not None)
    return [p for p in problems if _wanted(p, target)]


def _line(path: Path, problem: Problem) -> str:
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
    for path in args.files:
        try:
            problems = check_file(path, hosts, args.target)
        except ScriptFileError as error:
            status = CANNOT_RUN
            if args.json:
                report.append({"file": str(path), "error": str(error), "problems": []})
            else:
                print(f"{path}: error: {error}", file=sys.stderr)
            continue
        file_errors = sum(p.is_error for p in problems)
        errors += file_errors
        warnings += len(problems) - file_errors
        if file_errors and status == OK:
            status = PROBLEMS
        if args.json:
            report.append({"file": str(path), "problems": [_as_json(p) for p in problems]})
        else:
            for problem in problems:
                print(_line(path, problem), file=out)
    if args.json:
        json.dump(
            {"files": report, "errors": errors, "warnings": warnings}, out, indent=2, ensure_ascii=False
        )
        out.write("\n")
    else:
        files = len(args.files)
        print(f"{errors} error{'s' * (errors != 1)}, {warnings} warning{'s' * (warnings != 1)} in "
              f"{files} file{'s' * (files != 1)}", file=sys.stderr)  # fmt: skip
    return status


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
        print(_line(path, problem), file=sys.stderr)
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
