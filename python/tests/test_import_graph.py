"""The modules of spark_agent import each other one way only (no cycle, lazy
imports inside functions included): read from the source with ast, so it
needs neither Spark nor the emulator."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "spark_agent"


def local_imports(package: Path) -> dict[str, set[str]]:
    """Module name → the package's modules it imports anywhere in its source
    (``from .x import``, ``from . import x``, ``spark_agent.x``); a name that
    is no module of the package stands for the package's ``__init__``."""
    modules = {p.stem for p in package.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in sorted(package.glob("*.py")):
        deps: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.ImportFrom):
                deps |= _targets(node, package.name, modules)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    head, _, rest = alias.name.partition(".")
                    if head == package.name:
                        deps.add(rest.split(".")[0] if rest else "__init__")
        deps.discard(path.stem)
        graph[path.stem] = deps
    return graph


def _targets(node: ast.ImportFrom, package: str, modules: set[str]) -> set[str]:
    if node.level == 0:
        head, _, rest = (node.module or "").partition(".")
        if head != package:
            return set()
        base = rest.split(".")[0]
    elif node.level == 1:
        base = (node.module or "").split(".")[0]
    else:
        return set()
    if base:
        return {base}
    return {a.name if a.name in modules else "__init__" for a in node.names}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle of ``graph`` as a path that ends where it starts, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for d in sorted(graph.get(m, ())):
            if state.get(d) == 1:
                return path[path.index(d):] + [d]
            if d not in state and (found := visit(d)):
                return found
        path.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := visit(m)):
            return found
    return None


def test_spark_agent_has_no_import_cycle() -> None:
    graph = local_imports(PACKAGE)
    assert {"sail", "streaming", "plan", "microbatch", "checkpoint"} <= graph.keys()
    cycle = find_cycle(graph)
    assert cycle is None, "spark_agent import cycle: " + " -> ".join(cycle)


def test_sail_path_depends_one_way() -> None:
    graph = local_imports(PACKAGE)
    assert "sail" not in graph["streaming"]
    assert graph["checkpoint"] == set()
    assert graph["microbatch"] <= {"checkpoint", "kafka_schema", "sink"}
    assert graph["plan"] <= {"checkpoint", "microbatch", "kafka_schema"}


@pytest.mark.parametrize("lazy", [False, True])
def test_a_cycle_is_found_even_through_a_lazy_import(tmp_path: Path, lazy: bool) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from .b import x\n")
    body = "def f():\n    from . import a\n" if lazy else "import pkg.a\n"
    (pkg / "b.py").write_text("x = 1\n" + body)
    (pkg / "c.py").write_text("from .a import x\n")
    graph = local_imports(pkg)
    assert graph == {"__init__": set(), "a": {"b"}, "b": {"a"}, "c": {"a"}}
    assert find_cycle(graph) == ["a", "b", "a"]
    (pkg / "b.py").write_text("x = 1\n")
    assert find_cycle(local_imports(pkg)) is None
