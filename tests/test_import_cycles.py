"""No module of council imports itself back, however far round: read from the source, lazy
imports inside functions included (they run too, only later), imports under
`if TYPE_CHECKING:` left out (they never run)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

from test_layers import PACKAGE, module_name, sources

MODULES = {module_name(path): path for path in sources()}


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node of `tree` but those under an `if TYPE_CHECKING:`."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            yield from (n for child in node.orelse for n in [child, *_runtime_nodes(child)])
            continue
        yield node
        yield from _runtime_nodes(node)


def imported_modules(path: Path) -> set[str]:
    """The modules of council that `path` imports when it runs: `from council.x import y`
    counts as council.x.y where y is a module, else as council.x."""
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                found.add(submodule if submodule in MODULES else node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name for name in found if name in MODULES}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted, and a
    module that imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph.get(module, ())):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == module:
                    break
            if len(group) > 1 or module in graph.get(module, ()):
                found.append(sorted(group))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_module_of_council_imports_itself_back():
    graph = {name: imported_modules(path) for name, path in MODULES.items()}
    found = cycles(graph)
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(group) for group in found)


def test_the_cycle_test_sees_a_lazy_cycle_and_not_a_type_only_one(tmp_path):
    planted = tmp_path / "planted.py"
    planted.write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from council.adapters.warm import WarmLaunch\n"
        "def f():\n"
        "    from council.adapters.base import Adapter\n"
    )
    assert imported_modules(planted) == {"council.adapters.base"}
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
    assert PACKAGE.name == "council"
