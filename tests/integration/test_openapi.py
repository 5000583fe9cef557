"""The served OpenAPI description: valid 3.1, complete, and true to the sandbox's answers."""

from __future__ import annotations

import re
from typing import Any

import httpx
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from openapi_spec_validator import validate
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.conftest import DEMO_KEY, RunningSandbox

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
    response = httpx.get(f"{sandbox.base_url}/openapi.json", timeout=10)
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
                if parameter["in"] == "path" and parameter["name"] in ("episode_id", "podcast_id"):
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


def path_kind(path: str, name: str) -> str:
    if name == "media_id":
        return path.split("/")[2]
    return name.removesuffix("_id")


def seeded_ids(running: RunningSandbox) -> dict[str, list[str]]:
    """The ids of the seeded records of each kind (drafts, failures, completed ones, ...)."""
    client = running.client(DEMO_KEY)
    lists = {
        "podcast": "/v1/podcasts",
        "episode": "/v1/episodes",
        "host": "/v1/hosts",
        "source": "/v1/sources",
        "videos": "/v1/videos",
        "shorts": "/v1/shorts",
        "voiceovers": "/v1/voiceovers",
    }
    known = {}
    for kind, path in lists.items():
        response = client.get(path, params={"limit": 100})
        assert response.status_code == 200, response.text
        known[kind] = [str(item["id"]) for item in response.json()["data"]]
        assert known[kind], kind
    return known


CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
    response_headers_conformance,
]


def fuzz(
    strategy: st.SearchStrategy[schemathesis.Case], base_url: str, seen: set[int], examples: int = 8
) -> None:
    headers = {"Authorization": f"Bearer {DEMO_KEY}"}

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def run(case: schemathesis.Case) -> None:
        response = case.call_and_validate(base_url=base_url, headers=headers, checks=CHECKS, timeout=30)
        seen.add(response.status_code)

    run()


def test_schemathesis_finds_no_disagreement(sandbox_factory: Any) -> None:
    """Fuzz every operation (a few examples each) against a fast sandbox of its own."""
    running = sandbox_factory("--speed", "50", "--no-seed-media", "--workers", "2")
    schema = schemathesis.openapi.from_url(f"{running.base_url}/openapi.json")
    known = seeded_ids(running)
    failures: list[str] = []
    statuses: dict[str, set[int]] = {}
    rejected: set[int] = set()
    for result in schema.get_all_operations():
        operation = result.ok()
        label = f"{operation.method.upper()} {operation.path}"
        statuses[label] = set()
        # Random ids (404s) and, for most examples, the ids of real records in every state.
        strategy = operation.as_strategy()
        names = re.findall(r"{(\w+)}", operation.path)
        if names:
            ids = known[path_kind(operation.path, names[-1])]
            strategy = st.one_of(
                strategy, *[operation.as_strategy(path_parameters={names[-1]: ident}) for ident in ids]
            )

        try:
            fuzz(strategy, running.base_url, statuses[label])
        except Exception as exc:  # collect every operation's failure, not only the first
            failures.append(f"{label}: {exc}")
        # Invalid input too (a wrong type, a broken key, a missing field): documented 4xx answers.
        try:
            negative = operation.as_strategy(schemathesis.GenerationMode.NEGATIVE)
            fuzz(negative, running.base_url, rejected, examples=4)
        except Unsatisfiable:
            pass  # nothing to break (GET / and /health take no input)
        except Exception as exc:
            failures.append(f"{label} (invalid input): {exc}")
    assert not failures, "\n\n".join(failures)
    assert len(statuses) == len(operations(load_document(running)))
    # The run reached real records, not only 404s.
    answered = {label for label, seen in statuses.items() if any(200 <= s < 300 for s in seen)}
    assert {400, 401, 404} <= rejected, rejected
    # Most operations (about 40 of 56) reach a success; which ones varies with the records' states,
    # so the bar sits well below that and still fails a run that only ever meets 404s.
    assert len(answered) >= 30, {label: seen for label, seen in statuses.items() if label not in answered}
    assert "Traceback" not in running.log, running.log
