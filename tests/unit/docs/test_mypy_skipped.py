"""The packages mypy skips (``follow_imports = "skip"`` in pyproject.toml) are never imported by
the project's own packages: what the project imports keeps its types."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, absolute names only."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def test_no_package_of_the_project_imports_a_package_mypy_skips() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    skipped = {
        pattern.removesuffix(".*")
        for override in config["overrides"]
        if override.get("follow_imports") == "skip"
        for pattern in override["module"]
    }
    assert "redis" in skipped  # the override is where this test reads it
    offending = {
        f"{path.relative_to(ROOT)}: {module}"
        for package in config["packages"]
        for path in (ROOT / package).rglob("*.py")
        for module in imported_modules(path)
        if module.split(".")[0] in skipped
    }
    assert not offending, (
        f"imports of packages mypy skips (remove them from the override): {offending}"
    )
