"""The technical context's facts, line by line as a seat reads them: the stack from the
manifests (with their caps), the given files' languages, libraries, data and code shape, and
the refresh's `[R<n>]` facts (docs/spec/protocol.md, "Technical context")."""

from __future__ import annotations

import json

from context.tree import write
from council.context import gather_context, refresh_technical_context
from council.context.technical import build_technical_context


def test_many_dependencies_are_cut_to_eight_with_a_count_and_six_development_tools(project):
    write(
        project,
        "pyproject.toml",
        '[project]\nname = "svc"\nrequires-python = ">=3.11"\n'
        "dependencies = [" + ", ".join(f'"a{i}"' for i in range(1, 11)) + "]\n"
        "[project.optional-dependencies]\n"
        "dev = [" + ", ".join(f'"d{i}"' for i in range(1, 8)) + "]\n"
        "[project.scripts]\n" + "".join(f'e{i} = "m:a"\n' for i in range(1, 7)) + "[build-system]\n"
        'build-backend = "hatchling.build"\n',
    )
    lines = build_technical_context(project, [])
    assert lines == (
        "- Stack: Python >=3.11; build: hatchling; entry points: e1, e2, e3, e4, e5",
        "- Dependencies: a1, a2, a3, a4, a5, a6, a7, a8 (+2 more); "
        "development: d1, d2, d3, d4, d5, d6",
    )


def test_nine_dependencies_say_one_more_and_eight_say_none(project):
    deps = ", ".join(f'"a{i}"' for i in range(1, 10))
    write(project, "pyproject.toml", f"[project]\ndependencies = [{deps}]\n")
    assert build_technical_context(project, [])[1] == (
        "- Dependencies: a1, a2, a3, a4, a5, a6, a7, a8 (+1 more)"
    )
    deps = ", ".join(f'"a{i}"' for i in range(1, 9))
    write(project, "pyproject.toml", f"[project]\ndependencies = [{deps}]\n")
    assert build_technical_context(project, [])[1] == (
        "- Dependencies: a1, a2, a3, a4, a5, a6, a7, a8"
    )


def test_requirements_skip_comments_options_and_includes(project):
    write(
        project,
        "requirements.txt",
        "requests>=2.31\n-r base.txt\n--index-url https://pypi.example/simple\n"
        "# pinned below\nflask==3.0 ; python_version >= '3.11'\n",
    )
    assert build_technical_context(project, []) == (
        "- Stack: Python",
        "- Dependencies: requests, flask",
    )


def test_poetry_dependencies_leave_python_itself_out(project):
    write(
        project,
        "pyproject.toml",
        '[tool.poetry.dependencies]\npython = "^3.11"\npendulum = "^3"\n',
    )
    assert build_technical_context(project, [])[1] == "- Dependencies: pendulum"


def test_go_modules_leave_indirect_ones_out(project):
    write(
        project,
        "go.mod",
        "module example.com/x\n\ngo 1.22\n\nrequire (\n\tgithub.com/spf13/cobra v1.8.0\n"
        "\tgolang.org/x/sys v0.1.0 // indirect\n)\n",
    )
    assert build_technical_context(project, []) == ("- Stack: Go 1.22", "- Dependencies: cobra")


def test_a_tsconfig_makes_a_node_project_typescript_and_a_module_type_is_a_build_fact(project):
    write(
        project,
        "package.json",
        json.dumps(
            {
                "type": "module",
                "engines": {"node": "lts/*"},
                "dependencies": {"express": "^4"},
                "bin": {"svc": "bin/svc.js"},
            }
        ),
    )
    write(project, "tsconfig.json", "{}\n")
    assert build_technical_context(project, []) == (
        "- Stack: TypeScript; build: ES modules; entry points: svc",
        "- Dependencies: express",
    )


def test_a_cargo_package_without_an_edition_is_plain_rust(project):
    write(project, "Cargo.toml", '[package]\nname = "x"\n[dependencies]\nserde = "1"\n')
    assert build_technical_context(project, []) == ("- Stack: Rust", "- Dependencies: serde")


def test_the_names_of_other_manifests_name_their_language(project):
    for name in ("Gemfile", "pom.xml", "composer.json"):
        write(project, name, "\n")
    assert build_technical_context(project, []) == (
        "- Stack: Java (Maven), Ruby (Bundler), PHP (Composer)",
    )


def test_the_given_files_languages_libraries_data_and_shape_are_each_a_line(project):
    write(
        project,
        "svc.py",
        "import asyncio\nimport click\nfrom dataclasses import dataclass\n\n"
        "@dataclass\nclass Job:\n    id: str\n\n"
        "async def run(job: Job) -> None:\n    await asyncio.sleep(0)\n\n"
        "def helper(x):\n    return x\n",
    )
    write(project, "schema.sql", "CREATE TABLE jobs (id text);\ncreate table runs (id text);\n")
    write(project, "web.ts", "export function start(port: number): void {}\n")
    lines = gather_context(["svc.py", "schema.sql", "web.ts"], cwd=project).technical
    assert lines == (
        "- Stack: Python, TypeScript",
        "- Given files by language: Python (1), SQL (1), TypeScript (1)",
        "- Libraries in the given files: asyncio (async), click (CLI)",
        "- Data and types: dataclasses (1), type hints on 50% of 2 functions, SQL tables (2)",
        "- Code shape: 2 source files given, async code in 1, "
        "1 public classes, 3 public functions at module level",
        "- class Job [dataclass]: id",
        "- function start(port: number): void",
        "- async def run(job: Job) -> None",
        "- def helper(x)",
    )


def test_type_hints_are_a_rounded_share_of_the_functions(project):
    write(
        project,
        "m.py",
        "def a(x: int):\n    pass\n\ndef b(x: int):\n    pass\n\ndef c(x):\n    pass\n",
    )
    lines = gather_context(["m.py"], cwd=project).technical
    assert "- Data and types: type hints on 67% of 3 functions" in lines


def test_a_signature_shows_keyword_only_arguments_after_a_star_and_only_simple_defaults(
    project,
):
    write(
        project,
        "m.py",
        "async def fetch(url, /, retries=3, *, timeout: float = 2.5, name='x', **extra):\n"
        "    pass\n\n"
        "class Client:\n    def get(self):\n        pass\n    def _raw(self):\n        pass\n",
    )
    lines = gather_context(["m.py"], cwd=project).technical
    assert (
        "- async def fetch(url, /, retries=3, *, timeout: float = 2.5, name=..., **extra)" in lines
    )
    assert "- class Client: get()" in lines


def test_many_languages_name_the_six_most_given(project):
    names = ["a.py", "b.py", "c.go", "d.rs", "e.rb", "f.java", "g.c", "h.sh"]
    for name in names:
        write(project, name, "\n")
    line = next(
        t
        for t in gather_context(names, cwd=project).technical
        if t.startswith("- Given files by language:")
    )
    assert line == (
        "- Given files by language: Python (2), Go (1), Rust (1), Ruby (1), Java (1), C (1)"
    )


def test_the_refresh_tags_each_fact_with_its_round_and_puts_shared_facts_first():
    base = ("- Stack: Python",)
    said = [
        "The `pool_size` setting is 4. The `cache_ttl` setting is 30 s.",
        "The `cache_ttl` setting is 30 s.",
        "The `retry_max` setting is 2.",
    ]
    assert refresh_technical_context(base, said, 3) == (
        "- Stack: Python",
        "- [R3] The `cache_ttl` setting is 30 s.",
        "- [R3] The `pool_size` setting is 4.",
        "- [R3] The `retry_max` setting is 2.",
    )


def test_the_refresh_keeps_a_four_word_fact_and_drops_a_three_word_one():
    added = refresh_technical_context((), ["`pool_size` is 4. `x_y` equals 3.5 exactly."], 2)
    assert added == ("- [R2] `x_y` equals 3.5 exactly.",)


def test_ruby_and_java_like_structures_are_read_by_line_patterns(project):
    write(
        project,
        "app.rb",
        "module Billing\n  class Invoice < Record\n    def self.build(attrs)\n    end\n"
        "    def paid?\n    end\n  end\nend\n",
    )
    write(project, "Main.kt", "data class Order(val id: String)\nsealed interface Event\n")
    lines = gather_context(["app.rb", "Main.kt"], cwd=project).technical
    for expected in (
        "- module Billing",
        "- class Invoice < Record",
        "- def self.build(attrs)",
        "- def paid?",
        "- class Order",
        "- interface Event",
    ):
        assert expected in lines, lines


def test_structures_take_turns_over_the_files_and_alternate_classes_and_functions(project):
    write(
        project,
        "a.py",
        "".join(f"class A{i}:\n    pass\n\n" for i in range(1, 4))
        + "".join(f"def fa{i}():\n    pass\n\n" for i in range(1, 3)),
    )
    write(project, "b.py", "".join(f"class B{i}:\n    pass\n\n" for i in range(1, 6)))
    lines = gather_context(["a.py", "b.py"], cwd=project).technical
    structures = [t for t in lines if t.startswith(("- class ", "- def "))]
    assert structures == [
        "- class A1",
        "- class B1",
        "- def fa1()",
        "- class B2",
        "- class A2",
        "- class B3",
        "- def fa2()",
        "- class B4",
    ]


def test_the_refresh_drops_a_hedged_sentence():
    said = ["The pool could block when `size` is 0. The `pool_size` setting is 4 here."]
    assert refresh_technical_context((), said, 2) == ("- [R2] The `pool_size` setting is 4 here.",)


def test_a_short_limit_keeps_four_structures_after_the_first_fact(project):
    write(project, "m.py", "".join(f"def f{i}(x):\n    pass\n" for i in range(20)))
    lines = gather_context(["m.py"], cwd=project, context_lines=5).technical
    assert lines == (
        "- Stack: Python",
        "- def f0(x)",
        "- def f1(x)",
        "- def f2(x)",
        "- def f3(x)",
    )
