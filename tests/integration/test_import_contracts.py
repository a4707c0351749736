"""The import arrows point one way: the contracts in ``pyproject.toml`` hold (``lint-imports``)
and no module imports itself back through any chain of imports."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import grimp

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("sources", "pipelines", "flows", "emulator", "receiver", "benchmarks")


def test_the_import_contracts_hold():
    script = Path(sys.executable).with_name("lint-imports")
    command = [str(script)] if script.exists() else [shutil.which("lint-imports") or "lint-imports"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def import_cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """The strongly connected groups of modules (two or more) of ``graph``: each is a cycle."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return cycles


def test_no_module_imports_itself_back():
    """Any cycle, a package's ``__init__`` and its own modules included (``acyclic_siblings`` in
    the contracts sees only cycles between siblings)."""
    sys.path.insert(0, str(ROOT))
    try:
        present = [p for p in PACKAGES if (ROOT / p / "__init__.py").exists()]
        graph = grimp.build_graph(*present, cache_dir=None)
    finally:
        sys.path.remove(str(ROOT))
    assert import_cycles(graph) == []
