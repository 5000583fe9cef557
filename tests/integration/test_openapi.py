"""The served OpenAPI description: valid 3.1, complete, and true to the sandbox's answers."""

from __future__ import annotations

import base64
import fnmatch
import json
import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from openapi_spec_validator import validate

from tests.conftest import DEMO_KEY, RunningSandbox
from tests.tls import SHARED_TLS

SPEC_TAGS = [
    "Health",
    "Account",
    "Podcasts",
    "Episodes",
    "Analytics",
    "Hosts",
    "Sources",
    "Videos",
    "Shorts",
    "Voiceovers",
    "Voices",
]

# Part 4 of the spec ({} stands for any path parameter name).
SPEC_OPERATIONS = {
    ("get", "/"),
    ("get", "/health"),
    ("get", "/v1/account"),
    ("get", "/v1/episodes"),
    ("post", "/v1/episodes"),
    ("post", "/v1/episodes/generate"),
    ("post", "/v1/episodes/import"),
    ("get", "/v1/episodes/{}"),
    ("patch", "/v1/episodes/{}"),
    ("post", "/v1/episodes/{}/publish"),
    ("get", "/v1/episodes/{}/analytics"),
    ("get", "/v1/podcasts/{}/analytics"),
    ("get", "/v1/hosts"),
    ("post", "/v1/hosts"),
    ("get", "/v1/voices"),
    ("get", "/v1/sources"),
    ("post", "/v1/sources"),
    ("post", "/v1/sources/uploads"),
    ("post", "/v1/sources/{}/complete-upload"),
    ("get", "/v1/sources/{}"),
    ("delete", "/v1/sources/{}"),
} | {
    operation
    for collection in ("videos", "shorts", "voiceovers")
    for operation in (
        ("get", f"/v1/{collection}/options"),
        ("post", f"/v1/{collection}"),
        ("get", f"/v1/{collection}"),
        ("get", f"/v1/{collection}/{{}}"),
        ("get", f"/v1/{collection}/{{}}/status"),
        ("post", f"/v1/{collection}/{{}}/retry"),
        ("get", f"/v1/{collection}/{{}}/download"),
    )
}
# The paths the spec leaves unshown, fixed by the sandbox.
UNSHOWN_OPERATIONS = {
    ("get", "/v1/podcasts"),
    ("post", "/v1/podcasts"),
    ("get", "/v1/podcasts/{}"),
    ("patch", "/v1/podcasts/{}"),
    ("get", "/v1/hosts/{}"),
    ("patch", "/v1/hosts/{}"),
    ("delete", "/v1/hosts/{}"),
    ("put", "/v1/episodes/{}/image"),
    ("get", "/v1/episodes/{}/timestamps"),
    ("post", "/v1/episodes/{}/unpublish"),
    ("delete", "/v1/episodes/{}"),
}
METHODS = {"get", "put", "post", "patch", "delete"}


def load_document(sandbox: RunningSandbox) -> dict[str, Any]:
    response = httpx.get(f"{sandbox.base_url}/openapi.json", timeout=10, verify=SHARED_TLS)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/json")
    document: dict[str, Any] = response.json()
    return document


def operations(document: dict[str, Any]) -> set[tuple[str, str]]:
    return {
        (method, re.sub(r"{\w+}", "{}", path))
        for path, item in document["paths"].items()
        for method in item
        if method in METHODS
    }


def test_document_is_valid_openapi_31_with_the_spec_metadata(sandbox: RunningSandbox) -> None:
    document = load_document(sandbox)
    validate(document)  # raises on any violation of the OpenAPI 3.1 schema
    assert document["openapi"] == "3.1.0"
    assert document["info"]["title"] == "API"
    assert document["info"]["version"] == "1.0.0"
    assert [t["name"] for t in document["tags"]] == SPEC_TAGS
    assert all(len(t["description"].split()) >= 5 for t in document["tags"]), document["tags"]
    schemes = document["components"]["securitySchemes"]
    bearer = [name for name, scheme in schemes.items() if scheme == {"type": "http", "scheme": "bearer"}]
    assert bearer and {bearer[0]: []} in document["security"]
    assert document["servers"][0]["url"] == sandbox.base_url


def test_document_describes_every_endpoint(sandbox: RunningSandbox) -> None:
    document = load_document(sandbox)
    described = operations(document)
    assert SPEC_OPERATIONS - described == set()
    assert UNSHOWN_OPERATIONS - described == set()
    # Nothing beyond the interface: the signed file and studio pages stay out of it.
    assert described == SPEC_OPERATIONS | UNSHOWN_OPERATIONS
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert operation["tags"] and set(operation["tags"]) <= set(SPEC_TAGS), (method, path)
            assert operation["operationId"]
            public = path in ("/", "/health")
            assert (operation.get("security") == []) == public, (method, path)
            if not public:
                assert "401" in operation["responses"], (method, path)
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    assert "application/problem+json" in response["content"], (method, path, status)
            for parameter in operation.get("parameters", []):
                if parameter["in"] == "path" and parameter["name"] != "host_id":
                    assert parameter["schema"].get("format") == "uuid", (method, path)
            for status, response in operation["responses"].items():
                headers = response.get("headers", {})
                assert headers.get("X-Request-Id", {}).get("required") is True, (method, path, status)
                if status == "401":
                    assert headers["WWW-Authenticate"]["required"] is True
                if status == "429":
                    assert headers["Retry-After"]["required"] is True
                    assert {"RateLimit", "RateLimit-Policy"} <= set(headers)
                if status == "202":
                    assert headers["Location"]["required"] and headers["Retry-After"]["required"]
            if method == "get" and path.startswith("/v1/") and "items" in str(operation["responses"]["200"]):
                assert "Link" in operation["responses"]["200"]["headers"], path
    operation_ids = [op["operationId"] for item in document["paths"].values() for op in item.values()]
    assert len(operation_ids) == len(set(operation_ids))
    # Spec limits carried into the description.
    voices = document["paths"]["/v1/voices"]["get"]
    limit = next(p for p in voices["parameters"] if p["name"] == "limit")
    assert limit["schema"].get("maximum") == 100
    generate = document["paths"]["/v1/episodes/generate"]["post"]
    assert {"202", "400", "401", "403", "404", "415", "429", "500", "502"} <= set(generate["responses"])
    # Every component is used; a query model is described by its parameters alone.
    text = json.dumps(document["paths"]) + json.dumps(document["components"]["schemas"])
    unused = {
        name for name in document["components"]["schemas"] if f'"#/components/schemas/{name}"' not in text
    }
    assert unused == set()
    # A host's DELETE archives it, and a generated client can see that.
    archive = document["paths"]["/v1/hosts/{host_id}"]["delete"]
    assert "archived_at" in archive["description"] and "Archive" in archive["summary"]
    assert "archived_at" in document["components"]["schemas"]["Host"]["properties"]


BASELINE = Path(__file__).with_name("schemathesis_baseline.toml")
FUZZER_SETTINGS = Path(__file__).with_name("schemathesis.toml")


@dataclass(frozen=True)
class Finding:
    """One failed check of one case, as the fuzzer's ndjson report gives it."""

    operation: str
    check: str
    status: int | None
    detail: str  # the problem's detail and per-field messages, or the answer's body
    request: str  # the request body as sent (JSON text), or ""

    def __str__(self) -> str:
        return f"{self.operation}: {self.check} (answer {self.status}) {self.detail[:300]} <- {self.request[:300]}"


def baseline_rules() -> list[dict[str, Any]]:
    rules: list[dict[str, Any]] = tomllib.loads(BASELINE.read_text(encoding="utf-8"))["rule"]
    return rules


def accepted_by(rule: dict[str, Any], finding: Finding) -> bool:
    statuses = rule["status"] if isinstance(rule["status"], list) else [rule["status"]]
    return (
        rule["check"] == finding.check
        and any(fnmatch.fnmatchcase(finding.operation, pattern) for pattern in rule["operations"])
        and finding.status in statuses
        and re.search(rule["detail"], finding.detail) is not None
        and re.search(rule.get("request", ""), finding.request) is not None
    )


def _answer_detail(response: dict[str, Any] | None) -> str:
    if not response:
        return ""
    content = response.get("content") or {}
    raw = base64.b64decode(content["$base64"]) if "$base64" in content else str(content).encode()
    try:
        body = json.loads(raw)
    except ValueError:
        return raw.decode("utf-8", "replace")
    if isinstance(body, dict) and "detail" in body:
        messages = [f"{e.get('field')}: {e.get('message')}" for e in body.get("errors") or []]
        return " | ".join([str(body["detail"]), *messages])
    return json.dumps(body)


def read_findings(report: Path) -> tuple[list[Finding], dict[str, set[int]], int]:
    """Every failed check, the statuses each operation answered, and the number of cases run."""
    findings: list[Finding] = []
    statuses: dict[str, set[int]] = {}
    cases = 0
    for line in report.read_text(encoding="utf-8").splitlines():
        scenario = json.loads(line).get("ScenarioFinished")
        if scenario is None:
            continue
        recorder = scenario["recorder"]
        interactions = recorder.get("interactions", {})
        for case_id, checks in recorder.get("checks", {}).items():
            cases += 1
            response = (interactions.get(case_id) or {}).get("response")
            status = response.get("status_code") if response else None
            case = recorder["cases"][case_id]["value"]
            operation = f"{case['method'].upper()} {case['path']}"
            if status is not None and operation == recorder["label"]:
                statuses.setdefault(operation, set()).add(status)
            body = case.get("body")
            request = "" if body is None else json.dumps(body)
            for check in checks:
                if check["status"] == "failure":
                    detail = _answer_detail(response)
                    findings.append(Finding(operation, check["name"], status, detail, request))
    return findings, statuses, cases


def test_the_baseline_names_each_rule_once_with_its_reason() -> None:
    rules = baseline_rules()
    names = [rule["name"] for rule in rules]
    assert len(names) == len(set(names)), names
    for rule in rules:
        assert {"name", "check", "operations", "status", "detail", "reason"} <= set(rule), rule["name"]
        assert set(rule) <= {"name", "check", "operations", "status", "detail", "request", "reason"}
        assert len(rule["reason"].split()) >= 10, rule["name"]
        re.compile(rule["detail"])
        re.compile(rule.get("request", ""))


def test_the_description_states_every_rule(sandbox_factory: Any, tmp_path: Path) -> None:
    """schemathesis with every check, against a fresh sandbox: only the baseline's rules may fail."""
    running = sandbox_factory("--speed", "50", "--no-seed-media", "--workers", "2")
    report = tmp_path / "report.ndjson"
    command = [
        sys.executable,
        "-m",
        "schemathesis.cli",
        "--config-file",
        str(FUZZER_SETTINGS),
        "run",
        f"{running.base_url}/openapi.json",
        "--checks",
        "all",
        "--header",
        f"Authorization: Bearer {DEMO_KEY}",
        "--max-examples",
        "12",
        "--seed",
        "35",
        "--generation-deterministic",
        "--workers",
        "1",
        "--request-timeout",
        "30",
        "--no-color",
        "--report",
        "ndjson",
        "--report-ndjson-path",
        str(report),
    ]
    run = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path, check=False)
    summary = run.stdout[-3000:] + run.stderr[-2000:]
    assert report.exists(), summary
    findings, statuses, cases = read_findings(report)
    rules = baseline_rules()
    unexplained = [f for f in findings if not any(accepted_by(rule, f) for rule in rules)]
    assert not unexplained, "\n".join(sorted({str(f) for f in unexplained})) + "\n\n" + summary
    # Every operation was tried, and most reached a success: the run met real records, not only 404s.
    assert len(statuses) == len(operations(load_document(running))), sorted(statuses)
    answered = {label for label, seen in statuses.items() if any(200 <= s < 300 for s in seen)}
    assert len(answered) >= 30, {label: seen for label, seen in statuses.items() if label not in answered}
    assert cases >= 500, cases
    assert "Traceback" not in running.log, running.log
    matched = {rule["name"]: sum(accepted_by(rule, f) for f in findings) for rule in rules}
    print(f"schemathesis: {cases} cases, {len(findings)} findings, baseline of {len(rules)} rules: {matched}")
