"""The technical context: at most 15 factual lines (stack, data, architecture, up to 8 key
structures), no directive words, no paths; and the refresh that adds `[R<n>]` facts."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from context.tree import write
from council.context import gather_context, refresh_technical_context
from council.context.technical import DIRECTIVES, build_technical_context, clean

REPO = Path(__file__).resolve().parents[2]
COUNCIL_FILES = [
    "src/council/config/model.py",
    "src/council/errors.py",
    "src/council/runner/call.py",
    "src/council/adapters/base.py",
    "src/council/runner/environment.py",
]
PATHLIKE = re.compile(r"\w/\w+/|\b\w+\.(?:py|md|json|ya?ml|toml)\b|(?:^|\s)\.{0,2}/\w")


def _defined_names(paths: list[str]) -> set[str]:
    names = set()
    for rel in paths:
        tree = ast.parse((REPO / rel).read_text(encoding="utf-8"))
        names |= {
            n.name
            for n in tree.body
            if isinstance(n, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        }
    return names


def test_the_technical_context_of_council_itself_is_short_factual_and_names_real_code():
    ctx = gather_context(COUNCIL_FILES, cwd=REPO)
    lines = ctx.technical
    assert 5 <= len(lines) <= 15
    assert all(line.startswith("- ") for line in lines)
    assert not any(DIRECTIVES.search(line) for line in lines)
    assert not any(PATHLIKE.search(line) for line in lines), lines
    assert "Python" in lines[0]
    named = {
        m.group(1)
        for line in lines
        for m in [re.match(r"- (?:async def|def|class) (\w+)", line)]
        if m
    }
    assert len(named & _defined_names(COUNCIL_FILES)) >= 3, lines
    structures = [line for line in lines if re.match(r"- (?:async def|def|class) ", line)]
    assert len(structures) <= 8


def test_the_stack_comes_from_the_manifests(project):
    write(
        project,
        "pyproject.toml",
        '[project]\nname = "svc"\nrequires-python = ">=3.12"\n'
        'dependencies = ["fastapi>=0.110", "sqlalchemy[asyncio]~=2.0", "httpx"]\n'
        '[project.scripts]\nsvc = "svc.main:run"\n'
        '[build-system]\nbuild-backend = "hatchling.build"\n',
    )
    lines = build_technical_context(project, [])
    assert lines[0] == "- Stack: Python >=3.12; build: hatchling; entry points: svc"
    assert lines[1] == "- Dependencies: fastapi, sqlalchemy, httpx"


def test_other_manifests_name_their_language(project):
    write(
        project,
        "package.json",
        json.dumps(
            {
                "type": "module",
                "engines": {"node": ">=20"},
                "dependencies": {"express": "^4", "chart.js": "^4"},
                "devDependencies": {"typescript": "^5", "vitest": "^1"},
                "repository": "https://user:pw@example.com/x.git",
            }
        ),
    )
    write(
        project,
        "go.mod",
        "module example.com/x\n\ngo 1.22\n\nrequire github.com/spf13/cobra v1.8.0\n",
    )
    write(
        project,
        "Cargo.toml",
        '[package]\nname = "x"\nedition = "2021"\n[dependencies]\nserde = "1"\n',
    )
    lines = "\n".join(build_technical_context(project, []))
    assert "TypeScript (Node >=20)" in lines
    assert "Go 1.22" in lines and "Rust (edition 2021)" in lines
    assert "express" in lines and "cobra" in lines and "serde" in lines
    assert "chart.js" not in lines  # reads like a file name: left out, not the whole line
    assert "pw@" not in lines  # nothing but names is taken from a manifest


def test_structures_of_other_languages_are_read_by_line_patterns(project):
    write(
        project,
        "api.ts",
        "export interface User { id: string }\n"
        "export class UserStore extends Store {}\n"
        "export async function loadUser(id: string): Promise<User> {\n  return x\n}\n",
    )
    write(
        project,
        "server.go",
        "package main\n\ntype Server struct {\n}\n\n"
        "func (s *Server) Serve(addr string) error {\n}\n",
    )
    write(project, "lib.rs", "pub struct Pool {}\npub fn connect(url: &str) -> Pool {\n}\n")
    ctx = gather_context(["api.ts", "server.go", "lib.rs"], cwd=project)
    text = "\n".join(ctx.technical)
    assert "- interface User" in text
    assert "- class UserStore extends Store" in text
    assert "- async function loadUser(id: string): Promise<User>" in text
    assert "- type Server struct" in text
    assert "- func (s *Server) Serve(addr string) error" in text
    assert "- struct Pool" in text and "- fn connect(url: &str) -> Pool" in text


def test_python_structures_show_fields_and_signatures(project):
    write(
        project,
        "model.py",
        "from dataclasses import dataclass\nfrom enum import Enum\n\n"
        "@dataclass(frozen=True)\nclass Order:\n    id: str\n    total: int = 0\n\n"
        "class Color(Enum):\n    RED = 1\n    BLUE = 2\n\n"
        "def place(order: Order, *, dry_run: bool = False, note: str = 'x') -> str:\n"
        "    return order.id\n\n"
        "def _private():\n    pass\n",
    )
    lines = gather_context(["model.py"], cwd=project).technical
    assert "- class Order [frozen dataclass]: id, total" in lines
    assert "- class Color(Enum): RED, BLUE" in lines
    assert "- def place(order: Order, *, dry_run: bool = False, note: str = ...) -> str" in lines
    assert not any("_private" in line for line in lines)
    data = next(line for line in lines if line.startswith("- Data and types:"))
    assert "frozen dataclasses (1)" in data and "enums (1)" in data


def test_at_most_eight_structures_and_fifteen_lines_even_for_many_files(project):
    files = []
    for i in range(12):
        name = f"m{i}.py"
        write(project, name, "".join(f"class C{i}x{j}:\n    pass\n\n" for j in range(5)))
        files.append(name)
    lines = gather_context(files, cwd=project).technical
    assert len(lines) <= 15
    assert sum(1 for line in lines if line.startswith("- class ")) <= 8


def test_the_limit_is_the_configured_context_lines(project):
    write(project, "m.py", "".join(f"def f{i}(x):\n    pass\n" for i in range(20)))
    lines = gather_context(["m.py"], cwd=project, context_lines=5).technical
    assert len(lines) == 5


def test_a_line_with_a_directive_word_or_a_path_is_dropped():
    assert clean("- Stack: Python") == "- Stack: Python"
    for bad in (
        "- Handlers should be idempotent",
        "- You MUST use the pool",
        "- Always retry twice",
        "- never cache tokens",
        "- Settings live in src/app/settings.py",
        "- Read config.yaml first",
    ):
        assert clean(bad) is None, bad


def test_a_docstring_with_directives_never_reaches_the_context(project):
    write(
        project,
        "svc.py",
        'class Service:\n    """You must always call close(); never share it."""\n\n'
        "    def close(self) -> None:\n        pass\n",
    )
    lines = gather_context(["svc.py"], cwd=project).technical
    assert "- class Service: close()" in lines
    assert not any(DIRECTIVES.search(line) for line in lines)


# -- the refresh -----------------------------------------------------------------------------

BASE = ("- Stack: Python >=3.11", "- class Pool: size")
CHALLENGES = [
    "The proposal is fragile. `Pool.acquire()` blocks when `size` is 0. "
    "You should add a timeout. Redis 7.2 evicts keys with `allkeys-lru` under memory pressure.",
    "I think the cache is wrong. `Pool.acquire()` blocks when `size` is 0. "
    "The handler reads `settings.timeout_s` once at import time.",
    "See src/app/pool.py for details about `Pool`. We must never retry writes.",
]


def test_the_refresh_adds_tagged_facts_without_opinions_or_directives():
    lines = refresh_technical_context(BASE, CHALLENGES, 2)
    added = lines[len(BASE) :]
    assert lines[: len(BASE)] == BASE
    assert added == (
        "- [R2] `Pool.acquire()` blocks when `size` is 0.",
        "- [R2] Redis 7.2 evicts keys with `allkeys-lru` under memory pressure.",
        "- [R2] The handler reads `settings.timeout_s` once at import time.",
    )
    assert not any(DIRECTIVES.search(line) for line in lines)


def test_the_refresh_is_deterministic_and_skips_duplicates():
    once = refresh_technical_context(BASE, CHALLENGES, 2)
    assert refresh_technical_context(BASE, CHALLENGES, 2) == once
    again = refresh_technical_context(once, CHALLENGES, 3)
    assert again == once  # nothing new in round 3


def test_the_refresh_never_exceeds_the_limit():
    facts = [f"The `worker_{i}` queue holds {i * 10} jobs at peak." for i in range(40)]
    lines = refresh_technical_context(BASE, [" ".join(facts)], 3, limit=20)
    assert len(lines) == 20
    assert all(line.startswith("- [R3] ") for line in lines[2:])
    full = tuple(f"- fact {i}" for i in range(25))
    assert refresh_technical_context(full, ["`x_y` is 3."], 4, limit=20) == full[:20]


def test_the_refresh_redacts_what_a_seat_repeats():
    token = "ghp_" + "aB3" * 12
    lines = refresh_technical_context(BASE, [f"The `GITHUB_TOKEN` value is {token} today."], 2)
    assert not any(token in line for line in lines)
