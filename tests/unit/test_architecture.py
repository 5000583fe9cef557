"""The layering rules of GUIDE.md section 1, checked by import-linter on every test run."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def tool(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """A command of this environment (beside its Python), run at the project's root."""
    command = [str(Path(sys.executable).with_name(name)), *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


def test_import_contracts_hold() -> None:
    result = tool("lint-imports", "--no-cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_the_lint_rules_hold() -> None:
    """ruff with the project's rules (pyproject.toml), the import bans among them, on every file."""
    result = tool("ruff", "check", "--no-cache", ".")
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
