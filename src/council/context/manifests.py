"""Stack facts from the project's manifests (pyproject.toml, package.json, go.mod, Cargo.toml,
requirements.txt and the names of a few others).

Only names and version constraints are taken: a manifest may hold URLs, scripts or tokens,
and none of that is a fact about the stack. Every name is checked against a strict pattern so
nothing else slips through.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

_NAME = re.compile(r"^@?[A-Za-z0-9][A-Za-z0-9._/-]{0,60}$")
_VERSION = re.compile(r"^[<>=!~^*0-9. ,]{1,30}$")
MAX_DEPS = 8


@dataclass
class Stack:
    languages: list[str] = field(default_factory=list)  # "Python >= 3.11"
    dependencies: list[str] = field(default_factory=list)
    dev_tools: list[str] = field(default_factory=list)
    build: list[str] = field(default_factory=list)  # "hatchling", "npm scripts: build, test"
    entry_points: list[str] = field(default_factory=list)

    def add_language(self, text: str) -> None:
        base = text.split()[0]
        if not any(existing.split()[0] == base for existing in self.languages):
            self.languages.append(text)

    def add(self, target: list[str], names: list[str]) -> None:
        for name in names:
            if _NAME.match(name) and name not in target:
                target.append(name)


def _dep_name(spec: str) -> str:
    """`jinja2>=3.1 ; python_version<'3.12'` -> `jinja2`."""
    return re.split(r"[\s<>=!~;\[(@]", spec.strip(), maxsplit=1)[0]


def _read(path: Path) -> str | None:
    try:
        if path.is_file() and path.stat().st_size < 1_000_000:
            return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _parsed(path: Path, parse: Callable[[str], object]) -> dict | None:
    """A manifest read and parsed into a mapping; None when absent, unreadable or malformed
    (a broken manifest only means fewer facts, never a failed debate)."""
    text = _read(path)
    if text is None:
        return None
    try:
        data = parse(text)
    except ValueError:  # tomllib.TOMLDecodeError and json.JSONDecodeError both are
        return None
    return data if isinstance(data, dict) else None


def read_stack(root: Path) -> Stack:
    stack = Stack()
    _pyproject(root, stack)
    _requirements(root, stack)
    _package_json(root, stack)
    _go_mod(root, stack)
    _cargo(root, stack)
    for name, language in (
        ("pom.xml", "Java (Maven)"),
        ("build.gradle", "JVM (Gradle)"),
        ("build.gradle.kts", "Kotlin (Gradle)"),
        ("Gemfile", "Ruby (Bundler)"),
        ("composer.json", "PHP (Composer)"),
        ("mix.exs", "Elixir (Mix)"),
        ("pubspec.yaml", "Dart (pub)"),
        ("Package.swift", "Swift (SwiftPM)"),
    ):
        if (root / name).is_file():
            stack.add_language(language)
    return stack


def _pyproject(root: Path, stack: Stack) -> None:
    data = _parsed(root / "pyproject.toml", tomllib.loads)
    if data is None:
        return
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    python = project.get("requires-python")
    version = f" {python}" if isinstance(python, str) and _VERSION.match(python) else ""
    stack.add_language(f"Python{version}")
    deps = [_dep_name(d) for d in project.get("dependencies", []) if isinstance(d, str)]
    poetry = data.get("tool", {}).get("poetry", {}) if isinstance(data.get("tool"), dict) else {}
    if isinstance(poetry, dict) and isinstance(poetry.get("dependencies"), dict):
        deps += [d for d in poetry["dependencies"] if d.lower() != "python"]
    stack.add(stack.dependencies, deps)
    optional = project.get("optional-dependencies", {})
    if isinstance(optional, dict):
        for group in optional.values():
            if isinstance(group, list):
                stack.add(stack.dev_tools, [_dep_name(d) for d in group if isinstance(d, str)])
    backend = data.get("build-system", {}).get("build-backend")
    if isinstance(backend, str):
        stack.add(stack.build, [backend.split(".")[0]])
    scripts = project.get("scripts", {})
    if isinstance(scripts, dict):
        stack.add(stack.entry_points, list(scripts))


def _requirements(root: Path, stack: Stack) -> None:
    text = _read(root / "requirements.txt")
    if text is None:
        return
    stack.add_language("Python")
    names = [
        _dep_name(line)
        for line in text.splitlines()
        if line.strip() and not line.lstrip().startswith(("#", "-"))
    ]
    stack.add(stack.dependencies, names)


def _package_json(root: Path, stack: Stack) -> None:
    data = _parsed(root / "package.json", json.loads)
    if data is None:
        return
    deps = data.get("dependencies") if isinstance(data.get("dependencies"), dict) else {}
    dev = data.get("devDependencies") if isinstance(data.get("devDependencies"), dict) else {}
    typescript = "typescript" in deps or "typescript" in dev or (root / "tsconfig.json").is_file()
    node = data.get("engines", {}).get("node") if isinstance(data.get("engines"), dict) else None
    runtime = f" (Node {node})" if isinstance(node, str) and _VERSION.match(node) else ""
    stack.add_language(("TypeScript" if typescript else "JavaScript") + runtime)
    stack.add(stack.dependencies, list(deps))
    stack.add(stack.dev_tools, list(dev))
    if data.get("type") == "module" and "ES modules" not in stack.build:
        # Not through `add`: its name pattern admits no space, and this is no package name.
        stack.build.append("ES modules")
    binaries = data.get("bin")
    if isinstance(binaries, dict):
        stack.add(stack.entry_points, list(binaries))


def _go_mod(root: Path, stack: Stack) -> None:
    text = _read(root / "go.mod")
    if text is None:
        return
    version = re.search(r"^go\s+([0-9.]+)\s*$", text, re.M)
    stack.add_language(f"Go {version.group(1)}" if version else "Go")
    module = re.compile(r"^\s*(?:require\s+)?([\w.-]+\.[\w.-]+/[\w./-]+)\s+v[\w.+-]+")
    names = []
    for line in text.splitlines():
        found = module.match(line)
        if found and "// indirect" not in line:
            # The last element names the package; the full module path is a URL-like path.
            names.append(found.group(1).rstrip("/").rsplit("/", 1)[-1])
    stack.add(stack.dependencies, names)


def _cargo(root: Path, stack: Stack) -> None:
    data = _parsed(root / "Cargo.toml", tomllib.loads)
    if data is None:
        return
    package = data.get("package") if isinstance(data.get("package"), dict) else {}
    edition = package.get("edition")
    stack.add_language(f"Rust (edition {edition})" if isinstance(edition, str) else "Rust")
    deps = data.get("dependencies")
    if isinstance(deps, dict):
        stack.add(stack.dependencies, list(deps))
