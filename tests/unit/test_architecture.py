"""The layering rules of GUIDE.md section 1, checked by import-linter on every test run."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tool(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """A command of this environment (beside its Python), run at the project's root."""
    command = [str(Path(sys.executable).with_name(name)), *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=240, check=False)


def test_import_contracts_hold() -> None:
    result = tool("lint-imports", "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_the_lint_rules_hold() -> None:
    """ruff with the project's rules (pyproject.toml), the import bans among them, on every file."""
    result = tool("ruff", "check", "--no-cache", ".")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_code_is_formatted() -> None:
    """ruff's formatter over the package, the tests and the benchmarks: a change that
    leaves a file unformatted fails here, not at the next commit that formats it."""
    result = tool("ruff", "format", "--check", "--no-cache", "src", "tests", "benchmarks")
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_types_hold() -> None:
    """mypy over the package: the widgets' typed seams among it (castdeck.ui.panes.roles lists each
    pane under the roles the window calls it by, so a missing method fails here)."""
    result = tool("mypy", "--cache-dir", str(ROOT / ".mypy_cache"))
    assert result.returncode == 0, result.stdout + result.stderr


def _castdeck_imports(path: Path) -> set[str]:
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    package = ".".join(path.relative_to(ROOT / "src").with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.add(module)
    return {name for name in found if name.startswith("castdeck")}


def test_sandbox_shares_only_the_wire_contract() -> None:
    """GUIDE section 1: the sandbox imports ``castdeck.api.models`` and nothing else of ours."""
    offenders = []
    for path in sorted((ROOT / "src" / "castdeck" / "sandbox").rglob("*.py")):
        for name in _castdeck_imports(path):
            allowed = name.startswith(("castdeck.sandbox", "castdeck.api.models")) or name == "castdeck"
            if not allowed:
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def _names_imported(path: Path) -> list[tuple[str, str, int]]:
    """``(module, name, line)`` for every ``from castdeck... import name`` of ``path`` (absolute ones)."""
    import ast

    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and (node.module or "").startswith("castdeck"):
            found.extend((node.module or "", alias.name, node.lineno) for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend(
                (alias.name, "", node.lineno) for alias in node.names if alias.name.startswith("castdeck")
            )
    return found


def test_widgets_take_only_models_and_errors_from_the_client() -> None:
    """GUIDE section 1: no API call is written in a widget. ``ui/`` imports from ``api/`` only the wire
    models and the errors (the calls live in ``services/``: catalog, starting, media_actions...)."""
    offenders = []
    for path in sorted((ROOT / "src" / "castdeck" / "ui").rglob("*.py")):
        for module, name, line in _names_imported(path):
            if module == "castdeck.api" or module.startswith("castdeck.api."):
                allowed = module in ("castdeck.api.models", "castdeck.api.errors") or module.startswith(
                    "castdeck.api.models."
                )
                if not allowed:
                    offenders.append(
                        f"{path.relative_to(ROOT)}:{line} imports {name or module} from {module}"
                    )
    assert offenders == []


def test_widgets_take_only_record_types_from_the_store() -> None:
    """``ui/`` never opens the database or a file of the store: from ``store/`` it takes the record
    types (classes, their exceptions among them), their state names and the kinds vocabulary."""
    import importlib

    # the early window paints the cached covers before the services are imported (start-up figure)
    early = ("src/castdeck/ui/early/window.py", "picture_key")
    offenders = []
    for path in sorted((ROOT / "src" / "castdeck" / "ui").rglob("*.py")):
        for module, name, line in _names_imported(path):
            if not (module == "castdeck.store" or module.startswith("castdeck.store.")):
                continue
            if module == "castdeck.store.kinds":
                continue
            value = getattr(importlib.import_module(module), name, None) if name else None
            state_name = isinstance(value, str) and name.isupper()
            if (str(path.relative_to(ROOT)), name) != early and not (isinstance(value, type) or state_name):
                offenders.append(f"{path.relative_to(ROOT)}:{line} imports {name or module} from {module}")
    assert offenders == []


def test_the_import_contract_catches_a_widget_that_calls_the_client(tmp_path: Path) -> None:
    """The rule above reads real imports: a widget importing the client is reported with its line."""
    widget = tmp_path / "widget.py"
    widget.write_text(
        "from castdeck.api.models import Host\nfrom castdeck.api import Client\n", encoding="utf-8"
    )
    assert _names_imported(widget) == [("castdeck.api.models", "Host", 1), ("castdeck.api", "Client", 2)]


RUNTIME_PIECES = {"ThreadPoolExecutor", "ProcessPoolExecutor", "QThreadPool", "TaskRunner", "Runtime"}
"""What the composition root builds (castdeck.services.runtime) and hands in: never a module's own."""
REGISTRIES = {"WeakKeyDictionary", "WeakValueDictionary"}
"""A registry keyed by the objects it serves (the ``Artwork.of(session)`` that was removed)."""


def _module_state(path: Path) -> list[str]:
    """Where a module (or a class, for all its instances) builds a runtime piece or a registry of its own."""
    import ast

    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    scopes: list[ast.AST] = [tree, *(node for node in tree.body if isinstance(node, ast.ClassDef))]
    for scope in scopes:
        for node in scope.body:  # type: ignore[attr-defined]
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            if not isinstance(value, ast.Call):
                continue
            called = (
                value.func.attr if isinstance(value.func, ast.Attribute) else getattr(value.func, "id", "")
            )
            if called in RUNTIME_PIECES | REGISTRIES:
                found.append(f"{path}:{node.lineno} builds a {called} of its own")
    return found


def test_no_module_builds_runtime_pieces_of_its_own() -> None:
    """One composition root: the app builds the task runner and the threads (``Runtime.build``) and
    hands them in; no module or class keeps a pool, a runner or a registry of its own."""
    offenders = []
    for path in sorted((ROOT / "src" / "castdeck").rglob("*.py")):
        if "sandbox" in path.relative_to(ROOT / "src" / "castdeck").parts:
            continue  # the embedded service is its own program
        offenders += [found.replace(str(path), str(path.relative_to(ROOT))) for found in _module_state(path)]
    assert offenders == []


def test_the_runtime_rule_catches_a_module_pool_and_a_class_registry(tmp_path: Path) -> None:
    module = tmp_path / "pictures.py"
    module.write_text(
        "import weakref\nfrom concurrent.futures import ThreadPoolExecutor\n"
        "_decoder = ThreadPoolExecutor(max_workers=2)\n"
        "class Artwork:\n    _of = weakref.WeakKeyDictionary()\n"
        "    def __init__(self):\n        self.pool = ThreadPoolExecutor()\n",
        encoding="utf-8",
    )
    assert _module_state(module) == [
        f"{module}:3 builds a ThreadPoolExecutor of its own",
        f"{module}:5 builds a WeakKeyDictionary of its own",
    ]
