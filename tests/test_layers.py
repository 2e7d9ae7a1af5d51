"""Imports point one way: front ends -> protocols -> services -> base (docs/architecture.md).

Read from the source, lazy imports inside functions included, so an import that points the
other way fails here wherever it hides."""

from __future__ import annotations

import ast
from pathlib import Path

import council

PACKAGE = Path(council.__file__).parent

# The first part of a module's name under `council` decides its layer.
LAYERS = {
    "base": {"errors", "atomicio", "words", "safetext", "question", "options", "__init__"},
    "services": {
        "adapters",
        "runner",
        "context",
        "runs",
        "config",
        "progress",
        "prompts",
        "sim",
        "hosts",
        "panel",
        "doctor",
        "report",
    },
    "protocols": {"debate", "review", "check", "protocols", "adr"},
    "front ends": {"cli", "mcp", "__main__"},
}
ORDER = ["base", "services", "protocols", "front ends"]


def layer_of(module: str) -> str:
    head = module.split(".")[1] if "." in module else "__init__"
    for layer, parts in LAYERS.items():
        if head in parts:
            return layer
    raise AssertionError(f"council.{head} belongs to no layer: add it to LAYERS")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" and len(parts) > 1 else parts)


def council_imports(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        found += [(node.lineno, n) for n in names if n == "council" or n.startswith("council.")]
    return found


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_module_of_council_has_a_layer():
    for path in sources():
        layer_of(module_name(path))


def test_no_import_points_up_the_layers():
    upward = []
    for path in sources():
        importer = module_name(path)
        mine = ORDER.index(layer_of(importer))
        for line, imported in council_imports(path):
            if ORDER.index(layer_of(imported)) > mine:
                upward.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {imported}")
    assert not upward, "imports pointing up the layers:\n" + "\n".join(upward)


def test_the_simulator_stands_alone():
    """council-sim runs as a separate fast executable: it may use words and the version only."""
    for path in (PACKAGE / "sim").rglob("*.py"):
        for line, imported in council_imports(path):
            assert imported in ("council", "council.words") or imported.startswith("council.sim"), (
                f"{path.name}:{line} imports {imported}"
            )


def test_the_layer_test_sees_an_upward_import(tmp_path):
    """The check itself can fail: a service importing the debate protocol is caught."""
    planted = tmp_path / "planted.py"
    planted.write_text("def f():\n    from council.debate.lead import Lead\n")
    assert council_imports(planted) == [(2, "council.debate.lead")]
    assert ORDER.index(layer_of("council.debate.lead")) > ORDER.index(
        layer_of("council.runner.call")
    )
